import { IDENTITY_HEADER, type Identity } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { newIdentityKeyPair, parseSigner, signIdentity } from '@nrad/service-kit';
import { TEST_GATEWAY_SIGNER, testSigner, testToken } from '@nrad/service-kit/test-identity';
import { SignJWT } from 'jose';
import { type Connection, Types } from 'mongoose';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { ADMIN, cookieJar, nextIp, signIn, startAuthStack } from './stack.ts';

/**
 * Issue 21's security checks, through the gateway to the real services:
 * - the isolation matrix: every path that names an id (records, links, audit, ingest jobs,
 *   reports) × every agency × another agency's record, report and job — refused as missing,
 *   nothing changed, each attempt on a record found in the audit trail; the ADMIN paths refused to
 *   every agency;
 * - `$`-keys, prototype keys and oversized bodies sent to every JSON path: refused, nothing stored;
 * - a session id from before sign-in and a cookie of a signed-out session: refused;
 * - a forged, expired or unsigned identity token sent straight to each service: refused, nothing stored.
 */
const ORGS = ['BPS', 'FIA', 'CUS'] as const;
type Org = (typeof ORGS)[number];

let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;
let admin: request.Agent;
const agents = {} as Record<Org, request.Agent>;
/** Each agency's active record, deleted record, report and upload job. */
const own = {} as Record<Org, { record: string; deleted: string; report: string; job: string }>;

let counter = 0;
const recordBody = (org: string, overrides: Record<string, unknown> = {}) => ({
  incidentNumber: `SM-${org}-${Date.now().toString(36)}-${++counter}`,
  // A name of its own for each record: the matrix must not make links of its own.
  suspectName: `Matrix ${org} Person${counter} ${'abcdefghij'[counter % 10]}son`,
  suspectDob: `19${50 + counter}-0${(counter % 9) + 1}-1${counter % 9}`,
  incidentDate: '2024-03-02',
  caseAmount: '1500.00',
  seizedAmount: '0',
  confiscatedAmount: '0',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
  cyberAssisted: false,
  ...overrides,
});

/** A one-row batch upload in the template's columns. */
async function uploadOne(agent: request.Agent, org: string): Promise<string> {
  const template = await agent.get('/api/records/template').responseType('blob').expect(200);
  const wb = XLSX.read(template.body as Buffer, { type: 'buffer' });
  const sheet = wb.Sheets[wb.SheetNames[0] as string] as XLSX.WorkSheet;
  const [header, example] = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true }) as unknown[][];
  const columns = header as string[];
  const row = (example as unknown[]).map((v, c) => {
    if (columns[c] === 'Incident Number') return `SM-UP-${org}-${Date.now().toString(36)}`;
    if (columns[c] === 'Suspect Name') return `Upload ${org} Matrixperson`;
    return v;
  });
  const filled = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(filled, XLSX.utils.aoa_to_sheet([columns, row]), 'Records');
  const file = XLSX.write(filled, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
  const accepted = await agent.post('/api/records/batch-upload?async=1').attach('file', file, 'm.xlsx').expect(202);
  const jobId = accepted.body.jobId as string;
  await waitUntil(
    'the upload done',
    async () => (await agent.get(`/api/ingest/jobs/${jobId}`).expect(200)).body.state === 'completed',
    30_000,
  );
  return jobId;
}

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
  admin = request.agent(gw.server);
  await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
  for (const org of ORGS) {
    const agent = (await signIn(gw.server, { organization: org })).agent;
    agents[org] = agent;
    const record = (await agent.post('/api/records').send(recordBody(org)).expect(201)).body.id as string;
    const deleted = (await agent.post('/api/records').send(recordBody(org)).expect(201)).body.id as string;
    await agent.delete(`/api/records/${deleted}`).expect(200);
    const report = (await agent.post('/api/generate-report').send({ parameters: 'Matrix' }).expect(200)).body
      .id as string;
    own[org] = { record, deleted, report, job: await uploadOne(agent, org) };
  }
}, 180_000);

