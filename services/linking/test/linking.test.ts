import {
  type CaseRecord,
  CHECK_MATCHES_MISSING_FIELDS,
  LinkSchema,
  LinkSummarySchema,
  type RecordLinkView,
  RecordLinkViewSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { withDobLevels } from '@nrad/matching';
import { RECORD_EVENTS_BATCH } from '@nrad/service-kit';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MATCH_RATE_QUIET_MS } from '../src/domain/match-rate.ts';
import { caseRecord } from '../src/domain/test-record.ts';
import { ALREADY_LINKED, applyRecordEvents, forgetExpiredDisclosures } from '../src/use-cases/linking.ts';
import { type LinkingHarness, startLinking, userOf } from './harness.ts';

const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');
const cus = userOf('CUS', 'Cora Customs');
const admin = userOf('ADMIN', 'Ada Admin');

/** A record without its link flags (they change with links, not with the record's events). */
function core(record: CaseRecord) {
  const { linked: _linked, linkedOrganizations: _orgs, ...rest } = record;
  return rest;
}

/** Contributions add up to the confidence exactly (in hundredths). */
function expectExplained(link: { confidence: number; explanation: Array<{ field: string; contribution: number }> }) {
  const sum = link.explanation.reduce((s, e) => s + Math.round(e.contribution * 100), 0);
  expect(sum).toBe(Math.round(link.confidence * 100));
  expect(link.explanation.map((e) => e.field)).toEqual(['suspectName', 'suspectDob', 'incidentDate', 'caseAmount']);
}

async function linksOf(h: LinkingHarness, user = bps, id: string): Promise<RecordLinkView[]> {
  const api = await h.as(user);
  return (await api.get(`/api/records/${id}/links`).expect(200)).body;
}

/** Waits until a record has `n` links (auto-linking runs when the created event arrives). */
async function waitForLinks(h: LinkingHarness, id: string, n: number) {
  await waitUntil(`${n} links of ${id}`, async () => h.built.deps.links.forRecord(id).length >= n, 10_000);
}

