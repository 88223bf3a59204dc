import { NEXT_CURSOR_HEADER, RecordEventSchema, TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, nextIp, signIn, startAuthStack } from './stack.ts';

/**
 * The records paths of SPEC §7 through the gateway, with real sessions, as each agency and as
 * ADMIN; every change is counted on the RECORDS stream.
 */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

let n = 0;
const body = (overrides: Record<string, unknown> = {}) => ({
  incidentNumber: `GW-${Date.now().toString(36)}-${++n}`,
  suspectName: 'Carla Díaz',
  suspectDob: '1975-01-31',
  incidentDate: '2025-06-01',
  caseAmount: '99.99',
  sourceOfRecord: 'Customs Inspection',
  internationalNexus: true,
  country: 'Spain',
  crimeType: 'Fraud',
  ...overrides,
});

async function streamEvents() {
  const pending = () => stack.recordsDb.collection('records').countDocuments({ outboxPending: true });
  await waitUntil('outbox drained', async () => (await pending()) === 0);
  const info = await stack.bus.jsm.streams.info(stack.recordsStream);
  const consumer = await stack.bus.js.consumers.get(stack.recordsStream);
  const out: Array<ReturnType<typeof RecordEventSchema.parse>> = [];
  if (info.state.messages === 0) return out;
  for await (const m of await consumer.fetch({ max_messages: info.state.messages, expires: 5000 })) {
    out.push(RecordEventSchema.parse(m.json()));
    if (out.length === info.state.messages) break;
  }
  return out;
}

describe('records through the gateway', () => {
  it('each agency creates, reads, lists, searches, edits, deletes and restores; one event per change', async () => {
    const changes: string[] = [];
    for (const organization of ['BPS', 'FIA', 'CUS']) {
      const { agent } = await signIn(gw.server, { organization });
      const created = await agent.post('/api/records').send(body()).expect(201);
      changes.push(`created:${created.body.id}`);
      expect(created.body).toMatchObject({ organization, caseAmount: '99.99', seizedAmount: '0.00', version: 1 });
      expect(created.headers.etag).toBe('"1"');
      expect(created.headers['cache-control']).toBe('no-store');
      await agent.get(`/api/records/${created.body.id}`).expect(200);

      const list = await agent.get('/api/records?limit=1').expect(200);
      expect(list.body.map((r: { id: string }) => r.id)).toEqual([created.body.id]);
      expect(list.headers[TOTAL_COUNT_HEADER]).toBe('1');
      expect(list.headers[NEXT_CURSOR_HEADER]).toBeUndefined();

      const found = await agent.post('/api/records/search').send({ suspectName: 'diaz carla', freeText: 'spa' });
      expect(found.status).toBe(200);
      expect(found.body.map((r: { id: string }) => r.id)).toEqual([created.body.id]);

      const edited = await agent
        .put(`/api/records/${created.body.id}`)
        .set('If-Match', String(created.headers.etag))
        .send(body({ incidentNumber: created.body.incidentNumber, caseAmount: '100' }))
        .expect(200);
      changes.push(`updated:${created.body.id}`);
      expect(edited.body).toMatchObject({ caseAmount: '100.00', version: 2 });

      await agent.delete(`/api/records/${created.body.id}`).expect(200);
      changes.push(`deleted:${created.body.id}`);
      const gone = await agent.get('/api/records/deleted').expect(200);
      expect(gone.body.map((r: { id: string }) => r.id)).toEqual([created.body.id]);
      await agent.post(`/api/records/${created.body.id}/restore`).expect(200);
      changes.push(`restored:${created.body.id}`);
      await agent.get('/api/dropdown-options/source').expect(200);
      await agent.get('/api/admin/records').expect(403);
    }

    const admin = request.agent(gw.server);
    await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
    const all = await admin.get('/api/admin/records').expect(200);
    expect(all.body.map((r: { organization: string }) => r.organization).sort()).toEqual(['BPS', 'CUS', 'FIA']);
    expect(all.body.every((r: { amount: string }) => r.amount === '100.00')).toBe(true);
    await admin
      .put('/api/dropdown-options/country')
      .send({ values: ['Bermuda', 'Spain'] })
      .expect(200);
    expect(
      (await admin.get('/api/dropdown-options/country').expect(200)).body.map((o: { value: string }) => o.value),
    ).toEqual(['Bermuda', 'Spain']);

    const events = await streamEvents();
    expect(events.map((e) => `${e.type}:${e.record.id}`)).toEqual(changes);
  });

  it('keeps agencies apart and needs a session', async () => {
    const bps = await signIn(gw.server, { organization: 'BPS' });
    const fia = await signIn(gw.server, { organization: 'FIA' });
    const mine = (await bps.agent.post('/api/records').send(body()).expect(201)).body;
    const res = await fia.agent.get(`/api/records/${mine.id}`).expect(404);
    expect(res.body).toEqual({ message: 'Record not found', code: 'NOT_FOUND' });
    await fia.agent.delete(`/api/records/${mine.id}`).expect(404);
    await request(gw.server).get('/api/records').expect(401);
    await request(gw.server).post('/api/records').send(body()).expect(401);
    expect((await bps.agent.get(`/api/records/${mine.id}`).expect(200)).body.version).toBe(1);
  });
});
