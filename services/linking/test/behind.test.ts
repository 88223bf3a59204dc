import { type CaseRecord, LINKING_PENDING, LINKING_STATE_HEADER } from '@nrad/contracts';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LinkingHarness, recordBody, startLinking, userOf } from './harness.ts';

const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');
const admin = userOf('ADMIN', 'Ada Admin');

/**
 * The links views of a record the linking service has not seen yet (issue 36): its own agency's
 * record has no links yet, "linking in progress" — answered at once, never 404; another agency's
 * record and an id nobody holds are still refused alike (issue 34).
 */
describe('a record the linking service has not seen yet', () => {
  let h: LinkingHarness;
  let record: CaseRecord;
  beforeAll(async () => {
    h = await startLinking({ behind: true });
    const api = await h.as(bps);
    record = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: 'Unseen Person' }))
        .expect(201)
    ).body;
    expect(h.built.deps.index.get(record.id)).toBeUndefined();
  });

  it('has no links yet for its own agency, linking in progress, answered at once', async () => {
    const api = await h.as(bps);
    const started = Date.now();
    const links = await api.get(`/api/records/${record.id}/links`).expect(200);
    expect(links.body).toEqual([]);
    expect(links.headers[LINKING_STATE_HEADER.toLowerCase()]).toBe(LINKING_PENDING);
    expect(Date.now() - started).toBeLessThan(h.config.RECORD_WAIT_MS);
    const linked = await api.get(`/api/records/${record.id}/linked`).expect(200);
    expect(linked.body).toEqual([]);
    expect(linked.headers[LINKING_STATE_HEADER.toLowerCase()]).toBe(LINKING_PENDING);
    // ADMIN sees every agency's records: the same.
    const fromAdmin = await (await h.as(admin)).get(`/api/records/${record.id}/links`).expect(200);
    expect(fromAdmin.headers[LINKING_STATE_HEADER.toLowerCase()]).toBe(LINKING_PENDING);
  });

  it("refuses another agency's record as an id nobody holds: the same 404", async () => {
    const api = await h.as(fia);
    const theirs = await api.get(`/api/records/${record.id}/links`).expect(404);
    const nobodys = await api.get(`/api/records/${new Types.ObjectId().toHexString()}/links`).expect(404);
    expect(theirs.body).toEqual(nobodys.body);
    expect(theirs.body).toEqual({ message: 'Record not found', code: 'NOT_FOUND' });
    expect(theirs.headers[LINKING_STATE_HEADER.toLowerCase()]).toBeUndefined();
  });

  it('refuses its own deleted record as before', async () => {
    const api = await h.as(bps);
    const gone = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: 'Gone Person' }))
        .expect(201)
    ).body as CaseRecord;
    await api.delete(`/api/records/${gone.id}`).expect(200);
    await api.get(`/api/records/${gone.id}/links`).expect(404);
  });
});