describe('auto-linking on records.created', () => {
  let h: LinkingHarness;
  beforeAll(async () => {
    h = await startLinking();
  });

  it('links the same suspect across agencies despite a typo, swapped names and a DOB slip, and explains why', async () => {
    const police = await h.create(bps, { suspectName: 'John Smith', suspectDob: '1980-05-17' });
    const fiu = await h.create(fia, { suspectName: 'SMITH, Jon', suspectDob: '1980-05-18' });
    await waitForLinks(h, fiu.id, 1);

    const fromFia = await linksOf(h, fia, fiu.id);
    expect(fromFia).toHaveLength(1);
    const link = RecordLinkViewSchema.parse(fromFia[0]);
    expect(link).toMatchObject({ sourceRecordId: fiu.id, linkedRecordId: police.id, linkType: 'auto' });
    expect(link.sourceOrganization).toBe('FIA');
    expect(link.linkedOrganization).toBe('BPS');
    expect(core(link.linkedRecord)).toEqual(core(police));
    expect(link.linkedRecord).toMatchObject({ linked: true, linkedOrganizations: ['FIA'] });
    expect(link.confidence).toBeGreaterThanOrEqual(h.config.LINK_THRESHOLD);
    expect(link.confidence).toBeLessThanOrEqual(100);
    expect(link.matchCriteria).toEqual({ suspectName: true, suspectDob: true, incidentDate: true, caseAmount: true });
    expect(link.explanation.find((e) => e.field === 'suspectDob')?.status).toBe('partial');
    expectExplained(link);

    // The other side sees the same link, turned around, with the FIA record in full.
    const fromBps = await linksOf(h, bps, police.id);
    expect(fromBps).toHaveLength(1);
    expect(fromBps[0]).toMatchObject({
      id: link.id,
      sourceRecordId: police.id,
      linkedRecordId: fiu.id,
      sourceOrganization: 'BPS',
      linkedOrganization: 'FIA',
      confidence: link.confidence,
    });
    expect(core(fromBps[0]!.linkedRecord)).toEqual(core(fiu));
    expect(fromBps[0]?.linkedRecord).toMatchObject({ linked: true, linkedOrganizations: ['BPS'] });
    const api = await h.as(bps);
    expect((await api.get(`/api/records/${police.id}/linked`).expect(200)).body).toEqual([
      { organization: 'FIA', id: fiu.id, incidentNumber: fiu.incidentNumber, suspectName: 'SMITH, Jon' },
    ]);

    // One links.created, with the link id as Nats-Msg-Id.
    const events = (await h.linkEvents()).filter((e) => e.link.id === link.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.msgId).toBe(link.id);
    expect(events[0]?.actor).toBeNull();
    expect(LinkSchema.parse(events[0]?.link)).toEqual(LinkSchema.parse(link));
  });

  it('links accented and unaccented spellings and a day/month swap; each record of a third agency too', async () => {
    const a = await h.create(cus, { suspectName: 'José Álvarez-Núñez', suspectDob: '1975-03-08', caseAmount: '9000' });
    const b = await h.create(bps, { suspectName: 'jose alvarez nunez', suspectDob: '1975-08-03', caseAmount: '9000' });
    const c = await h.create(fia, { suspectName: 'Alvarez Nunez, Jose', suspectDob: '1975-03-08', caseAmount: '9100' });
    await waitForLinks(h, c.id, 2);
    for (const [user, record] of [
      [cus, a],
      [bps, b],
      [fia, c],
    ] as const) {
      const links = await linksOf(h, user, record.id);
      expect(links.map((l) => l.linkedRecord.organization).sort()).toEqual(
        ['BPS', 'CUS', 'FIA'].filter((o) => o !== record.organization),
      );
      for (const l of links) expectExplained(l);
    }
  });

  it('does not link look-alikes who are different people, placeholder names, or records of one agency', async () => {
    // One case: every record below shares its incident date and amount unless it says otherwise.
    const inCase = (user: UserIdentity, suspectName: string, suspectDob: string, more: Record<string, unknown> = {}) =>
      h.create(user, { suspectName, suspectDob, incidentDate: '2023-06-01', caseAmount: '48000', ...more });
    const anchor = await inCase(bps, 'Michael Brown', '1969-02-11');
    // Same common name, another person: different DOB, incident and amount.
    const other = await inCase(fia, 'Michael Brown', '1991-10-30', { incidentDate: '2020-01-15', caseAmount: '75' });
    // Placeholders only: the same DOB, date and amount but no name.
    const unknown = await inCase(cus, 'UNKNOWN', '1969-02-11');
    const punctuation = await inCase(fia, '-- ?? --', '1969-02-11');
    // The same person twice in one agency is not a cross-agency link.
    const sameAgency = await inCase(bps, 'Michael Brown', '1969-02-11');
    // Namesakes in the very same case (father and son; a look-alike name): their dates of birth
    // disagree, so the shared incident date and amount do not make them one person.
    const son = await inCase(cus, 'Michael Brown', '1994-07-23');
    const lookAlike = await inCase(fia, 'Michaela Browne', '1972-09-05');
    // Same date of birth and case, but the names share only a look-alike word (Brown / Brownlow).
    const sameDay = await inCase(cus, 'Desmond Brownlow', '1969-02-11');
    await h.caughtUp();
    for (const r of [anchor, other, unknown, punctuation, sameAgency, son, lookAlike, sameDay]) {
      const owner = { BPS: bps, FIA: fia, CUS: cus, ADMIN: admin }[r.organization];
      expect(await linksOf(h, owner, r.id)).toEqual([]);
    }
  });

  it('links once per pair: a redelivered or re-published created event and a restart add nothing', async () => {
    const a = await h.create(bps, { suspectName: 'Ingrid Bergqvist', suspectDob: '1988-12-01' });
    const b = await h.create(cus, { suspectName: 'Ingrid Bergkvist', suspectDob: '1988-12-01' });
    await waitForLinks(h, b.id, 1);
    const before = (await linksOf(h, bps, a.id)).map((l) => l.id);
    expect(before).toHaveLength(1);

    // The same created event again, as JetStream would redeliver it (new message id: a re-publish).
    const event = {
      id: crypto.randomUUID(),
      type: 'created' as const,
      time: new Date().toISOString(),
      actor: { userId: cus.userId, name: cus.name, organization: 'CUS' as const },
      record: b,
    };
    await h.bus.js.publish(`${h.t.subject('records')}.created`, JSON.stringify(event), { msgID: event.id });
    await h.bus.js.publish(`${h.t.subject('records')}.created`, JSON.stringify({ ...event, record: a }), {
      msgID: crypto.randomUUID(),
    });
    const { applyRecordEvents } = await import('../src/use-cases/linking.ts');
    await applyRecordEvents(h.built.deps, [event]);
    await h.restart();
    // Whatever was in the stream is consumed again by the restarted consumer or already acked.
    await h.caughtUp();
    expect((await linksOf(h, bps, a.id)).map((l) => l.id)).toEqual(before);
    expect((await linksOf(h, cus, b.id)).map((l) => l.id)).toEqual(before);
    expect((await h.linkEvents()).filter((e) => e.link.id === before[0])).toHaveLength(1);
    expect(
      await h.db.collection('links').countDocuments({ pairKey: { $in: [`${a.id}:${b.id}`, `${b.id}:${a.id}`] } }),
    ).toBe(1);
  });

  it('keeps the index current: an edit is matched by its new values, a deleted record leaves it, a restored one returns', async () => {
    const police = await h.create(bps, { suspectName: 'Temporary Name', suspectDob: '1990-01-20', caseAmount: '700' });
    const api = await h.as(bps);
    const check = async () => {
      const res = await (await h.as(fia))
        .post('/api/records/check-namlc-matches')
        .send({
          namlcOrganization: 'Bermuda Police Service',
          suspectName: 'Oluwaseun Adeyemi',
          suspectDob: '1990-01-20',
          incidentDate: '2024-03-02',
          caseAmount: '700',
        })
        .expect(200);
      return (res.body.matches as Array<{ id: string }>).map((m) => m.id);
    };
    expect(await check()).not.toContain(police.id);

    const edited = (
      await api
        .put(`/api/records/${police.id}`)
        .send({
          incidentNumber: police.incidentNumber,
          suspectName: 'Oluwaseun Adeyemi',
          suspectDob: '1990-01-20',
          incidentDate: '2024-03-02',
          caseAmount: '700',
          sourceOfRecord: police.sourceOfRecord,
          internationalNexus: false,
        })
        .expect(200)
    ).body as CaseRecord;
    await h.indexed(police.id, edited.version);
    expect(await check()).toContain(police.id);

    const deleted = (await api.delete(`/api/records/${police.id}`).expect(200)).body as CaseRecord;
    await h.indexed(police.id, deleted.version);
    expect(await check()).not.toContain(police.id);
    const stored = await h.db.collection('match_index').findOne({ _id: new Types.ObjectId(police.id) });
    expect(stored).toMatchObject({ deleted: true, organization: 'BPS', version: deleted.version });

    const restored = (await api.post(`/api/records/${police.id}/restore`).expect(200)).body as CaseRecord;
    await h.indexed(police.id, restored.version);
    expect(await check()).toContain(police.id);
    // An old event delivered late changes nothing (the stored version is newer).
    const { applyRecordEvents } = await import('../src/use-cases/linking.ts');
    await applyRecordEvents(h.built.deps, [
      {
        id: crypto.randomUUID(),
        type: 'deleted',
        time: new Date().toISOString(),
        actor: { userId: bps.userId, name: bps.name, organization: 'BPS' },
        record: deleted,
      },
    ]);
    expect(h.built.deps.index.get(police.id)?.deleted).toBe(false);
    expect(await check()).toContain(police.id);
  });

  it('stores the index with normalized names, dates, amount and blocking keys', async () => {
    const r = await h.create(cus, { suspectName: 'Zoë  O’Neill', suspectDob: '1984-07-04', caseAmount: '1234.56' });
    const doc = await h.db.collection('match_index').findOne({ _id: new Types.ObjectId(r.id) });
    expect(doc).toMatchObject({
      organization: 'CUS',
      version: 1,
      deleted: false,
      suspectDob: '1984-07-04',
      incidentDate: r.incidentDate,
      caseAmount: 1234.56,
    });
    expect(doc?.nameTokens).toEqual(expect.arrayContaining(['zoe']));
    const keys = (doc?.keys ?? []) as string[];
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.length).toBeLessThanOrEqual(30);
    expect(core(doc?.record)).toEqual(core(r));
  });
});

