import { CHECK_MATCHES_MISSING_FIELDS, LINKING_STATE_HEADER } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { beforeAll, describe, expect, it } from 'vitest';
import { signIn, startAuthStack } from './stack.ts';

/** The linking paths of SPEC §7 through the gateway, with real sessions and real services. */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

let n = 0;
const body = (overrides: Record<string, unknown> = {}) => ({
  incidentNumber: `GL-${Date.now().toString(36)}-${++n}`,
  suspectName: 'Desmond Outerbridge',
  suspectDob: '1977-08-21',
  incidentDate: '2025-02-14',
  caseAmount: '12500',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
  ...overrides,
});

describe('linking through the gateway', () => {
  it('links the same suspect across agencies automatically, explains it, and keeps agencies apart', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const fiu = await signIn(gw.server, { organization: 'FIA' });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const a = (await police.agent.post('/api/records').send(body()).expect(201)).body;
    const b = (
      await fiu.agent
        .post('/api/records')
        .send(
          body({
            suspectName: 'OUTERBRIDGE, Desmund',
            suspectDob: '1977-08-12',
            sourceOfRecord: 'Referral from NAMLC organization',
            namlcOrganization: 'Bermuda Police Service',
          }),
        )
        .expect(201)
    ).body;

    let links: Array<Record<string, unknown> & { confidence: number; explanation: Array<{ contribution: number }> }> =
      [];
    await waitUntil('auto-link readable', async () => {
      links = (await fiu.agent.get(`/api/records/${b.id}/links`).expect(200)).body;
      return links.length === 1;
    });
    const link = links[0];
    if (!link) throw new Error('no link');
    expect(link).toMatchObject({ sourceRecordId: b.id, linkedRecordId: a.id, linkType: 'auto' });
    expect((link.linkedRecord as { id: string }).id).toBe(a.id);
    const sum = link.explanation.reduce((s, e) => s + Math.round(e.contribution * 100), 0);
    expect(sum).toBe(Math.round(link.confidence * 100));
    expect((await police.agent.get(`/api/records/${a.id}/linked`).expect(200)).body).toEqual([
      { organization: 'FIA', id: b.id, incidentNumber: b.incidentNumber, suspectName: 'OUTERBRIDGE, Desmund' },
    ]);

    // The list rows carry the Linked flag once the records service has the link.
    await waitUntil('Linked flag on the list', async () => {
      const rows = (await police.agent.get('/api/records').expect(200)).body as Array<{ id: string; linked: boolean }>;
      return rows.find((r) => r.id === a.id)?.linked === true;
    });

    // Another agency sees neither the links nor the record; a malformed id is a 400.
    const foreign = await customs.agent.get(`/api/records/${a.id}/links`).expect(404);
    const missing = await customs.agent.get('/api/records/0123456789abcdef01234567/links').expect(404);
    expect(foreign.body).toEqual(missing.body);
    await customs.agent.get(`/api/records/${a.id}/linked`).expect(404);
    await customs.agent.get('/api/records/xyz/links').expect(400);

    // The pair exists: linking it by hand is a 409 with SPEC's message.
    const again = await fiu.agent
      .post('/api/records/link')
      .send({ sourceRecordId: b.id, linkedRecordId: a.id, matchCriteria: { suspectName: true } })
      .expect(409);
    expect(again.body.message).toBe('Records are already linked');
  });

  it('answers the NAMLC check with matches and SPEC’s message for missing fields', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const a = (
      await police.agent
        .post('/api/records')
        .send(body({ suspectName: 'Keisha Trott', suspectDob: '1985-12-09' }))
        .expect(201)
    ).body;
    const check = {
      namlcOrganization: 'Bermuda Police Service',
      suspectName: 'Trott Keesha',
      suspectDob: '1985-12-09',
      incidentDate: '2025-02-14',
      caseAmount: '12500',
    };
    // Indexed once its owner can read its links and they are not "linking in progress" (not a
    // NAMLC check: those count against the per-user limit of 30 a minute, which polling would reach).
    await waitUntil('record indexed', async () => {
      const res = await police.agent.get(`/api/records/${a.id}/links`);
      return res.status === 200 && res.headers[LINKING_STATE_HEADER.toLowerCase()] !== 'pending';
    });
    const matches: Array<{ id: string; organization: string; confidence: number }> = (
      await customs.agent.post('/api/records/check-namlc-matches').send(check).expect(200)
    ).body.matches;
    expect(matches.map((m) => m.id)).toContain(a.id);
    expect(matches[0]).toMatchObject({ id: a.id, organization: 'BPS', incidentNumber: a.incidentNumber });
    const { suspectDob: _dob, ...incomplete } = check;
    const res = await customs.agent.post('/api/records/check-namlc-matches').send(incomplete).expect(400);
    expect(res.body.message).toBe(CHECK_MATCHES_MISSING_FIELDS);
  });
});
