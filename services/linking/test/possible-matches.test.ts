import {
  type CaseRecord,
  LabelFiguresSchema,
  LinkSchema,
  POSSIBLE_MATCH_NOT_FOUND,
  type PossibleMatchPage,
  PossibleMatchPageSchema,
} from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { REVIEW_CLASS_PRIOR } from '@nrad/matching';
import { TEST_PUBLIC_KEYS } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLinkingConfig, reviewThresholdOf } from '../src/config.ts';
import { type LinkingHarness, startLinking, userOf } from './harness.ts';

const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');
const cus = userOf('CUS', 'Cora Customs');
const admin = userOf('ADMIN', 'Ada Admin');

/**
 * The band under test: pairs from 50 up to 99.8 are proposed, above it linked. (The scorer puts a
 * typo in the surname with the day's digits swapped at about 99.6, the same name and date of birth
 * at 99.9 or more; where REVIEW_THRESHOLD's default lies is issue 36's evaluation, not this test's.)
 */
const REVIEW = 50;
const LINK = 99.8;

async function pageOf(h: LinkingHarness, user = bps, query = ''): Promise<PossibleMatchPage> {
  const api = await h.as(user);
  return PossibleMatchPageSchema.parse((await api.get(`/api/possible-matches${query}`).expect(200)).body);
}

/** Two agencies' records of one suspect that the scorer puts in the band, and their possible match's id. */
async function proposedPair(h: LinkingHarness, name: string, first = bps, second = fia) {
  const a = await h.create(first, { suspectName: `Hortensia ${name}`, suspectDob: '1959-11-30' });
  const b = await h.create(second, { suspectName: `Hortensia ${name.replace(/ck/, 'k')}`, suspectDob: '1959-11-13' });
  await waitUntil('possible match proposed', async () => h.built.deps.possibleMatches.pair(a.id, b.id) !== undefined);
  const doc = h.built.deps.possibleMatches.pair(a.id, b.id);
  return { a, b, id: doc?._id.toHexString() as string };
}

const panelFields = ['caseAmount', 'id', 'incidentDate', 'incidentNumber', 'organization', 'suspectDob', 'suspectName'];

