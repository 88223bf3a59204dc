import {
  IDENTITY_HEADER,
  type RecordImportOutcome,
  RecordInputSchema,
  TOTAL_COUNT_HEADER,
  type UserIdentity,
} from '@nrad/contracts';
import { signIdentity, signOnBehalf } from '@nrad/service-kit';
import { testGrant, testOnBehalfToken, testSigner, testToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { ImportEventsDoc } from '../src/data/import-events.ts';
import { newRecordDoc, presentRecord } from '../src/data/records.ts';
import { importedRecordId, legacyImportedRecordId } from '../src/use-cases/import.ts';
import { outboxEntry } from '../src/use-cases/records.ts';
import { readStream, recordBody, startRecords, userOf } from './harness.ts';

const h = await startRecords();
const bps = userOf('BPS', 'Betty Police');
const ingest = { kind: 'service' as const, service: 'ingest' };

/**
 * POSTs an import and expects `status`: as the ingest worker sends it (`ingest`: signed by the
 * ingest service on the uploader's behalf, with the gateway's grant for `grantFor`), or with
 * `identity`'s own token, or with a token given.
 */
async function importAs(identity: object | string, payload: unknown, status: number, grantFor: UserIdentity = bps) {
  const token =
    typeof identity === 'string'
      ? identity
      : identity === ingest
        ? await testOnBehalfToken(grantFor, 'ingest')
        : await testToken(identity as never);
  return request(h.server)
    .post('/internal/records/import')
    .set(IDENTITY_HEADER, token)
    .send(payload as object)
    .expect(status);
}

const outcomesOf = (res: { body: { results: RecordImportOutcome[] } }) =>
  res.body.results.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.field) ?? []]);