describe('re-estimating the weights behind a backlog (issue 36)', () => {
  it('waits while runs of events come full (more are waiting) unless the pairs across agencies grew fourfold, and re-estimates once a run is short and the events pause', async () => {
    const h = await startLinking({ autoLink: false });
    const refresh = vi.spyOn(h.built.deps.matchRate, 'refresh');
    let k = 0;
    const event = () => ({
      id: crypto.randomUUID(),
      type: 'created' as const,
      time: new Date().toISOString(),
      actor: { userId: bps.userId, name: bps.name, organization: 'BPS' as const },
      // The police and the FIA in turn: what an estimate learns from is pairs across agencies.
      record: caseRecord({
        organization: k % 2 === 0 ? 'BPS' : 'FIA',
        suspectName: `Backlog Person${k++}`,
        createdById: bps.userId,
      }),
    });
    const run = (length: number) => applyRecordEvents(h.built.deps, Array.from({ length }, event));
    const settled = async () => {
      for (const result of refresh.mock.results) await result.value;
    };
    // An empty index filled by a backlog: re-estimated at 1,000 records (500 × 500 pairs across
    // the two agencies: four times 50 × 50), then at 2,000 (1,000 × 1,000: four times 500 × 500).
    await run(RECORD_EVENTS_BATCH);
    expect(refresh).toHaveBeenCalledTimes(1);
    await settled();
    await run(RECORD_EVENTS_BATCH);
    expect(refresh).toHaveBeenCalledTimes(2);
    await settled();
    // 3,000 records, 1,500 × 1,500 pairs: not yet four times 1,000 × 1,000, a full run waits.
    await run(RECORD_EVENTS_BATCH);
    expect(refresh).toHaveBeenCalledTimes(2);
    // A short run: the re-estimate waits for the events to pause (MATCH_RATE_QUIET_MS)…
    const short = performance.now();
    await run(1);
    expect(refresh).toHaveBeenCalledTimes(2);
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(3), { timeout: MATCH_RATE_QUIET_MS + 5000 });
    expect(performance.now() - short).toBeGreaterThanOrEqual(MATCH_RATE_QUIET_MS - 50);
    await settled();
    expect(h.built.deps.index.size).toBe(3 * RECORD_EVENTS_BATCH + 1); // every event applied all the same
    // …and a run that arrives meanwhile puts it off again: two short runs, one re-estimate.
    await run(1);
    await new Promise((resolve) => setTimeout(resolve, MATCH_RATE_QUIET_MS / 2));
    await run(1);
    await new Promise((resolve) => setTimeout(resolve, MATCH_RATE_QUIET_MS * 0.75));
    expect(refresh).toHaveBeenCalledTimes(3);
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(4), { timeout: MATCH_RATE_QUIET_MS + 5000 });
  });
});