describe('possible matches (the review band)', () => {
  let h: LinkingHarness;
  beforeAll(async () => {
    h = await startLinking({ threshold: LINK, reviewThreshold: REVIEW });
  });

  it('proposes a pair between the thresholds to both agencies (their own record first), not to a third; ADMIN sees it', async () => {
    const { a, b, id } = await proposedPair(h, 'Blackwood');
    expect(h.built.deps.links.pair(a.id, b.id)).toBeUndefined();

    const fromBps = await pageOf(h, bps);
    const item = fromBps.items.find((i) => i.id === id);
    expect(item).toBeDefined();
    expect(item?.records.map((r) => r.id)).toEqual([a.id, b.id]);
    expect(item?.confidence).toBeGreaterThanOrEqual(REVIEW);
    expect(item?.confidence).toBeLessThan(LINK);
    // Only what the match panel shows of the other agency's record.
    expect(Object.keys(item?.records[1] ?? {}).sort()).toEqual(panelFields);
    expect(item?.records[1]).toMatchObject({ suspectName: b.suspectName, organization: 'FIA' });
    expect(item?.decision).toBeUndefined();
    expect(item?.explanation.map((e) => e.field)).toEqual(['suspectName', 'suspectDob', 'incidentDate', 'caseAmount']);

    const fromFia = await pageOf(h, fia);
    expect(fromFia.items.find((i) => i.id === id)?.records.map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await pageOf(h, cus)).items.find((i) => i.id === id)).toBeUndefined();
    expect((await pageOf(h, admin)).items.find((i) => i.id === id)?.records.map((r) => r.id)).toEqual([b.id, a.id]);
    // The navigation's badge: counts only.
    const count = async (user = bps) =>
      (await (await h.as(user)).get('/api/possible-matches/count').expect(200)).body as { open: number };
    expect(await count(bps)).toEqual({ open: 1 });
    expect(await count(fia)).toEqual({ open: 1 });
    expect(await count(cus)).toEqual({ open: 0 });
    expect(await count(admin)).toEqual({ open: 1 });

    // The same suspect written the same way is linked, not proposed.
    const c = await h.create(cus, { suspectName: 'Hortensia Blackwood', suspectDob: '1959-11-30' });
    await waitUntil('linked', async () => h.built.deps.links.pair(a.id, c.id) !== undefined);
    expect(h.built.deps.possibleMatches.pair(a.id, c.id)).toBeUndefined();
  });

  it('pages best first with a total; the limit and offset are checked', async () => {
    await proposedPair(h, 'Blackmore', bps, cus);
    const all = await pageOf(h, bps);
    expect(all.total).toBeGreaterThanOrEqual(2);
    expect(all.items).toHaveLength(all.total);
    const confidences = all.items.map((i) => i.confidence);
    expect(confidences).toEqual([...confidences].sort((x, y) => y - x));
    const second = await pageOf(h, bps, '?limit=1&offset=1');
    expect(second).toEqual({ items: [all.items[1]], total: all.total });
    const api = await h.as(bps);
    const bad = await api.get('/api/possible-matches?limit=0').expect(400);
    expect(JSON.stringify(bad.body)).toContain('Limit must be at least 1');
    await api.get('/api/possible-matches?limit=101').expect(400);
  });

  it('Confirm makes a manual link by the user; the pair leaves both lists and ADMIN sees the decision', async () => {
    const { a, b, id } = await proposedPair(h, 'Blackstone');
    const fiaApi = await h.as(fia);
    const made = await fiaApi.post(`/api/possible-matches/${id}/confirm`).expect(201);
    const link = LinkSchema.parse(made.body);
    expect(link).toMatchObject({
      sourceRecordId: b.id,
      linkedRecordId: a.id,
      sourceOrganization: 'FIA',
      linkedOrganization: 'BPS',
      linkType: 'manual',
      createdById: fia.userId,
    });
    const linksOfA = (await (await h.as(bps)).get(`/api/records/${a.id}/links`).expect(200)).body as Array<{
      id: string;
    }>;
    expect(linksOfA.map((l) => l.id)).toContain(link.id);

    expect((await pageOf(h, bps)).items.find((i) => i.id === id)).toBeUndefined();
    expect((await pageOf(h, fia)).items.find((i) => i.id === id)).toBeUndefined();
    const decided = (await pageOf(h, admin)).items.find((i) => i.id === id);
    expect(decided?.decision).toMatchObject({
      kind: 'confirmed',
      byId: fia.userId,
      byOrganization: 'FIA',
      linkId: link.id,
    });

    // Decided: a second decision is refused like any other.
    const again = await fiaApi.post(`/api/possible-matches/${id}/confirm`).expect(404);
    expect(again.body).toEqual({ message: POSSIBLE_MATCH_NOT_FOUND, code: 'NOT_FOUND' });
    await (await h.as(bps)).post(`/api/possible-matches/${id}/reject`).send({}).expect(404);
  });

  it('Reject: different people — never proposed or linked again, by hand either; ADMIN sees who and why', async () => {
    const { a, b, id } = await proposedPair(h, 'Blackburn');
    const bpsApi = await h.as(bps);
    await bpsApi.post(`/api/possible-matches/${id}/reject`).send({ reason: 'Different mothers' }).expect(204);
    expect((await pageOf(h, fia)).items.find((i) => i.id === id)).toBeUndefined();
    const decided = (await pageOf(h, admin)).items.find((i) => i.id === id);
    expect(decided?.decision).toMatchObject({ kind: 'rejected', byOrganization: 'BPS', reason: 'Different mothers' });
    expect(decided?.decision?.linkId).toBeUndefined();

    // A manual link of the pair is refused as any other refused link.
    const refused = await bpsApi
      .post('/api/records/link')
      .send({ sourceRecordId: a.id, linkedRecordId: b.id })
      .expect(404);
    expect(refused.body).toEqual({ message: 'Linked record not found', code: 'NOT_FOUND' });
    expect(h.built.deps.links.pair(a.id, b.id)).toBeUndefined();
    await (await h.as(fia)).post(`/api/possible-matches/${id}/confirm`).expect(404);
  });

  it('answers every refusal alike — another agencies’ pair, no such pair — and records it; a malformed id is 400', async () => {
    const { id } = await proposedPair(h, 'Blackhall');
    const cusApi = await h.as(cus);
    const theirs = await cusApi.post(`/api/possible-matches/${id}/confirm`).expect(404);
    const none = await cusApi.post(`/api/possible-matches/${new Types.ObjectId().toHexString()}/confirm`).expect(404);
    expect(theirs.body).toEqual(none.body);
    expect(theirs.body).toEqual({ message: POSSIBLE_MATCH_NOT_FOUND, code: 'NOT_FOUND' });
    await cusApi.post(`/api/possible-matches/${id}/reject`).send({}).expect(404);
    await cusApi.post('/api/possible-matches/not-an-id/confirm').expect(400);
    await cusApi
      .post(`/api/possible-matches/${id}/reject`)
      .send({ reason: 'x'.repeat(501) })
      .expect(400);
    // Still open for the two agencies.
    expect((await pageOf(h, bps)).items.find((i) => i.id === id)).toBeDefined();

    const events = await h.settledAudit();
    const refusals = events.filter((e) => e.action === 'possible-match.refused' && e.organization === 'CUS');
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    // Another agencies' pair: the refusal names no record of theirs.
    for (const r of refusals) expect(r.recordIds).toEqual([]);
  });

  it('records each proposal, each page read (the records it showed) and each rejection', async () => {
    const { a, b, id } = await proposedPair(h, 'Blackshaw');
    await pageOf(h, fia);
    await (await h.as(fia)).post(`/api/possible-matches/${id}/reject`).send({ reason: 'Twins' }).expect(204);
    const events = await h.settledAudit();
    const proposed = events.find((e) => e.action === 'possible-match.create' && e.detail?.possibleMatch === id);
    expect(proposed).toMatchObject({ userId: fia.userId, organization: 'FIA', recordIds: [b.id, a.id] });
    const reads = events.filter(
      (e) => e.action === 'record.read' && e.detail?.via === 'possible-matches' && e.userId === fia.userId,
    );
    expect(reads.some((e) => e.recordIds.includes(a.id) && e.recordIds.includes(b.id))).toBe(true);
    const rejected = events.find((e) => e.action === 'possible-match.reject' && e.detail?.possibleMatch === id);
    expect(rejected).toMatchObject({ userId: fia.userId, recordIds: [b.id, a.id], detail: { reason: 'Twins' } });
  });

  it('counts the decisions as labels per band for ADMIN: precision in the band, recall above it; a rejected link is one', async () => {
    const labelsNow = async () =>
      LabelFiguresSchema.parse((await (await h.as(admin)).get('/api/possible-matches/labels').expect(200)).body);
    const before = await labelsNow();
    const decided = (await pageOf(h, admin)).items.filter((i) => i.decision);
    expect(before.labels).toBe(decided.length);
    expect(before.bands.map((b) => [b.from, b.to])).toEqual([
      [50, 60],
      [60, 70],
      [70, 80],
      [80, 90],
      [90, 100],
    ]);
    // Each decision counts in the band of the confidence it was proposed at.
    const inBand = (c: number, band: { from: number; to: number }) =>
      c >= band.from && (c < band.to || (band.to === 100 && c <= 100));
    const confirmedAll = decided.filter((i) => i.decision?.kind === 'confirmed').length;
    expect(confirmedAll).toBeGreaterThan(0);
    for (const band of before.bands) {
      const here = decided.filter((i) => inBand(i.confidence, band));
      const confirmed = here.filter((i) => i.decision?.kind === 'confirmed').length;
      expect(band).toMatchObject({ labels: here.length, confirmed, rejected: here.length - confirmed });
      if (here.length === 0) expect(band.precision).toBeNull();
      else expect(band.precision).toBeCloseTo(confirmed / here.length, 10);
      const above = decided.filter((i) => i.decision?.kind === 'confirmed' && i.confidence >= band.from).length;
      expect(band.recallAbove).toBeCloseTo(above / confirmedAll, 10);
    }
    expect(before.bands.reduce((n, band) => n + band.labels, 0)).toBe(decided.length);

    // A link rejected by an agency is a label too: different people, at the link's confidence.
    const { a, b } = await proposedPair(h, 'Blackadder');
    const fiaApi = await h.as(fia);
    const link = LinkSchema.parse(
      (
        await fiaApi
          .post(`/api/possible-matches/${h.built.deps.possibleMatches.pair(a.id, b.id)?._id.toHexString()}/confirm`)
          .expect(201)
      ).body,
    );
    await fiaApi.delete(`/api/records/${b.id}/links/${a.id}`).send({ reason: 'Wrong after all' }).expect(204);
    const after = await labelsNow();
    // One label for the pair: the link's rejection, the later word, overrides its confirmation.
    expect(after.labels).toBe(before.labels + 1);
    const k = before.bands.findIndex((band) => inBand(link.confidence, band));
    expect(after.bands[k]).toMatchObject({
      confirmed: before.bands[k]!.confirmed,
      rejected: before.bands[k]!.rejected + 1,
    });

    // ADMIN only.
    const refused = await (await h.as(bps)).get('/api/possible-matches/labels').expect(403);
    expect(refused.body.message).toMatch(/Admin privileges required/);
  });

  it('keeps the possible matches and their decisions across a restart', async () => {
    const before = await pageOf(h, admin);
    await h.restart();
    expect(await pageOf(h, admin)).toEqual(before);
  });
});