/** Every path that names another agency's id: the viewer must be answered as if it did not exist. */
const BY_ID: ReadonlyArray<{
  name: string;
  send: (agent: request.Agent, theirs: (typeof own)[Org], mine: (typeof own)[Org]) => request.Test;
  names: 'record' | 'other';
}> = [
  { name: 'GET record', send: (a, t) => a.get(`/api/records/${t.record}`), names: 'record' },
  { name: 'GET edit form', send: (a, t) => a.get(`/api/records/${t.record}?purpose=edit`), names: 'record' },
  {
    name: 'PUT record',
    send: (a, t) => a.put(`/api/records/${t.record}`).send(recordBody('X', { suspectName: 'Overwritten' })),
    names: 'record',
  },
  { name: 'DELETE record', send: (a, t) => a.delete(`/api/records/${t.record}`), names: 'record' },
  { name: 'POST restore', send: (a, t) => a.post(`/api/records/${t.deleted}/restore`), names: 'record' },
  { name: 'GET links', send: (a, t) => a.get(`/api/records/${t.record}/links`), names: 'record' },
  { name: 'GET linked', send: (a, t) => a.get(`/api/records/${t.record}/linked`), names: 'record' },
  {
    name: 'POST link from theirs',
    send: (a, t, m) => a.post('/api/records/link').send({ sourceRecordId: t.record, linkedRecordId: m.record }),
    names: 'record',
  },
  { name: 'GET audit timeline', send: (a, t) => a.get(`/api/audit?recordId=${t.record}`), names: 'other' },
  { name: 'GET upload job', send: (a, t) => a.get(`/api/ingest/jobs/${t.job}`), names: 'other' },
  { name: 'GET report', send: (a, t) => a.get(`/api/reports/${t.report}`), names: 'other' },
  { name: 'GET report file', send: (a, t) => a.get(`/api/reports/${t.report}/markdown`), names: 'other' },
  { name: 'GET report job', send: (a, t) => a.get(`/api/reports/jobs/${t.report}`), names: 'other' },
];

/** The ADMIN-only paths: 403 for every agency. */
const ADMIN_ONLY: ReadonlyArray<[string, (a: request.Agent) => request.Test]> = [
  ['GET /api/admin/records', (a) => a.get('/api/admin/records')],
  ['GET /api/admin/stats', (a) => a.get('/api/admin/stats')],
  ['GET /api/admin/operations', (a) => a.get('/api/admin/operations')],
  ['GET /api/admin/contact-requests', (a) => a.get('/api/admin/contact-requests')],
  ['PUT /api/dropdown-options/source', (a) => a.put('/api/dropdown-options/source').send({ values: ['Only this'] })],
  ['PUT /api/dropdown-options/country', (a) => a.put('/api/dropdown-options/country').send({ values: ['Nowhere'] })],
  [
    'POST /api/admin/contact-requests/{id}/resolve',
    (a) => a.post(`/api/admin/contact-requests/${new Types.ObjectId().toHexString()}/resolve`),
  ],
];

/** What the matrix must leave as it was: each agency's records as ADMIN reads them, the options, the links. */
async function state() {
  const records: Record<string, unknown> = {};
  for (const org of ORGS) {
    for (const id of [own[org].record, own[org].deleted]) {
      const doc = await stack.recordsDb
        .collection('records')
        .findOne(
          { _id: new Types.ObjectId(id) },
          { projection: { version: 1, deleted: 1, suspectName: 1, updatedAt: 1 } },
        );
      records[id] = doc;
    }
  }
  const options = (await admin.get('/api/dropdown-options/source').expect(200)).body;
  const links = await stack.linkingDb.collection('links').countDocuments({});
  return { records, options, links };
}

