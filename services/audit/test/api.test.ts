import { type AuditEvent, type AuditItem, AuditPageSchema } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { Scope } from '@nrad/service-kit';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECORD_ID_REQUIRED, RECORD_NOT_FOUND } from '../src/use-cases/trail.ts';
import { type AuditHarness, auditEvent, recordEvent, startAudit, userOf } from './harness.ts';

/**
 * `GET /api/audit` over a known trail: ADMIN with each filter and paging, an agency with its own
 * record's timeline only, and the refusals.
 */
let h: AuditHarness;
const admin = userOf('ADMIN');
const bps = userOf('BPS');
const fia = userOf('FIA');
const otherBps = userOf('BPS');

/** Records: two of BPS, one of FIA (owners from records.* events). */
const bpsRecord = new Types.ObjectId().toHexString();
const bpsQuiet = new Types.ObjectId().toHexString();
const fiaRecord = new Types.ObjectId().toHexString();

const minute = (m: number) => new Date(Date.UTC(2026, 0, 10, 12, m)).toISOString();
/** The trail, in the order stored (seq 1, 2, …). */
let trail: AuditEvent[];

beforeAll(async () => {
  h = await startAudit();
  for (const e of [recordEvent('BPS', bpsRecord), recordEvent('BPS', bpsQuiet), recordEvent('FIA', fiaRecord)]) {
    await h.publishRecord(e);
  }
  trail = [
    auditEvent({ action: 'record.create', at: minute(0), userId: bps.userId, recordIds: [bpsRecord] }),
    auditEvent({ action: 'record.read', at: minute(1), userId: bps.userId, recordIds: [bpsRecord] }),
    auditEvent({
      action: 'record.list',
      at: minute(2),
      userId: admin.userId,
      organization: 'ADMIN',
      recordIds: [fiaRecord, bpsRecord, 'x1'],
    }),
    auditEvent({
      action: 'access.refused',
      at: minute(3),
      userId: fia.userId,
      organization: 'FIA',
      recordIds: [bpsRecord],
      detail: { status: 403, method: 'GET', path: `/api/records/${bpsRecord}` },
    }),
    auditEvent({
      action: 'record.create',
      at: minute(4),
      userId: fia.userId,
      organization: 'FIA',
      recordIds: [fiaRecord],
    }),
    auditEvent({ action: 'sign-in', at: minute(5), userId: bps.userId, recordIds: [] }),
    auditEvent({ action: 'record.edit', at: minute(6), userId: otherBps.userId, recordIds: [bpsRecord] }),
    auditEvent({
      action: 'sign-in-failed',
      at: minute(7),
      userId: null,
      organization: null,
      recordIds: [],
      detail: { email: 'someone@agency.bm', reason: 'invalid-credentials' },
    }),
  ];
  for (const e of trail) await h.publish(e);
  await h.caughtUp();
  await waitUntil(
    'owners known',
    async () => (await h.built.owners.ownerOf(Scope.system('test'), fiaRecord)) === 'FIA',
  );
});

const seqOf = (e: AuditEvent) => trail.indexOf(e) + 1;
/** What ADMIN's page lists for these events, newest first: where from, which service, the detail too. */
const listed = (events: AuditEvent[]): AuditItem[] =>
  events
    .map((e) => ({
      id: e.id,
      seq: seqOf(e),
      action: e.action,
      organization: e.organization,
      userId: e.userId,
      recordIds: e.recordIds,
      at: e.at,
      requestId: e.requestId,
      clientAddress: e.clientAddress,
      service: e.service,
      ...(e.detail ? { detail: e.detail } : {}),
    }))
    .sort((a, b) => b.seq - a.seq);

const page = async (query: string, user = admin) => {
  const res = await h.get(`/api/audit${query}`, user);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return AuditPageSchema.parse(res.body);
};
const where = (keep: (e: AuditEvent) => boolean) => trail.filter(keep);