describe('internal import (the ingest worker creates a batch upload’s rows through it)', () => {
  it('creates valid rows as a single create would, reports invalid and taken ones, and is idempotent by key', async () => {
    const upload = `u-${Date.now()}`;
    const good = recordBody({ country: 'france', internationalNexus: true });
    const clash = recordBody();
    const api = await h.as(bps);
    await api.post('/api/records').send(clash).expect(201);
    const items = [
      { key: `${upload}:2`, body: good },
      { key: `${upload}:3`, body: recordBody({ suspectDob: '2030-01-01', sourceOfRecord: 'Nowhere' }) },
      { key: `${upload}:4`, body: { ...recordBody(), incidentNumber: clash.incidentNumber.toLowerCase() } },
      { key: `${upload}:5`, body: recordBody({ incidentNumber: good.incidentNumber }) },
    ];
    const first = await importAs(ingest, { owner: bps, items }, 200);
    expect(outcomesOf(first)).toEqual([
      [`${upload}:2`, 'created', []],
      [`${upload}:3`, 'invalid', ['suspectDob', 'suspectDob', 'sourceOfRecord']],
      [`${upload}:4`, 'taken', ['incidentNumber']],
      [`${upload}:5`, 'taken', ['incidentNumber']],
    ]);
    const id = first.body.results[0].id as string;
    expect(id).toBe(importedRecordId(`${upload}:2`).toHexString());
    const created = (await api.get(`/api/records/${id}`).expect(200)).body;
    expect(created).toMatchObject({ organization: 'BPS', createdById: bps.userId, country: 'France', version: 1 });

    // The same request again (a retried job, a replay) creates nothing new.
    const before = Number(
      (await api.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()],
    );
    const again = await importAs(ingest, { owner: bps, items }, 200);
    expect(outcomesOf(again)[0]).toEqual([`${upload}:2`, 'existed', []]);
    expect(again.body.results[0].id).toBe(id);
    const after = Number((await api.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()]);
    expect(after).toBe(before);

    // Each created record's records.created event goes out through the outbox.
    const events = await h.settledEvents();
    expect(events.filter((e) => e.type === 'created' && e.record.id === id)).toHaveLength(1);
  });

  it('names an upload’s records in the order of their rows, and finds a row a job created under its legacy id', async () => {
    const hex = (key: string) => importedRecordId(key).toHexString();
    const rows = [2, 3, 10, 255, 256, 65_536, 100_001, 0xffffff].map((row) => hex(`up-a:${row}`));
    expect([...rows].sort()).toEqual(rows);
    expect(new Set(rows).size).toBe(rows.length);
    expect(rows.every((id) => id.slice(0, 18) === rows[0]?.slice(0, 18))).toBe(true);
    expect(hex('up-b:2').slice(0, 18)).not.toBe(rows[0]?.slice(0, 18));
    // Keys not of the form `<upload>:<row>` keep the hash of the whole key.
    for (const key of ['no-row', 'up-a:02', 'up-a:16777216', 'up-a:-1', ':5', 'up-a:1e3']) {
      expect(hex(key)).toBe(legacyImportedRecordId(key).toHexString());
    }

    // A job begun before ids followed the rows created row 2 under the legacy id, then resumed.
    const upload = `u-legacy-${Date.now()}`;
    const body = recordBody();
    const { records } = h.built.deps;
    const legacyId = legacyImportedRecordId(`${upload}:2`);
    const doc = newRecordDoc(
      RecordInputSchema.parse(body),
      { organization: 'BPS', createdById: bps.userId },
      new Date(),
      legacyId,
    );
    expect(await records.insertMany([doc])).toEqual([]);
    const res = await importAs(ingest, { owner: bps, items: [{ key: `${upload}:2`, body }] }, 200);
    expect(outcomesOf(res)).toEqual([[`${upload}:2`, 'existed', []]]);
    expect(res.body.results[0].id).toBe(legacyId.toHexString());
    expect(await records.existingIds([importedRecordId(`${upload}:2`)])).toEqual([]);
  });

  it('checks source and country against the option lists', async () => {
    const res = await importAs(
      ingest,
      {
        owner: bps,
        items: [
          {
            key: `o-${Date.now()}:2`,
            body: recordBody({ sourceOfRecord: 'Rumour', internationalNexus: true, country: 'Atlantis' }),
          },
        ],
      },
      200,
    );
    expect(res.body.results[0].errors).toEqual([
      { field: 'sourceOfRecord', message: 'must be one of the Source of Record options' },
      { field: 'country', message: 'must be one of the country options' },
    ]);
  });

  it('lists every problem of a row at once, and only checks the rows of `check` (issue 37)', async () => {
    const upload = `chk-${Date.now()}`;
    const fields = (errors?: Array<{ field: string }>) => errors?.map((e) => e.field);
    // A row the ingest worker refused (its Yes/No cell could not be read, so the field is missing).
    const { internationalNexus: _unread, ...withoutNexus } = recordBody({ sourceOfRecord: 'Rumour' });
    const res = await importAs(
      ingest,
      {
        owner: bps,
        // A bad amount, a date of birth in the future and a source not in the list: all at once.
        items: [
          {
            key: `${upload}:2`,
            body: recordBody({ caseAmount: 'lots', suspectDob: '2999-01-01', sourceOfRecord: 'Rumour' }),
          },
        ],
        check: [
          { key: `${upload}:3`, body: withoutNexus },
          { key: `${upload}:4`, body: recordBody() },
        ],
      },
      200,
    );
    expect(res.body.results.map((r: RecordImportOutcome) => [r.outcome, fields(r.errors)])).toEqual([
      ['invalid', ['caseAmount', 'suspectDob', 'suspectDob', 'sourceOfRecord']],
    ]);
    expect(res.body.checked).toEqual([
      {
        key: `${upload}:3`,
        errors: [
          { field: 'internationalNexus', message: 'International nexus must be true or false' },
          { field: 'sourceOfRecord', message: 'must be one of the Source of Record options' },
        ],
      },
      { key: `${upload}:4`, errors: [] },
    ]);
    // Rows to check alone make a request; none of these rows is created.
    const alone = await importAs(ingest, { owner: bps, items: [], check: [{ key: `${upload}:5`, body: {} }] }, 200);
    expect(alone.body.results).toEqual([]);
    expect(fields(alone.body.checked[0].errors)).toContain('incidentNumber');
    const ids = [2, 3, 4, 5].map((row) => importedRecordId(`${upload}:${row}`));
    expect(await h.built.deps.records.existingIds(ids)).toEqual([]);
  });

  it('answers only the ingest service on the uploader’s behalf with the gateway’s grant, and refuses a malformed request', async () => {
    const items = [{ key: 'x:2', body: recordBody() }];
    const fia = userOf('FIA', 'Fiona Intel');
    await importAs(bps, { owner: bps, items }, 401);
    // The ingest service as itself (no grant): it cannot name an owner on its own word (issue 37).
    await importAs(await testToken(ingest), { owner: bps, items }, 401);
    // A grant for one user, a body naming another: refused, nothing created.
    const refused = await importAs(ingest, { owner: fia, items }, 403, bps);
    expect(refused.body).toEqual({ code: 'FORBIDDEN', message: 'The import names another owner than the upload’s.' });
    // A grant addressed to another service, and a "grant" the ingest service signed itself.
    await importAs(
      await signOnBehalf(await testGrant(bps, 'report'), testSigner('ingest')),
      { owner: bps, items },
      401,
    );
    // The ingest service's key signs no user's identity, and its own token is no proof of a user.
    await expect(signIdentity(bps, testSigner('ingest'))).rejects.toThrow('ingest may sign only its own identity');
    await importAs(await signOnBehalf(await testToken(ingest), testSigner('ingest')), { owner: bps, items }, 401);
    // Another service with a grant of its own for the user.
    await importAs(await testOnBehalfToken(bps, 'report'), { owner: bps, items }, 401);
    await importAs(ingest, { owner: bps, items: [] }, 400);
    await importAs(ingest, { owner: { ...bps, kind: 'anonymous' }, items }, 400);
  });

  it('keeps an import outbox document whole: deflated binary, and the JSON text an earlier version stored', async () => {
    const { imports, subjectPrefix } = h.built.deps;
    const events = [recordBody(), recordBody({ additionalInfo: 'quotes " and \\ and ünïcödé' })].map((body) => {
      const doc = newRecordDoc(RecordInputSchema.parse(body), { organization: 'BPS', createdById: bps.userId });
      return { recordId: doc._id, entry: outboxEntry(subjectPrefix, 'created', bps, presentRecord(doc)) };
    });
    const written: ImportEventsDoc = {
      _id: new Types.ObjectId('000000000000000000000001'),
      events,
      createdAt: new Date(1),
    };
    await imports.add(written);
    const raw = h.built.deps.records.model.db.collection('import_events');
    const stored = await raw.findOne({ _id: written._id });
    expect(stored?.events?._bsontype).toBe('Binary');
    // An earlier version's document: the events as JSON text.
    const earlier = { _id: new Types.ObjectId('000000000000000000000002'), createdAt: new Date(2) };
    await raw.insertOne({
      ...earlier,
      events: JSON.stringify(events.map((e) => ({ recordId: e.recordId.toHexString(), entry: e.entry }))),
    });
    const [first, second] = await imports.oldest(2);
    expect(first).toEqual(written);
    expect(second).toEqual({ ...earlier, events });
    await imports.remove(written._id);
    await imports.remove(earlier._id);
  });

  it('publishes what an import left in its outbox (a crash before relaying): events of records that exist, once all exist or the request is old', async () => {
    const { records, imports, subjectPrefix } = h.built.deps;
    const docOf = () =>
      newRecordDoc(RecordInputSchema.parse(recordBody()), { organization: 'BPS', createdById: bps.userId });
    /** An import outbox document for `docs`, written `ageMs` ago; only `stored` of them inserted. */
    const leftover = async (ageMs: number, docs: ReturnType<typeof docOf>[], stored: typeof docs) => {
      const batch: ImportEventsDoc = {
        _id: new Types.ObjectId(),
        events: docs.map((doc) => ({
          recordId: doc._id,
          entry: outboxEntry(subjectPrefix, 'created', bps, presentRecord(doc)),
        })),
        createdAt: new Date(Date.now() - ageMs),
      };
      await imports.add(batch);
      expect(await records.insertMany(stored)).toEqual([]);
      return batch;
    };
    const [a, b, c, d, e] = [docOf(), docOf(), docOf(), docOf(), docOf()] as const;
    const complete = await leftover(0, [a, b], [a, b]);
    const importing = await leftover(0, [c, d], [c]); // d not inserted yet: another import is under way
    const old = await leftover(3_600_000, [e, d], [e]); // d never came: its row was refused

    await h.built.relay.sweep();
    const left = (await imports.oldest(10)).map((doc) => doc._id.toHexString());
    expect(left).toContain(importing._id.toHexString());
    expect(left).not.toContain(complete._id.toHexString());
    expect(left).not.toContain(old._id.toHexString());
    const published = (await readStream(h.bus, h.stream))
      .filter((ev) => ev.type === 'created')
      .map((ev) => ev.record.id);
    for (const doc of [a, b, e]) expect(published).toContain(doc._id.toHexString());
    for (const doc of [c, d]) expect(published).not.toContain(doc._id.toHexString());

    // Once its last record is there, the sweep publishes the waiting request too.
    expect(await records.insertMany([d])).toEqual([]);
    await h.built.relay.sweep();
    expect((await imports.oldest(10)).map((doc) => doc._id.toHexString())).not.toContain(importing._id.toHexString());
    const now = (await h.settledEvents()).filter((ev) => ev.type === 'created').map((ev) => ev.record.id);
    for (const doc of [c, d]) expect(now.filter((id) => id === doc._id.toHexString())).toHaveLength(1);
  });

  it('a request cut short and its retry: each record’s created event and record.create audit entry once, the leftover published', async () => {
    const { records, imports, subjectPrefix } = h.built.deps;
    const upload = `cut-${Date.now()}`;
    const items = [2, 3, 4].map((row) => ({ key: `${upload}:${row}`, body: recordBody() }));
    const ids = items.map((item) => importedRecordId(item.key).toHexString());
    // The first request stored its document (all three records' events) and inserted the first
    // record before it died.
    const cutId = new Types.ObjectId();
    const docs = items.map((item) =>
      newRecordDoc(
        RecordInputSchema.parse(item.body),
        { organization: 'BPS', createdById: bps.userId },
        new Date(),
        importedRecordId(item.key),
      ),
    );
    const actor = { userId: bps.userId, organization: 'BPS' as const, requestId: 'cut-1', clientAddress: '10.0.0.1' };
    await imports.add({
      _id: cutId,
      events: docs.map((doc) => ({
        recordId: doc._id,
        entry: outboxEntry(subjectPrefix, 'created', bps, presentRecord(doc)),
      })),
      createdAt: new Date(),
      audit: actor,
    });
    expect(await records.insertMany([{ ...(docs[0] as (typeof docs)[0]), importId: cutId }])).toEqual([]);
    // Not all of its records exist yet: a sweep leaves the document for the retry.
    await h.built.relay.sweep();
    expect((await imports.oldest(50)).map((doc) => doc._id.toHexString())).toContain(cutId.toHexString());

    // The retry finds the first record and creates the other two under a document of its own.
    const retry = await importAs(ingest, { owner: bps, items }, 200);
    expect(outcomesOf(retry).map(([, outcome]) => outcome)).toEqual(['existed', 'created', 'created']);
    const owners = await records.importOwners(ids.map((id) => new Types.ObjectId(id)));
    expect(owners.get(ids[0] as string)).toBe(cutId.toHexString());
    expect(owners.get(ids[1] as string)).not.toBe(cutId.toHexString());
    expect(owners.get(ids[1] as string)).toBe(owners.get(ids[2] as string));

    // Now every record of the cut request exists: the sweep publishes its own one and removes it.
    await h.built.relay.sweep();
    expect((await imports.oldest(50)).map((doc) => doc._id.toHexString())).not.toContain(cutId.toHexString());
    const created = (await h.settledEvents()).filter((ev) => ev.type === 'created').map((ev) => ev.record.id);
    for (const id of ids) expect(created.filter((c) => c === id)).toHaveLength(1);
    const named = (await h.settledAudit()).filter((ev) => ev.action === 'record.create').flatMap((ev) => ev.recordIds);
    for (const id of ids) expect(named.filter((n) => n === id)).toHaveLength(1);
  });

  it('publishes a request’s leftover on the import sweep’s own timer, without waiting for the full sweep', async () => {
    const quick = await startRecords({ sweepMs: 3_600_000, importSweepMs: 200 });
    const { records, imports, subjectPrefix } = quick.built.deps;
    const doc = newRecordDoc(RecordInputSchema.parse(recordBody()), { organization: 'BPS', createdById: bps.userId });
    const leftId = new Types.ObjectId();
    await imports.add({
      _id: leftId,
      events: [{ recordId: doc._id, entry: outboxEntry(subjectPrefix, 'created', bps, presentRecord(doc)) }],
      createdAt: new Date(),
      audit: { userId: bps.userId, organization: 'BPS', requestId: 'left-1', clientAddress: null },
    });
    expect(await records.insertMany([{ ...doc, importId: leftId }])).toEqual([]);
    const created = (await quick.settledEvents()).filter((ev) => ev.type === 'created').map((ev) => ev.record.id);
    expect(created).toEqual([doc._id.toHexString()]);
    const named = (await quick.settledAudit()).filter((ev) => ev.action === 'record.create');
    expect(named.map((ev) => [ev.id, ev.recordIds])).toEqual([
      [`import-${leftId.toHexString()}`, [doc._id.toHexString()]],
    ]);
    await quick.stop();
  });
});