describe('linking again after the weights changed (issue 36)', () => {
  it('proposes what the new weights find among the records scored before, as the service, once, taking nothing away', async () => {
    const h = await startLinking();
    const { deps } = h.built;
    // The year of birth retyped: with the fixed weights (two parts agreeing, −4 bits) nothing to propose.
    const police = await h.create(bps, { suspectName: 'Quentin Marlowe', suspectDob: '1931-01-05' });
    const fiu = await h.create(fia, { suspectName: 'Quentin Marlowe', suspectDob: '1964-01-05' });
    const linked = await h.create(cus, { suspectName: 'Quentin Marlowe', suspectDob: '1931-01-05' });
    await waitForLinks(h, linked.id, 1);
    await waitUntil('the FIA record indexed', async () => deps.index.get(fiu.id) !== undefined, 10_000);
    expect(deps.possibleMatches.pair(police.id, fiu.id)).toBeUndefined();
    const links = deps.links.forRecord(linked.id).length;

    // An estimate that finds a retyped year telling here (adoptableDobLevels), as refreshMatchRate adopts it.
    deps.index.setWeights(withDobLevels(deps.index.weights, { twoParts: 3.25 }));
    deps.relinking.request(deps.index.size);
    await deps.relinking.settled();
    const proposed = deps.possibleMatches.pair(police.id, fiu.id);
    expect(proposed).toMatchObject({ uncertain: 'unconfirmedDob', decision: null });
    expect(deps.possibleMatches.pair(linked.id, fiu.id)).toMatchObject({ uncertain: 'unconfirmedDob' });
    // The link made before stands, and nothing else was linked.
    expect(deps.links.forRecord(linked.id)).toHaveLength(links);
    const events = await h.settledAudit();
    const created = events.find(
      (e) => e.action === 'possible-match.create' && e.detail?.possibleMatch === proposed?._id.toHexString(),
    );
    // Proposed by the service itself, no user: the pass, not a record event.
    expect(created).toMatchObject({ userId: null, organization: null, detail: { relinked: true } });

    // Another pass finds nothing new: every pair has its link or possible match already.
    const count = deps.possibleMatches.size;
    deps.relinking.request(deps.index.size);
    await deps.relinking.settled();
    expect(deps.possibleMatches.size).toBe(count);
  });
});

describe('POST /api/records/check-namlc-matches', () => {
  let h: LinkingHarness;
  let target: CaseRecord;
  const body = {
    namlcOrganization: 'Bermuda Police Service',
    suspectName: 'Smyth Jonathan',
    suspectDob: '1972-09-14',
    incidentDate: '2024-01-10',
    caseAmount: '2500',
  };
  beforeAll(async () => {
    h = await startLinking();
    target = await h.create(bps, {
      suspectName: 'Jonathan Smith',
      suspectDob: '1972-09-14',
      incidentDate: '2024-01-10',
      caseAmount: '2500',
    });
    await h.create(bps, {
      suspectName: 'Jonathan Smith',
      suspectDob: '1955-04-02',
      incidentDate: '2019-05-05',
      caseAmount: '5',
    });
    await h.create(fia, {
      suspectName: 'Jonathan Smith',
      suspectDob: '1972-09-14',
      incidentDate: '2024-01-10',
      caseAmount: '2500',
    });
  });

  it('answers the matching records of that organization, best first, with what the panel shows and why', async () => {
    const api = await h.as(fia);
    const res = await api.post('/api/records/check-namlc-matches').send(body).expect(200);
    const matches = res.body.matches as Array<Record<string, unknown> & { confidence: number; explanation: [] }>;
    expect(matches.length).toBeGreaterThanOrEqual(1);
    expect(matches[0]).toMatchObject({
      id: target.id,
      incidentNumber: target.incidentNumber,
      suspectName: 'Jonathan Smith',
      suspectDob: '1972-09-14',
      incidentDate: '2024-01-10',
      caseAmount: '2500.00',
      organization: 'BPS',
    });
    for (const m of matches) {
      expect(m.organization).toBe('BPS');
      expect(m.confidence).toBeGreaterThanOrEqual(h.config.LINK_THRESHOLD);
      expectExplained(m);
    }
    const confidences = matches.map((m) => m.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
  });

  it('discloses nothing on part of a name (issue 34): a surname, a given name, an initial, or a made-up word beside one', async () => {
    const api = await h.as(fia);
    const exact = { ...body, suspectName: 'Jonathan Smith', caseAmount: '2500' };
    const found = (await api.post('/api/records/check-namlc-matches').send(exact).expect(200)).body.matches;
    expect(found.map((m: { id: string }) => m.id)).toContain(target.id);
    for (const suspectName of ['Smith', 'Jonathan', 'J Smith', 'Jonathan Xyzzyq', 'Qwertz Smith']) {
      const res = await api
        .post('/api/records/check-namlc-matches')
        .send({ ...exact, suspectName })
        .expect(200);
      expect(res.body.matches, suspectName).toEqual([]);
    }
    // What a match shows is SPEC §2's fields and why, never the rest of the record.
    expect(Object.keys(found[0]).sort()).toEqual(
      [
        'caseAmount',
        'confidence',
        'explanation',
        'id',
        'incidentDate',
        'incidentNumber',
        'matchCriteria',
        'organization',
        'suspectDob',
        'suspectName',
      ].sort(),
    );
  });

  it('answers SPEC’s message when a field is missing or blank, and names a malformed field', async () => {
    const api = await h.as(fia);
    for (const field of Object.keys(body)) {
      for (const value of [undefined, '', '   ', null]) {
        const res = await api
          .post('/api/records/check-namlc-matches')
          .send({ ...body, [field]: value })
          .expect(400);
        expect(res.body.message).toBe(CHECK_MATCHES_MISSING_FIELDS);
      }
    }
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ namlcOrganization: 'Interpol' }, /namlcOrganization: NAMLC organization must be one of/],
      [{ suspectDob: '1972-02-30' }, /suspectDob: must be a real calendar date/],
      [{ incidentDate: 'yesterday' }, /incidentDate: must be a date/],
      [{ caseAmount: '-5' }, /caseAmount: must be a non-negative amount/],
      [{ suspectName: { $ne: null } }, /suspectName/],
      [{ caseAmount: { $gt: 0 } }, /caseAmount/],
    ];
    for (const [change, message] of bad) {
      const res = await api
        .post('/api/records/check-namlc-matches')
        .send({ ...body, ...change })
        .expect(400);
      expect(res.body.message).toMatch(message);
    }
    await api.post('/api/records/check-namlc-matches').send([body]).expect(400);
  });

  it('finds nothing for placeholder or punctuation names and absurd dates, never a 500', async () => {
    const api = await h.as(fia);
    for (const suspectName of ['UNKNOWN', 'N/A', '???', '-.-']) {
      const res = await api
        .post('/api/records/check-namlc-matches')
        .send({ ...body, suspectName })
        .expect(200);
      expect(res.body.matches).toEqual([]);
    }
    const res = await api
      .post('/api/records/check-namlc-matches')
      .send({ ...body, suspectDob: '1800-01-01', incidentDate: '9999-12-31' })
      .expect(200);
    expect(res.body.matches.every((m: { id: string }) => m.id !== undefined)).toBe(true);
  });
});