describe('the isolation matrix', () => {
  it('refuses every agency on every path naming another agency’s id, as missing, and changes nothing', async () => {
    const before = await state();
    for (const viewer of ORGS) {
      for (const owner of ORGS) {
        if (owner === viewer) continue;
        for (const path of BY_ID) {
          const res = await path.send(agents[viewer], own[owner], own[viewer]);
          expect(res.status, `${viewer} ${path.name} of ${owner}`).toBe(404);
          expect(res.body.code, `${viewer} ${path.name} of ${owner}`).toBe('NOT_FOUND');
        }
      }
      for (const [name, send] of ADMIN_ONLY) {
        expect((await send(agents[viewer])).status, `${viewer} ${name}`).toBe(403);
      }
    }
    expect(await state()).toEqual(before);
    // The linking service answers a refused id made in the last minute after RECORD_WAIT_MS (issue
    // 34; 1 s in this stack), as for a record whose event is on its way: 18 of them here.
  }, 120_000);

  it('serves each agency its own ids and ADMIN everyone’s (the matrix is not refusing everything)', async () => {
    for (const org of ORGS) {
      const mine = own[org];
      await agents[org].get(`/api/records/${mine.record}`).expect(200);
      await agents[org].get(`/api/records/${mine.record}/links`).expect(200);
      await agents[org].get(`/api/audit?recordId=${mine.record}`).expect(200);
      await agents[org].get(`/api/ingest/jobs/${mine.job}`).expect(200);
      await agents[org].get(`/api/reports/${mine.report}`).expect(200);
      await admin.get(`/api/records/${mine.record}`).expect(200);
      await admin.get(`/api/audit?recordId=${mine.record}`).expect(200);
    }
    for (const [name, send] of ADMIN_ONLY.slice(0, 4)) expect((await send(admin)).status, name).toBe(200);
  });

  it('lists and searches show an agency its own records only', async () => {
    for (const org of ORGS) {
      const others = ORGS.filter((o) => o !== org).flatMap((o) => [own[o].record, own[o].deleted]);
      const ids = [
        ...(await agents[org].get('/api/records?limit=1000').expect(200)).body,
        ...(await agents[org].get('/api/records/deleted?limit=1000').expect(200)).body,
        ...(await agents[org].post('/api/records/search').send({ freeText: 'matrix' }).expect(200)).body,
      ].map((r: { id: string }) => r.id);
      expect(ids).toContain(own[org].record);
      for (const id of others) expect(ids, `${org} sees ${id}`).not.toContain(id);
      const reports = (await agents[org].get('/api/reports').expect(200)).body.items.map((r: { id: string }) => r.id);
      expect(reports).toEqual([own[org].report]);
    }
  });

  it('figures count an agency’s own records only: the dashboard, its breakdown and the links summary', async () => {
    const perAgency = (await admin.get('/api/admin/stats').expect(200)).body;
    const adminTotal = (await admin.get('/api/stats').expect(200)).body.totalRecords;
    const byOrg: Record<Org, number> = {
      BPS: perAgency.bpsRecords,
      FIA: perAgency.fiaRecords,
      CUS: perAgency.cusRecords,
    };
    expect(adminTotal).toBe(byOrg.BPS + byOrg.FIA + byOrg.CUS);
    for (const org of ORGS) {
      expect(byOrg[org], org).toBeGreaterThan(0);
      const mine = (await agents[org].get('/api/stats').expect(200)).body;
      expect(mine.totalRecords, `${org} dashboard`).toBe(byOrg[org]);
      const countries = (await agents[org].get('/api/stats/countries').expect(200)).body as Array<{ count: number }>;
      expect(
        countries.reduce((n, c) => n + c.count, 0),
        `${org} countries`,
      ).toBeLessThanOrEqual(byOrg[org]);
      await agents[org].get('/api/stats/breakdown').expect(200);
      const summary = (await agents[org].get('/api/links/summary').expect(200)).body;
      expect(JSON.stringify(summary), `${org} links summary names no record`).not.toMatch(/[0-9a-f]{24}/);
    }
  });

  it('finds every agency’s attempts on another agency’s record in the audit trail', async () => {
    for (const owner of ORGS) {
      const attempted = ORGS.filter((o) => o !== owner);
      await waitUntil(
        `${owner}'s timeline holds the refusals`,
        async () => {
          const page = (await admin.get(`/api/audit?recordId=${own[owner].record}&limit=200`).expect(200)).body;
          const refused = page.items.filter((i: { action: string }) => i.action === 'access.refused');
          return attempted.every((o) => refused.some((i: { organization: string }) => i.organization === o));
        },
        20_000,
      );
    }
  });
});