describe('GET /api/audit as ADMIN', () => {
  it('lists everything newest first, with the total', async () => {
    expect(await page('')).toEqual({ items: listed(trail), total: 8 });
  });

  it('pages with limit and offset; the total stays the whole count', async () => {
    const all = listed(trail);
    expect(await page('?limit=3')).toEqual({ items: all.slice(0, 3), total: 8 });
    expect(await page('?limit=3&offset=3')).toEqual({ items: all.slice(3, 6), total: 8 });
    expect(await page('?limit=3&offset=6')).toEqual({ items: all.slice(6), total: 8 });
    expect(await page('?offset=8')).toEqual({ items: [], total: 8 });
  });

  it('filters by record: each entry whose record ids hold it', async () => {
    const naming = where((e) => e.recordIds.includes(bpsRecord));
    expect(naming).toHaveLength(5);
    expect(await page(`?recordId=${bpsRecord}`)).toEqual({ items: listed(naming), total: 5 });
    expect(await page(`?recordId=${fiaRecord}&limit=1`)).toEqual({
      items: listed(where((e) => e.recordIds.includes(fiaRecord))).slice(0, 1),
      total: 2,
    });
    expect(await page('?recordId=nothing-here')).toEqual({ items: [], total: 0 });
  });

  it('filters by user', async () => {
    const theirs = where((e) => e.userId === bps.userId);
    expect(await page(`?userId=${bps.userId}`)).toEqual({ items: listed(theirs), total: 3 });
  });

  it('filters by time: from inclusive, to exclusive', async () => {
    expect(await page(`?from=${minute(2)}&to=${minute(5)}`)).toEqual({
      items: listed(trail.slice(2, 5)),
      total: 3,
    });
    expect(await page(`?from=${minute(6)}`)).toEqual({ items: listed(trail.slice(6)), total: 2 });
    expect(await page(`?to=${minute(1)}`)).toEqual({ items: listed(trail.slice(0, 1)), total: 1 });
  });

  it('combines the filters (each must hold)', async () => {
    const both = where((e) => e.recordIds.includes(bpsRecord) && e.userId === bps.userId && e.at >= minute(1));
    expect(both).toHaveLength(1);
    expect(await page(`?recordId=${bpsRecord}&userId=${bps.userId}&from=${minute(1)}`)).toEqual({
      items: listed(both),
      total: 1,
    });
  });

  it('refuses a bad query with a 400 naming the field', async () => {
    const bad = async (query: string, message: RegExp) => {
      const res = await h.get(`/api/audit${query}`, admin);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
    };
    await bad('?limit=0', /^limit: /);
    await bad('?limit=201', /^limit: /);
    await bad('?offset=-1', /^offset: /);
    await bad('?from=yesterday', /^from: /);
    await bad(`?from=${minute(3)}&to=${minute(3)}`, /^to: must be later than from/);
    await bad('?recordId=a&recordId=b', /^recordId: /);
  });
});

describe('GET /api/audit as an agency user', () => {
  it('gives its own record’s timeline, every entry naming it, by anyone; another agency only as the agency', async () => {
    const naming = where((e) => e.recordIds.includes(bpsRecord));
    const res = await page(`?recordId=${bpsRecord}`, otherBps);
    // Each item names the asked record only (ADMIN's list page named another agency's record too),
    // and another organization's entries show that organization, no user or request (issue 34).
    // Where from, which service and the detail are ADMIN's only.
    const expected = listed(naming).map(({ clientAddress: _a, service: _s, detail: _d, ...i }) => ({
      ...i,
      recordIds: [bpsRecord],
      ...(i.organization === 'BPS' ? {} : { userId: null, requestId: null }),
    }));
    expect(res).toEqual({ items: expected, total: 5 });
    const foreign = res.items.filter((i) => i.organization !== 'BPS');
    expect(foreign.length).toBeGreaterThan(0);
    for (const item of foreign) expect(item).toMatchObject({ userId: null, requestId: null });
    expect(JSON.stringify(res)).not.toContain(fia.userId);
    // Another agency's user id finds nothing, as an unknown id; ADMIN still sees everything.
    expect(await page(`?recordId=${bpsRecord}&userId=${fia.userId}`, bps)).toEqual({ items: [], total: 0 });
    expect(await page(`?recordId=${bpsRecord}&userId=${fia.userId}`, admin)).toMatchObject({
      items: [{ action: 'access.refused', organization: 'FIA', userId: fia.userId }],
      total: 1,
    });
    expect(await page(`?recordId=${bpsQuiet}`, bps)).toEqual({ items: [], total: 0 });
  });

  it('gets 404 as the records service answers for another agency’s record, or an unknown one', async () => {
    for (const recordId of [fiaRecord, new Types.ObjectId().toHexString(), 'x1']) {
      const res = await h.get(`/api/audit?recordId=${recordId}`, bps);
      expect(res.status, recordId).toBe(404);
      expect(res.body).toEqual({ message: RECORD_NOT_FOUND, code: 'NOT_FOUND' });
    }
    expect((await h.get(`/api/audit?recordId=${bpsRecord}`, fia)).body).toEqual({
      message: 'Record not found',
      code: 'NOT_FOUND',
    });
  });

  it('gets 400 without a record id', async () => {
    for (const query of ['', `?userId=${bps.userId}`, `?from=${minute(0)}`]) {
      const res = await h.get(`/api/audit${query}`, bps);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ message: RECORD_ID_REQUIRED, code: 'VALIDATION_ERROR' });
    }
  });
});

describe('GET /api/audit without an identity', () => {
  it('is 401 (readiness needs none, and checks the database and NATS)', async () => {
    const ready = await h.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ mongo: 'up', nats: 'up' });
    const res = await h.get('/api/audit');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHENTICATED');
  });
});