describe('POST /api/records/link and the link views', () => {
  let h: LinkingHarness;
  let police: CaseRecord;
  let fiu: CaseRecord;
  let customs: CaseRecord;
  let stranger: CaseRecord;
  beforeAll(async () => {
    h = await startLinking({ autoLink: false }); // every link here is made by hand
    police = await h.create(bps, { suspectName: 'Harriet Quinn', suspectDob: '1966-06-06' });
    fiu = await h.create(fia, { suspectName: 'Harriet Quin', suspectDob: '1966-06-06' });
    customs = await h.create(cus, { suspectName: 'Quinn, Harriet', suspectDob: '1966-06-06', caseAmount: '3' });
    stranger = await h.create(cus, { suspectName: 'Someone Else', suspectDob: '1999-09-09', caseAmount: '3' });
  });

  it('links the caller’s record to another agency’s with the scorer’s confidence; a second time is 409', async () => {
    const api = await h.as(fia);
    const res = await api
      .post('/api/records/link')
      .send({
        sourceRecordId: fiu.id,
        linkedRecordId: police.id,
        matchCriteria: { suspectName: true, suspectDob: true, incidentDate: false, caseAmount: false },
      })
      .expect(201);
    const link = RecordLinkViewSchema.parse(res.body);
    expect(link).toMatchObject({
      sourceRecordId: fiu.id,
      linkedRecordId: police.id,
      linkType: 'manual',
      createdById: fia.userId,
    });
    expect(core(link.linkedRecord)).toEqual(core(police));
    expect(link.confidence).toBeGreaterThan(90);
    expect(link.matchCriteria).toEqual({ suspectName: true, suspectDob: true, incidentDate: true, caseAmount: true });
    expectExplained(link);

    // Either side, either direction: the pair is linked.
    const again = await api
      .post('/api/records/link')
      .send({ sourceRecordId: fiu.id, linkedRecordId: police.id })
      .expect(409);
    expect(again.body).toEqual({ message: ALREADY_LINKED, code: 'ALREADY_LINKED' });
    const reverse = await (await h.as(bps))
      .post('/api/records/link')
      .send({ sourceRecordId: police.id, linkedRecordId: fiu.id })
      .expect(409);
    expect(reverse.body.message).toBe('Records are already linked');

    const events = (await h.linkEvents()).filter((e) => e.link.id === link.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.actor).toEqual({ userId: fia.userId, name: fia.name, organization: 'FIA' });

    // Customs' record of the same person links too; the client cannot set the confidence.
    const cusApi = await h.as(cus);
    await cusApi.post('/api/records/link').send({ sourceRecordId: customs.id, linkedRecordId: police.id }).expect(201);
    const forged = await cusApi
      .post('/api/records/link')
      .send({ sourceRecordId: customs.id, linkedRecordId: fiu.id, confidence: 100 })
      .expect(400);
    expect(forged.body.message).toMatch(/confidence/);
  });

  it('refuses a link against the evidence (issue 34): a pair agreeing on nothing is 404 like a missing id, and discloses nothing', async () => {
    const api = await h.as(cus);
    const refused = await api
      .post('/api/records/link')
      .send({ sourceRecordId: stranger.id, linkedRecordId: police.id })
      .expect(404);
    expect(refused.body).toEqual({ message: 'Linked record not found', code: 'NOT_FOUND' });
    expect(JSON.stringify(refused.body)).not.toContain('Harriet');
    expect(h.built.deps.links.forRecord(stranger.id)).toEqual([]);
    expect(await linksOf(h, cus, stranger.id)).toEqual([]);
  });

  it('answers every refusal of the other id the same 404: missing, own agency, deleted, too weak, a guessed neighbour', async () => {
    const api = await h.as(fia);
    const self = await api
      .post('/api/records/link')
      .send({ sourceRecordId: fiu.id, linkedRecordId: fiu.id })
      .expect(400);
    expect(self.body.message).toBe('A record cannot be linked to itself');
    // BPS's record as source, by FIA: 404 exactly like a missing one.
    const foreign = await api
      .post('/api/records/link')
      .send({ sourceRecordId: police.id, linkedRecordId: customs.id })
      .expect(404);
    const missingSource = await api
      .post('/api/records/link')
      .send({ sourceRecordId: '0123456789abcdef01234567', linkedRecordId: customs.id })
      .expect(404);
    expect(foreign.body).toEqual(missingSource.body);

    const second = await h.create(fia, { suspectName: 'Harriet Quinn', suspectDob: '1966-06-06' });
    const gone = await h.create(cus, { suspectName: 'Harriet Quinn', suspectDob: '1966-06-06' });
    const deleted = (await (await h.as(cus)).delete(`/api/records/${gone.id}`).expect(200)).body as CaseRecord;
    await h.indexed(gone.id, deleted.version);
    // The id after the caller's own newest record: what a counter-based id gives away.
    const neighbour = new Types.ObjectId(
      `${second.id.slice(0, 18)}${(Number.parseInt(second.id.slice(18), 16) + 1).toString(16).padStart(6, '0')}`,
    );
    const answers = [];
    for (const linkedRecordId of [
      '0123456789abcdef01234567', // nobody's
      fiu.id, // the caller's own agency
      gone.id, // deleted
      stranger.id, // another agency's, agreeing on nothing
      neighbour.toHexString(), // guessed
    ]) {
      const res = await api.post('/api/records/link').send({ sourceRecordId: second.id, linkedRecordId }).expect(404);
      answers.push(res.body);
    }
    for (const answer of answers) expect(answer).toEqual({ message: 'Linked record not found', code: 'NOT_FOUND' });

    for (const payload of [
      { sourceRecordId: 'nope', linkedRecordId: police.id },
      { sourceRecordId: fiu.id },
      { sourceRecordId: { $ne: null }, linkedRecordId: police.id },
      { sourceRecordId: second.id, linkedRecordId: police.id, matchCriteria: { suspectName: 'yes' } },
      { sourceRecordId: second.id, linkedRecordId: police.id, matchCriteria: { $where: true } },
    ]) {
      await api.post('/api/records/link').send(payload).expect(400);
    }
    expect(h.built.deps.links.forRecord(second.id)).toEqual([]);

    // Every refusal is in the trail with what was tried and why (the caller saw only 404).
    const refused = (await h.settledAudit()).filter((e) => e.action === 'link.refused' && e.userId === fia.userId);
    expect(refused.map((e) => e.detail?.reason)).toEqual(
      expect.arrayContaining(['unknown', 'same organization', 'deleted', 'too weak']),
    );
    for (const e of refused) expect(e).toMatchObject({ userId: fia.userId, organization: 'FIA' });
  });

  it('links a weak pair only for the user whose own NAMLC check disclosed the other record', async () => {
    // FIA's record holds too little to match BPS's on its own.
    const target = await h.create(bps, {
      suspectName: 'Peregrine Oduya',
      suspectDob: '1977-03-04',
      incidentDate: '2024-03-03',
      caseAmount: '800',
    });
    // (With the same date of birth it would be a partial name in the review band: issue 36.)
    const weak = await h.create(fia, { suspectName: 'P Oduya' });
    const fiaApi = await h.as(fia);
    await fiaApi.post('/api/records/link').send({ sourceRecordId: weak.id, linkedRecordId: target.id }).expect(404);
    // Another FIA user's check does not count for this one.
    const colleague = userOf('FIA', 'Fiona Colleague');
    const check = {
      namlcOrganization: 'Bermuda Police Service',
      suspectName: 'Peregrine Oduya',
      suspectDob: '1977-03-04',
      incidentDate: '2024-03-03',
      caseAmount: '800',
    };
    const seen = await (await h.as(colleague)).post('/api/records/check-namlc-matches').send(check).expect(200);
    expect(seen.body.matches.map((m: { id: string }) => m.id)).toEqual([target.id]);
    await fiaApi.post('/api/records/link').send({ sourceRecordId: weak.id, linkedRecordId: target.id }).expect(404);
    // The user's own check: the link is made (with the stored pair's own, low, confidence).
    await fiaApi.post('/api/records/check-namlc-matches').send(check).expect(200);
    const made = await fiaApi
      .post('/api/records/link')
      .send({ sourceRecordId: weak.id, linkedRecordId: target.id })
      .expect(201);
    expect(made.body.confidence).toBeLessThan(h.config.DISCLOSURE_THRESHOLD);
    // The disclosure is kept in the store: a restart keeps it.
    const kept = { userId: fia.userId, recordId: target.id };
    expect(await h.db.collection('disclosures').countDocuments(kept)).toBe(1);
    // Past its time it is forgotten, in memory and in the store.
    const later = new Date(Date.now() + h.built.deps.disclosureTtlMs + 1000);
    expect(h.built.deps.disclosures.has(fia.userId, target.id, later.getTime())).toBe(false);
    await forgetExpiredDisclosures(h.built.deps, later);
    expect(await h.db.collection('disclosures').countDocuments(kept)).toBe(0);
    expect(h.built.deps.disclosures.has(fia.userId, target.id, Date.now())).toBe(false);
  });

  it('shows links only to the record’s owner and ADMIN; another agency’s id is 404 like a missing one', async () => {
    const fiaApi = await h.as(fia);
    const foreign = await fiaApi.get(`/api/records/${police.id}/links`).expect(404);
    const missing = await fiaApi.get('/api/records/0123456789abcdef01234567/links').expect(404);
    expect(foreign.body).toEqual(missing.body);
    await fiaApi.get(`/api/records/${police.id}/linked`).expect(404);
    await fiaApi.get('/api/records/not-an-id/links').expect(400);
    await fiaApi.get('/api/records/not-an-id/linked').expect(400);

    const adminApi = await h.as(admin);
    const links = (await adminApi.get(`/api/records/${police.id}/links`).expect(200)).body as RecordLinkView[];
    expect(links.map((l) => l.linkedRecord.id).sort()).toEqual([fiu.id, customs.id].sort());
    const linked = (await adminApi.get(`/api/records/${police.id}/linked`).expect(200)).body;
    expect(linked).toHaveLength(2);
  });

  it('hides a link while the other record is deleted and shows it again after a restore', async () => {
    const cusApi = await h.as(cus);
    const deleted = (await cusApi.delete(`/api/records/${customs.id}`).expect(200)).body as CaseRecord;
    await h.indexed(customs.id, deleted.version);
    expect((await linksOf(h, bps, police.id)).map((l) => l.linkedRecord.id)).toEqual([fiu.id]);
    await cusApi.get(`/api/records/${customs.id}/links`).expect(404);
    const restored = (await cusApi.post(`/api/records/${customs.id}/restore`).expect(200)).body as CaseRecord;
    await h.indexed(customs.id, restored.version);
    expect((await linksOf(h, bps, police.id)).map((l) => l.linkedRecord.id).sort()).toEqual(
      [fiu.id, customs.id].sort(),
    );
  });

  it('links a record saved a moment ago whose event has not reached the index yet', async () => {
    const api = await h.as(cus);
    // Saved through the records service; the link request follows at once, before indexing.
    const created = (
      await api
        .post('/api/records')
        .send({
          incidentNumber: `NOW-${Date.now()}`,
          suspectName: 'Harriet Quinn',
          suspectDob: '1966-06-06',
          incidentDate: '2024-03-02',
          caseAmount: '1500',
          sourceOfRecord: 'Police Investigation',
          internationalNexus: false,
        })
        .expect(201)
    ).body as CaseRecord;
    const res = await api
      .post('/api/records/link')
      .send({ sourceRecordId: created.id, linkedRecordId: police.id })
      .expect(201);
    expect(res.body.sourceRecordId).toBe(created.id);
  });
});