describe('REVIEW_THRESHOLD', () => {
  const base = { IDENTITY_PUBLIC_KEYS: TEST_PUBLIC_KEYS, NATS_URL: 'nats://127.0.0.1:4222', MONGO_URL: 'mongodb://x' };
  it('is 50 unless set, kept between DISCLOSURE_THRESHOLD (default 50) and LINK_THRESHOLD', () => {
    const config = loadLinkingConfig(base);
    expect(config.REVIEW_THRESHOLD).toBeUndefined();
    expect(config.DISCLOSURE_THRESHOLD).toBe(50);
    expect(reviewThresholdOf(config)).toBe(50);
    expect(reviewThresholdOf(loadLinkingConfig({ ...base, DISCLOSURE_THRESHOLD: '70' }))).toBe(70);
    expect(reviewThresholdOf(loadLinkingConfig({ ...base, LINK_THRESHOLD: '50' }))).toBe(50); // no band
    expect(reviewThresholdOf(loadLinkingConfig({ ...base, REVIEW_THRESHOLD: '60' }))).toBe(60);
    expect(loadLinkingConfig({ ...base, REVIEW_THRESHOLD: '60', DISCLOSURE_THRESHOLD: '55' }).REVIEW_THRESHOLD).toBe(
      60,
    );
    expect(() => loadLinkingConfig({ ...base, REVIEW_THRESHOLD: '45' })).toThrow(/REVIEW_THRESHOLD/);
    expect(() => loadLinkingConfig({ ...base, REVIEW_THRESHOLD: '60', DISCLOSURE_THRESHOLD: '65' })).toThrow(
      /REVIEW_THRESHOLD/,
    );
    expect(() => loadLinkingConfig({ ...base, REVIEW_THRESHOLD: '90', DISCLOSURE_THRESHOLD: '55' })).toThrow(
      /REVIEW_THRESHOLD/,
    );
  });

  it('proposes nothing when it is LINK_THRESHOLD', async () => {
    const h = await startLinking({ reviewThreshold: 80 });
    const a: CaseRecord = await h.create(bps, { suspectName: 'Hortensia Blackwell', suspectDob: '1959-11-30' });
    const b = await h.create(fia, { suspectName: 'Hortensia Blakwell', suspectDob: '1959-11-13' });
    await h.caughtUp();
    expect(h.built.deps.possibleMatches.size).toBe(0);
    expect(h.built.deps.links.pair(a.id, b.id)).toBeDefined(); // 80 links it
    expect((await pageOf(h, bps)).total).toBe(0);
  });
});