/** Every JSON path, a valid body for it, and who sends it. */
const JSON_PATHS: ReadonlyArray<{
  name: string;
  as: Org | 'ADMIN' | 'nobody';
  method: 'post' | 'put';
  path: () => string;
  body: () => Record<string, unknown>;
}> = [
  { name: 'create record', as: 'BPS', method: 'post', path: () => '/api/records', body: () => recordBody('BPS') },
  {
    name: 'edit record',
    as: 'BPS',
    method: 'put',
    path: () => `/api/records/${own.BPS.record}`,
    body: () => recordBody('BPS'),
  },
  { name: 'search', as: 'BPS', method: 'post', path: () => '/api/records/search', body: () => ({ freeText: 'x' }) },
  {
    name: 'NAMLC check',
    as: 'BPS',
    method: 'post',
    path: () => '/api/records/check-namlc-matches',
    body: () => ({
      namlcOrganization: 'FIA',
      suspectName: 'Someone Else',
      suspectDob: '1970-01-01',
      incidentDate: '2024-01-01',
      caseAmount: '10',
    }),
  },
  {
    name: 'link',
    as: 'BPS',
    method: 'post',
    path: () => '/api/records/link',
    body: () => ({ sourceRecordId: own.BPS.record, linkedRecordId: own.FIA.record }),
  },
  { name: 'report', as: 'BPS', method: 'post', path: () => '/api/generate-report', body: () => ({ parameters: 'x' }) },
  {
    name: 'contact admin',
    as: 'BPS',
    method: 'post',
    path: () => '/api/contact-admin',
    body: () => ({ subject: 'x', message: 'y' }),
  },
  { name: 'update name', as: 'BPS', method: 'put', path: () => '/api/auth/update-name', body: () => ({ name: 'Z' }) },
  {
    name: 'options',
    as: 'ADMIN',
    method: 'put',
    path: () => '/api/dropdown-options/source',
    body: () => ({ values: ['Police Investigation'] }),
  },
  {
    name: 'register',
    as: 'nobody',
    method: 'post',
    path: () => '/api/auth/register',
    body: () => ({
      name: 'Mallory',
      email: `m.${++counter}@x.bm`,
      password: 'a long enough password',
      role: 'Analyst',
      organization: 'BPS',
    }),
  },
  {
    name: 'sign in',
    as: 'nobody',
    method: 'post',
    path: () => '/api/auth/login',
    body: () => ({ email: ADMIN.email, password: ADMIN.password }),
  },
];

/** The first text field of a body (a `$`-operator goes there). */
const firstText = (body: Record<string, unknown>) =>
  Object.keys(body).find((k) => typeof body[k] === 'string') as string;

const HOSTILE: ReadonlyArray<[string, (body: Record<string, unknown>) => string, number]> = [
  ['a $-key at the top', (b) => JSON.stringify({ ...b, $where: '1 == 1' }), 400],
  ['a $-operator in a field', (b) => JSON.stringify({ ...b, [firstText(b)]: { $gt: '' } }), 400],
  ['__proto__', (b) => `{"__proto__":{"polluted":true},${JSON.stringify(b).slice(1)}`, 400],
  ['constructor.prototype', (b) => JSON.stringify({ ...b, constructor: { prototype: { polluted: true } } }), 400],
  ['an oversized body', (b) => JSON.stringify({ ...b, pad: 'x'.repeat(2_000_000) }), 413],
];

/** What any JSON path could store: every collection of the services' databases but the audit trail's. */
async function stored() {
  const counts: Record<string, number> = {};
  const dbs: Array<[string, Connection]> = [
    ['auth', stack.db],
    ['records', stack.recordsDb],
    ['linking', stack.linkingDb],
  ];
  for (const [name, db] of dbs) {
    for (const c of await (db.db as NonNullable<Connection['db']>).listCollections().toArray()) {
      if (c.name === 'audit_spool') continue;
      counts[`${name}.${c.name}`] = await db.collection(c.name).countDocuments({});
    }
  }
  const reports = (await admin.get('/api/reports').expect(200)).body.total as number;
  const options = (await admin.get('/api/dropdown-options/source').expect(200)).body;
  const name = (await agents.BPS.get('/api/auth/user').expect(200)).body.user.name;
  return { counts, reports, options, name };
}

describe('hostile bodies on every JSON path', () => {
  it('refuses $-keys, prototype keys and oversized bodies, storing nothing', async () => {
    const before = await stored();
    for (const p of JSON_PATHS) {
      for (const [what, make, status] of HOSTILE) {
        const agent = p.as === 'nobody' ? request(gw.server) : p.as === 'ADMIN' ? admin : agents[p.as];
        const res = await agent[p.method](p.path())
          .set('x-forwarded-for', nextIp())
          .set('content-type', 'application/json')
          .send(make(p.body()));
        expect(res.status, `${p.name}: ${what}`).toBe(status);
        expect(res.body.code, `${p.name}: ${what}`).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR');
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await stored()).toEqual(before);
  });
});

describe('sessions', () => {
  it('a session id from before sign-in, and the cookie of a signed-out session, are worth nothing', async () => {
    const { agent, body, ip, login } = await signIn(gw.server, { organization: 'CUS' });
    const first = cookieJar(login);
    const again = await agent
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: body.email, password: body.password })
      .expect(200);
    const second = cookieJar(again);
    expect(second).not.toBe(first);
    await request(gw.server).get('/api/records').set('cookie', first).expect(401);
    await request(gw.server).get('/api/records').set('cookie', second).expect(200);

    await agent.post('/api/auth/logout').expect(200);
    const before = await stack.recordsDb.collection('records').countDocuments({});
    const replays: Array<(r: request.Agent | ReturnType<typeof request>) => request.Test> = [
      (r) => r.get('/api/records'),
      (r) => r.get(`/api/records/${own.CUS.record}`),
      (r) => r.post('/api/records').send(recordBody('CUS')),
      (r) => r.get(`/api/audit?recordId=${own.CUS.record}`),
      (r) => r.get('/api/stats'),
      (r) => r.post('/api/generate-report').send({ parameters: 'x' }),
      (r) => r.get('/api/auth/user'),
    ];
    for (const replay of replays) {
      const res = await replay(request(gw.server)).set('cookie', second);
      expect(res.status).toBe(401);
    }
    expect(await stack.recordsDb.collection('records').countDocuments({})).toBe(before);
  });
});

