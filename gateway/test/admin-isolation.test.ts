import { QUEUES_BOARD_PATH } from '@nrad/contracts';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, nextIp, signIn, startAuthStack } from './stack.ts';

/**
 * The isolation matrix of the paths issue 19 adds (the contact-request inbox, the operations JSON,
 * the queue board) × every organization, through the gateway: ADMIN is served; each agency gets
 * 403 and changes nothing; without a session, 401.
 */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;
let admin: request.Agent;
const agents = {} as Record<'BPS' | 'FIA' | 'CUS', request.Agent>;
let requestId = '';

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
  admin = request.agent(gw.server);
  await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
  for (const organization of ['BPS', 'FIA', 'CUS'] as const) {
    agents[organization] = (await signIn(gw.server, { organization })).agent;
  }
  const sent = await agents.FIA.post('/api/contact-admin')
    .send({ subject: 'Matrix', message: 'A request' })
    .expect(201);
  requestId = sent.body.request.id;
});

const PATHS: ReadonlyArray<{ method: 'get' | 'post' | 'put'; path: () => string; admin: number }> = [
  { method: 'get', path: () => '/api/admin/contact-requests', admin: 200 },
  { method: 'get', path: () => '/api/admin/contact-requests?status=open&limit=5', admin: 200 },
  { method: 'post', path: () => `/api/admin/contact-requests/${requestId}/resolve`, admin: 200 },
  { method: 'get', path: () => '/api/admin/operations', admin: 200 },
  { method: 'get', path: () => `${QUEUES_BOARD_PATH}`, admin: 200 },
  { method: 'get', path: () => `${QUEUES_BOARD_PATH}/`, admin: 200 },
  { method: 'get', path: () => `${QUEUES_BOARD_PATH}/api/queues`, admin: 200 },
  { method: 'put', path: () => `${QUEUES_BOARD_PATH}/api/queues/pause`, admin: 200 },
  { method: 'put', path: () => `${QUEUES_BOARD_PATH}/api/queues/resume`, admin: 200 },
];

const stored = async () => {
  const list = await admin.get('/api/admin/contact-requests').expect(200);
  return list.body.items.map((r: { id: string; status: string; resolvedAt: string | null }) => r);
};

describe.each(['BPS', 'FIA', 'CUS'] as const)('as %s', (organization) => {
  it('gets 403 on every admin path, and nothing changes', async () => {
    const before = await stored();
    for (const p of PATHS) {
      const res = await agents[organization][p.method](p.path());
      expect(res.status, `${p.method.toUpperCase()} ${p.path()}`).toBe(403);
    }
    expect(await stored()).toEqual(before);
  });
});

describe('without a session', () => {
  it('gets 401 on every admin path', async () => {
    for (const p of PATHS) {
      const res = await request(gw.server)[p.method](p.path());
      expect(res.status, `${p.method.toUpperCase()} ${p.path()}`).toBe(401);
    }
  });
});

describe('as ADMIN', () => {
  it('is served on every admin path', async () => {
    for (const p of PATHS) {
      const res = await admin[p.method](p.path());
      expect([p.admin, 204, 301, 302], `${p.method.toUpperCase()} ${p.path()}: ${res.status}`).toContain(res.status);
    }
    const [resolved] = await stored();
    expect(resolved).toMatchObject({ id: requestId, status: 'resolved' });
  });
});