describe('the uncertain classes at the default thresholds (issue 36: twins and partial names go to review)', () => {
  let h: LinkingHarness;
  beforeAll(async () => {
    h = await startLinking();
  });
  const day = '1961-04-09';

  /** Waits for `b` (the newer record) to be looked at by auto-linking, then the pair's possible match. */
  async function afterLinking(a: CaseRecord, b: CaseRecord) {
    await h.caughtUp();
    return h.built.deps.possibleMatches.pair(a.id, b.id);
  }

  it('proposes twins and a surname alone at their classes’ confidence, links whole names, proposes nothing weaker', async () => {
    // Twins: one name word agrees, the other disagrees, the same birthday (issue 36: was linked at 99.4%).
    const bartholomew = await h.create(bps, { suspectName: 'Bartholomew Fairweather', suspectDob: day });
    const ignatius = await h.create(fia, { suspectName: 'Ignatius Fairweather', suspectDob: day });
    const twins = await afterLinking(bartholomew, ignatius);
    const loneWordCeiling = Math.max(REVIEW, REVIEW_CLASS_PRIOR.loneWord);
    expect(twins).toMatchObject({ uncertain: 'loneWord', confidence: loneWordCeiling, decision: null });
    expect(h.built.deps.links.pair(bartholomew.id, ignatius.id)).toBeUndefined();
    // A surname alone with the same date of birth: at most just under LINK_THRESHOLD (80), never linked.
    const alone = await h.create(cus, { suspectName: 'Fairweather', suspectDob: day });
    const partial = await afterLinking(ignatius, alone);
    expect(partial).toMatchObject({ uncertain: 'partialName', confidence: 79.99 });
    expect(h.built.deps.links.pair(ignatius.id, alone.id)).toBeUndefined();
    const explanation = partial?.explanation.find((e) => e.field === 'suspectName');
    expect(explanation?.detail).toContain('only part of the name could be compared');
    // The same name and birthday: linked, not proposed.
    const same = await h.create(cus, { suspectName: 'Ignatius Fairweather', suspectDob: day });
    await waitUntil('linked', async () => h.built.deps.links.pair(ignatius.id, same.id) !== undefined);
    expect(h.built.deps.possibleMatches.pair(ignatius.id, same.id)).toBeUndefined();
    // A surname alone born another year: weighed on what was compared, under the band (not proposed).
    const elsewhere = await h.create(bps, { suspectName: 'Fairweather', suspectDob: '1971-02-03' });
    expect(await afterLinking(ignatius, elsewhere)).toBeUndefined();
    expect(h.built.deps.links.pair(ignatius.id, elsewhere.id)).toBeUndefined();
    // Namesakes: the whole name (and the case) without a date of birth (a placeholder), or born weeks apart —
    // proposed at most at their class's confidence, never linked.
    const namesake = { suspectName: 'Peregrine Ashcombe', incidentDate: '2024-03-05', caseAmount: '12500.00' };
    const undated = await h.create(fia, { ...namesake, suspectDob: '1900-01-01' });
    const dated = await h.create(bps, { ...namesake, suspectDob: day });
    const noDob = await afterLinking(undated, dated);
    expect(noDob).toMatchObject({ uncertain: 'unconfirmedDob', decision: null });
    expect(noDob?.confidence).toBeLessThanOrEqual(REVIEW_CLASS_PRIOR.unconfirmedDob);
    expect(h.built.deps.links.pair(undated.id, dated.id)).toBeUndefined();
    const later = await h.create(cus, { ...namesake, suspectDob: '1961-05-20' });
    expect(await afterLinking(dated, later)).toMatchObject({ uncertain: 'unconfirmedDob' });
    expect(h.built.deps.links.pair(dated.id, later.id)).toBeUndefined();
  });

  it('learns each class’s confidence from the decisions, within the band, and shows ADMIN the figures', async () => {
    const labels = async () =>
      LabelFiguresSchema.parse((await (await h.as(admin)).get('/api/possible-matches/labels').expect(200)).body);
    const loneWord = async () => (await labels()).classes.find((c) => c.uncertain === 'loneWord');
    expect(await loneWord()).toEqual({
      uncertain: 'loneWord',
      labels: 0,
      confirmed: 0,
      prior: REVIEW_CLASS_PRIOR.loneWord,
      estimate: REVIEW_CLASS_PRIOR.loneWord,
      ceiling: Math.max(REVIEW, REVIEW_CLASS_PRIOR.loneWord),
    });
    // Five pairs of siblings born the same day, the investigators confirm each (the same person
    // after all: a given name written two ways, say): the class's confidence rises.
    const given = ['Ambrose', 'Benedict', 'Cuthbert', 'Desmond', 'Eustace'];
    for (const [k, first] of given.entries()) {
      const x = await h.create(bps, { suspectName: `${first} Quillfeather`, suspectDob: `1950-0${k + 1}-11` });
      const y = await h.create(fia, { suspectName: `Zebedee Quillfeather`, suspectDob: `1950-0${k + 1}-11` });
      const doc = await afterLinking(x, y);
      expect(doc?.uncertain).toBe('loneWord');
      await (await h.as(fia)).post(`/api/possible-matches/${doc?._id.toHexString()}/confirm`).expect(201);
    }
    const estimate = Math.round(((500 + 20 * REVIEW_CLASS_PRIOR.loneWord) / 25) * 100) / 100;
    expect(await loneWord()).toMatchObject({ labels: 5, confirmed: 5, estimate, ceiling: estimate });
    // The next such pair is proposed at the new confidence.
    const x = await h.create(bps, { suspectName: 'Fenwick Quillfeather', suspectDob: '1950-08-11' });
    const y = await h.create(cus, { suspectName: 'Gideon Quillfeather', suspectDob: '1950-08-11' });
    expect((await afterLinking(x, y))?.confidence).toBe(estimate);
    // Rejections bring it down, never under REVIEW_THRESHOLD: such pairs still go to review.
    for (const [k, first] of ['Horatio', 'Isidore', 'Jeremiah', 'Lancelot', 'Mortimer', 'Nathaniel'].entries()) {
      const p = await h.create(cus, { suspectName: `${first} Thistlewood`, suspectDob: `1952-0${k + 1}-21` });
      const q = await h.create(fia, { suspectName: `Obadiah Thistlewood`, suspectDob: `1952-0${k + 1}-21` });
      const doc = await afterLinking(p, q);
      await (await h.as(cus)).post(`/api/possible-matches/${doc?._id.toHexString()}/reject`).send({}).expect(204);
    }
    const after = await loneWord();
    expect(after).toMatchObject({ labels: 11, confirmed: 5 });
    expect(after?.estimate).toBeCloseTo((500 + 20 * REVIEW_CLASS_PRIOR.loneWord) / 31, 2);
    expect(after?.ceiling).toBe(Math.max(50, after?.estimate ?? 0));
    // The partial-name class has no decision: its prior, kept under LINK_THRESHOLD.
    expect((await labels()).classes.find((c) => c.uncertain === 'partialName')).toMatchObject({
      labels: 0,
      estimate: REVIEW_CLASS_PRIOR.partialName,
      ceiling: 79.99,
    });
  });
});
