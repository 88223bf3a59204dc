import { waitUntil } from '@nrad/infra/harness';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { startLinking, userOf } from './harness.ts';

const bps = userOf('BPS');
const fia = userOf('FIA');

describe('the linking service and its events', () => {
  it('indexes and links records created while it was down once it is back (durable consumer)', async () => {
    const h = await startLinking();
    await h.built.stop(); // the service is down; records go on being created
    const api = await h.as(bps);
    const fiaApi = await h.as(fia);
    const body = (over: Record<string, unknown>) => ({
      incidentNumber: `DOWN-${new Types.ObjectId().toHexString()}`,
      suspectDob: '1979-11-23',
      incidentDate: '2024-02-02',
      caseAmount: '5000',
      sourceOfRecord: 'Police Investigation',
      internationalNexus: false,
      ...over,
    });
    const a = (
      await api
        .post('/api/records')
        .send(body({ suspectName: 'Renée Beaulieu' }))
        .expect(201)
    ).body;
    const b = (
      await fiaApi
        .post('/api/records')
        .send(body({ suspectName: 'Beaulieu Renee' }))
        .expect(201)
    ).body;
    await h.restart();
    await h.indexed(b.id);
    await waitUntil('auto-link after restart', async () => h.built.deps.links.forRecord(a.id).length === 1, 10_000);
    const links = (await (await h.as(bps)).get(`/api/records/${a.id}/links`).expect(200)).body;
    expect(links.map((l: { linkedRecordId: string }) => l.linkedRecordId)).toEqual([b.id]);
  });

  it('publishes links.created left unpublished by a stopped relay after a restart, once', async () => {
    const h = await startLinking({ autoLink: false });
    const a = await h.create(bps, { suspectName: 'Ahmed Karimi', suspectDob: '1983-04-04' });
    const b = await h.create(fia, { suspectName: 'Ahmad Karimi', suspectDob: '1983-04-04' });
    await h.built.deps.relay.stop(); // the process "dies" between storing the link and publishing it
    const res = await (await h.as(fia))
      .post('/api/records/link')
      .send({ sourceRecordId: b.id, linkedRecordId: a.id })
      .expect(201);
    const stored = await h.db.collection('links').findOne({ _id: new Types.ObjectId(res.body.id) });
    expect(stored?.published).toBe(false);
    expect((await h.linkEventsNow()).filter((e) => e.link.id === res.body.id)).toEqual([]);

    await h.restart();
    const events = (await h.linkEvents()).filter((e) => e.link.id === res.body.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.msgId).toBe(res.body.id);
    await waitUntil(
      'marked published',
      async () =>
        (await h.db.collection('links').findOne({ _id: new Types.ObjectId(res.body.id) }))?.published === true,
      10_000,
    );
    // A second restart publishes nothing again; the pair is still one link.
    await h.restart();
    expect((await h.linkEvents()).filter((e) => e.link.id === res.body.id)).toHaveLength(1);
    expect(h.built.deps.links.forRecord(a.id)).toHaveLength(1);
  });
});