describe('DELETE /api/records/{id}/links/{linkedId}: rejecting a link (issue 34)', () => {
  it('two rejections at once: one is made, the other refused, and the link stays rejected', async () => {
    const h = await startLinking();
    const police = await h.create(bps, { suspectName: 'Philippa Entwistle', suspectDob: '1979-11-11' });
    const fiu = await h.create(fia, { suspectName: 'Entwistle, Philippa', suspectDob: '1979-11-11' });
    await waitForLinks(h, fiu.id, 1);
    const [a, b] = await Promise.all([
      (await h.as(bps)).delete(`/api/records/${police.id}/links/${fiu.id}`).send({ reason: 'one' }),
      (await h.as(fia)).delete(`/api/records/${fiu.id}/links/${police.id}`).send({ reason: 'two' }),
    ]);
    expect([a.status, b.status].filter((s) => s === 204)).toHaveLength(1);
    expect([a.status, b.status].every((s) => s === 204 || s === 404 || s === 409)).toBe(true);
    expect(h.built.deps.links.pair(police.id, fiu.id)?.rejection).toBeDefined();
    expect(await linksOf(h, bps, police.id)).toEqual([]);
    const stored = await h.db.collection('links').findOne({ sourceRecordId: { $in: [police.id, fiu.id] } });
    expect(stored?.rejection?.reason).toMatch(/^(one|two)$/);
    expect(stored?.changeSeq).toBe(1);
  });

  it('stops the other side’s view at once, clears the Linked flags, never links the pair again, and ADMIN restores it', async () => {
    const h = await startLinking();
    const police = await h.create(bps, { suspectName: 'Bartholomew Fairweather', suspectDob: '1970-10-10' });
    const fiu = await h.create(fia, { suspectName: 'Fairweather, Bartholomew', suspectDob: '1970-10-10' });
    await waitForLinks(h, fiu.id, 1);
    const bpsApi = await h.as(bps);
    const fiaApi = await h.as(fia);
    const records = async (user: UserIdentity, id: string) =>
      (await (await h.as(user)).get(`/api/records/${id}`).expect(200)).body as CaseRecord;
    await waitUntil('the Linked flags', async () => (await records(bps, police.id)).linked, 10_000);

    // Neither another agency nor a stranger to the pair may reject it: the same 404 as no link.
    const cusApi = await h.as(cus);
    const notFound = { message: 'Link not found', code: 'NOT_FOUND' };
    expect((await cusApi.delete(`/api/records/${police.id}/links/${fiu.id}`).expect(404)).body).toEqual(notFound);
    expect((await bpsApi.delete(`/api/records/${police.id}/links/0123456789abcdef01234567`).expect(404)).body).toEqual(
      notFound,
    );
    await bpsApi
      .delete(`/api/records/${police.id}/links/${fiu.id}`)
      .send({ reason: 'x'.repeat(501) })
      .expect(400);

    // FIA rejects it, from its side, with a reason.
    await fiaApi.delete(`/api/records/${fiu.id}/links/${police.id}`).send({ reason: 'Different person' }).expect(204);
    expect(await linksOf(h, bps, police.id)).toEqual([]);
    expect(await linksOf(h, fia, fiu.id)).toEqual([]);
    expect((await bpsApi.get(`/api/records/${police.id}/linked`).expect(200)).body).toEqual([]);
    expect((await (await h.as(admin)).get('/api/links/summary').expect(200)).body.total).toBe(0);
    await waitUntil('the Linked flags cleared', async () => !(await records(bps, police.id)).linked, 10_000);
    expect(await records(fia, fiu.id)).toMatchObject({ linked: false, linkedOrganizations: [] });
    // Rejecting again is no link to reject.
    await fiaApi.delete(`/api/records/${fiu.id}/links/${police.id}`).expect(404);

    // ADMIN sees it, rejected, with who, when and why.
    const adminApi = await h.as(admin);
    const seen = (await adminApi.get(`/api/records/${police.id}/links`).expect(200)).body as RecordLinkView[];
    expect(seen).toHaveLength(1);
    expect(seen[0]?.rejection).toMatchObject({ byOrganization: 'FIA', byId: fia.userId, reason: 'Different person' });

    // Never linked again: not by the created event again (redelivered), not by hand (the same 404
    // as any refusal), not after a restart.
    const again = {
      id: crypto.randomUUID(),
      type: 'created' as const,
      time: new Date().toISOString(),
      actor: { userId: fia.userId, name: fia.name, organization: 'FIA' as const },
      record: fiu,
    };
    await applyRecordEvents(h.built.deps, [again]);
    const twin = await h.create(cus, { suspectName: 'Bartholomew Fairweather', suspectDob: '1970-10-10' });
    await waitForLinks(h, twin.id, 2);
    expect(h.built.deps.links.pair(police.id, fiu.id)?.rejection).toBeDefined();
    await bpsApi.post('/api/records/link').send({ sourceRecordId: police.id, linkedRecordId: fiu.id }).expect(404);
    await h.restart();
    expect(h.built.deps.links.pair(police.id, fiu.id)?.rejection).toBeDefined();
    expect(await linksOf(h, bps, police.id)).toHaveLength(1); // Customs' record only

    // Restoring is ADMIN's.
    await bpsApi.post(`/api/records/${police.id}/links/${fiu.id}/restore`).expect(403);
    const restored = await adminApi.post(`/api/records/${police.id}/links/${fiu.id}/restore`).expect(200);
    expect(restored.body).toMatchObject({ sourceRecordId: police.id, linkedRecordId: fiu.id });
    expect(restored.body.rejection).toBeUndefined();
    expect((await linksOf(h, fia, fiu.id)).map((l) => l.linkedRecord.id).sort()).toEqual([police.id, twin.id].sort());
    await waitUntil('the Linked flag back', async () => (await records(fia, fiu.id)).linked, 10_000);

    // The events and the trail: rejected then restored, each once, each with its actor.
    const events = (await h.linkEvents()).filter((e) => e.link.id === seen[0]?.id);
    expect(events.map((e) => e.type)).toEqual(['created', 'rejected', 'restored']);
    expect(events[1]?.organizations).toEqual({ [police.id]: [], [fiu.id]: [] });
    const trail = (await h.settledAudit()).filter((e) => e.action === 'link.reject' || e.action === 'link.restore');
    expect(trail.map((e) => `${e.action} ${e.organization} ${e.detail?.reason ?? ''}`)).toEqual([
      'link.reject FIA Different person',
      'link.restore ADMIN ',
    ]);
  });
});

