import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { auditLinks, describeLinksAudit } from '../src/links-audit.ts';
import { startLinking, userOf } from './harness.ts';

const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');

describe('links:audit (issue 34)', () => {
  it('lists the stored links the disclosure rule would not make today, and changes nothing', async () => {
    const h = await startLinking();
    const police = await h.create(bps, { suspectName: 'Gwendolyn Achterberg', suspectDob: '1984-08-08' });
    const fiu = await h.create(fia, { suspectName: 'Achterberg, Gwendolyn', suspectDob: '1984-08-08' });
    const other = await h.create(fia, { suspectName: 'Nobody Alike', suspectDob: '2001-01-01' });
    await h.linkEvents();
    expect(h.built.deps.links.forRecord(fiu.id)).toHaveLength(1);
    // A link made before issue 34 against the evidence: BPS's record with an FIA record that agrees on nothing.
    const weak = h.built.deps.links.forRecord(fiu.id)[0]!;
    const legacyId = new Types.ObjectId();
    const links = h.db.collection('links');
    const stored = await links.findOne({ _id: new Types.ObjectId(weak.id) });
    await links.insertOne({
      ...stored,
      _id: legacyId,
      pairKey: [police.id, other.id].sort().join(':'),
      sourceRecordId: police.id,
      linkedRecordId: other.id,
      sourceOrganization: 'BPS',
      linkedOrganization: 'FIA',
      linkType: 'manual',
      confidence: 0,
      createdById: bps.userId,
      published: true,
    });
    const before = await links.find({}).sort({ _id: 1 }).toArray();

    const report = await auditLinks(h.db, 80);
    expect(report).toMatchObject({ checked: 2, rejected: 0 });
    expect(report.failing).toEqual([
      expect.objectContaining({
        id: legacyId.toHexString(),
        linkType: 'manual',
        source: `BPS:${police.id}`,
        linked: `FIA:${other.id}`,
        confidence: 0,
        createdById: bps.userId,
      }),
    ]);
    const lines = describeLinksAudit(report, 80);
    expect(lines[0]).toBe(
      '2 links checked (0 rejected left out) over 3 indexed records: 1 would not be made today (disclosure threshold 80).',
    );
    expect(lines[2]).toContain(legacyId.toHexString());
    // Read only.
    expect(await links.find({}).sort({ _id: 1 }).toArray()).toEqual(before);
  });

  it('scores a link confirmed from a possible match with the class confidence the service learnt (issue 36)', async () => {
    const h = await startLinking();
    const full = await h.create(bps, { suspectName: 'Wilhelmina Oosterhuis', suspectDob: '1979-09-19' });
    const alone = await h.create(fia, { suspectName: 'Oosterhuis', suspectDob: '1979-09-19' });
    await h.caughtUp();
    const doc = h.built.deps.possibleMatches.pair(full.id, alone.id);
    expect(doc?.uncertain).toBe('partialName');
    await (await h.as(fia)).post(`/api/possible-matches/${doc?._id.toHexString()}/confirm`).expect(201);
    await h.linkEvents();
    const band = { reviewThreshold: 50, linkThreshold: 80 };
    expect(await auditLinks(h.db, 50, band)).toMatchObject({ checked: 1, failing: [] });
    // Without the review band a surname alone discloses nothing (issue 34), so the link would fail.
    expect((await auditLinks(h.db, 50)).failing).toHaveLength(1);
  });
});