describe('identity tokens sent straight to each service', () => {
  const user: Identity = {
    kind: 'user',
    userId: '0123456789abcdef01234567',
    name: 'Forger',
    organization: 'ADMIN',
    role: 'Analyst',
  };
  const forged = () => signIdentity(user, parseSigner('gateway', newIdentityKeyPair().privateKey));
  const expired = () =>
    new SignJWT({ id: user })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('gateway')
      .setAudience('nrad-services')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(TEST_GATEWAY_SIGNER.key);
  /** ADMIN, as a service that holds its own key (ingest's) would mint it (issue 37). */
  const minted = () =>
    new SignJWT({ id: user })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('ingest')
      .setAudience('nrad-services')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(testSigner('ingest').key);
  const unsigned = async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    return `${part({ alg: 'none' })}.${part({ id: user, iss: 'nrad-gateway', aud: 'nrad-services', exp: now + 60 })}.`;
  };

  it('refuses a forged, an expired and an unsigned token on every service, storing nothing', async () => {
    const paths: Record<string, Array<[method: 'get' | 'post', path: string, body?: object]>> = {
      auth: [
        ['get', '/api/admin/contact-requests'],
        ['post', '/api/contact-admin', { subject: 'x', message: 'y' }],
      ],
      records: [
        ['get', '/api/admin/records'],
        ['post', '/api/records', recordBody('BPS')],
      ],
      linking: [['post', '/api/records/link', { sourceRecordId: own.BPS.record, linkedRecordId: own.FIA.record }]],
      stats: [['get', '/api/admin/stats']],
      ingest: [['get', `/api/ingest/jobs/${own.BPS.job}`]],
      report: [['post', '/api/generate-report', { parameters: 'x' }]],
      audit: [['get', '/api/audit']],
      ops: [['get', '/api/admin/operations']],
    };
    // The service-only paths: a user's token (even a good one) is not a service's.
    const internal: Array<[service: string, path: string, body: object]> = [
      ['records', '/internal/records/import', { owner: user, items: [{ key: 'forged:2', body: recordBody('BPS') }] }],
      ['auth', '/internal/credentials/verify', { email: 'admin@nrad.local', password: 'x' }],
    ];
    const urls: Record<string, string> = { ...stack.serviceUrls, ops: stack.opsUrl };
    const before = await stored();
    for (const [service, list] of Object.entries(paths)) {
      const url = urls[service] as string;
      for (const [method, path, body] of list) {
        for (const [kind, token] of [
          ['forged', await forged()],
          ['expired', await expired()],
          ['unsigned', await unsigned()],
          ['minted by a service', await minted()],
          ['none', ''],
        ] as const) {
          let req = request(url)[method](path);
          if (token) req = req.set(IDENTITY_HEADER, token);
          const res = await (body ? req.send(body) : req);
          expect(res.status, `${service} ${method} ${path} with a ${kind} token`).toBe(401);
        }
      }
    }
    for (const [service, path, body] of internal) {
      for (const [kind, token] of [
        ['forged', await forged()],
        ['expired', await expired()],
        ['a user’s good', await testToken(user)],
        ['minted by a service', await minted()],
        // A service vouching for itself on another's internal path.
        ['the linking service’s own', await testToken({ kind: 'service', service: 'linking' })],
        ['the report service’s own', await testToken({ kind: 'service', service: 'report' })],
        ['none', ''],
      ] as const) {
        let req = request(urls[service] as string).post(path);
        if (token) req = req.set(IDENTITY_HEADER, token);
        const res = await req.send(body);
        expect([401, 403], `${service} POST ${path} with ${kind} token: ${res.status}`).toContain(res.status);
      }
    }
    expect(await stored()).toEqual(before);
  });
});