describe('GET /api/links/summary', () => {
  it('counts the links between records not deleted by agency pair: an agency its own pairs, ADMIN every pair', async () => {
    const h = await startLinking();
    const summaryOf = async (user: UserIdentity) =>
      LinkSummarySchema.parse((await (await h.as(user)).get('/api/links/summary').expect(200)).body);
    expect(await summaryOf(admin)).toEqual({ total: 0, pairs: [] });

    const police = await h.create(bps, { suspectName: 'Oswin Pettigrew', suspectDob: '1971-02-03' });
    const fiu = await h.create(fia, { suspectName: 'PETTIGREW, Oswin', suspectDob: '1971-02-03' });
    await waitForLinks(h, fiu.id, 1);
    // Customs' record holds an initial only: not linked by itself; linked by hand after a check.
    const customs = await h.create(cus, { suspectName: 'O Pettigrew', suspectDob: '1971-02-03', caseAmount: '1' });
    const cusApi = await h.as(cus);
    await cusApi
      .post('/api/records/check-namlc-matches')
      .send({
        namlcOrganization: 'Financial Intelligence Agency',
        suspectName: 'Oswin Pettigrew',
        suspectDob: '1971-02-03',
        incidentDate: fiu.incidentDate,
        caseAmount: fiu.caseAmount,
      })
      .expect(200);
    await cusApi.post('/api/records/link').send({ sourceRecordId: customs.id, linkedRecordId: fiu.id }).expect(201);
    expect(h.built.deps.links.forRecord(customs.id)).toHaveLength(1);

    const bpsFia = { agencies: ['BPS', 'FIA'], count: 1, auto: 1, manual: 0 };
    const cusFia = { agencies: ['CUS', 'FIA'], count: 1, auto: 0, manual: 1 };
    expect(await summaryOf(admin)).toEqual({ total: 2, pairs: [bpsFia, cusFia] });
    expect(await summaryOf(fia)).toEqual({ total: 2, pairs: [bpsFia, cusFia] });
    expect(await summaryOf(bps)).toEqual({ total: 1, pairs: [bpsFia] });
    expect(await summaryOf(cus)).toEqual({ total: 1, pairs: [cusFia] });

    // A deleted record's links are not counted (as the link views hide them).
    await (await h.as(bps)).delete(`/api/records/${police.id}`).expect(200);
    await waitUntil('the delete applied', async () => h.built.deps.index.get(police.id)?.deleted === true, 10_000);
    expect(await summaryOf(admin)).toEqual({ total: 1, pairs: [cusFia] });
    expect(await summaryOf(bps)).toEqual({ total: 0, pairs: [] });
  });
});
