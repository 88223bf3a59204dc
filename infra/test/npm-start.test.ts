import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/paths.ts';
import { freePort } from '../src/ports.ts';
import { SpecClient } from './spec-client.ts';

/**
 * `npm start` as a user runs it (node scripts/start.mjs), on its embedded defaults in a fresh data
 * directory, exercised by a client that knows only SPEC §7; then Ctrl-C, and a second start that
 * must find the data again.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nrad-start-'));
const running = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function npmStart(port: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, NRAD_DATA_DIR: dataDir, GATEWAY_PORT: String(port) };
  for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'ADMIN_PASSWORD', 'ADMIN_EMAIL']) delete env[name];
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 120_000;
  // The sign-in line follows "NRAD is up at" and may arrive in a later chunk of the output (seen
  // under a loaded CI run): wait for both, whole.
  while (!/NRAD is up at \S+\n/.test(output) || !/Sign in as admin: .*\n/.test(output)) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const admin = /Sign in as admin: (\S+) \/ (\S+)/.exec(output);
  return {
    url: (/NRAD is up at (\S+)/.exec(output) as RegExpExecArray)[1] as string,
    admin: { email: admin?.[1] as string, password: admin?.[2] as string },
    output: () => output,
    async stop() {
      child.kill('SIGINT');
      const code = await exited;
      running.delete(child);
      return code;
    },
  };
}

describe('npm start', () => {
  it('brings the system up; a SPEC §7 client uses it; Ctrl-C stops it; a second start keeps the data', async () => {
    const port = await freePort();
    const first = await npmStart(port);
    expect(first.url).toBe(`http://localhost:${port}`);
    expect(first.admin.email).toBe('admin@nrad.local');

    const anon = new SpecClient(first.url);
    expect((await anon.get('/api/health')).status).toBe(200);
    expect((await anon.get('/api/auth/user')).status).toBe(401);
    // The web app: the shell at every screen path, the settings remote in the manifest.
    for (const screen of ['/', '/login', '/settings']) {
      const page = await fetch(`${first.url}${screen}`);
      expect(page.headers.get('content-type'), screen).toContain('text/html');
      expect(await page.text(), screen).toContain('<div id="root">');
    }
    expect(await (await fetch(`${first.url}/mf/remotes.json`)).json()).toEqual({
      remotes: ['admin', 'dashboard', 'ingest', 'records', 'search', 'settings'].map((name) => ({
        name,
        entry: `/mf/${name}/mf-manifest.json`,
      })),
    });

    const users: Record<string, { email: string; password: string }> = {};
    const recordIds: Record<string, string> = {};
    for (const organization of ['BPS', 'FIA', 'CUS']) {
      const email = `${organization.toLowerCase()}.officer@gov.bm`;
      const password = `${organization}-secret-pw`;
      const reg = await anon.post('/api/auth/register', {
        name: `${organization} Officer`,
        email,
        password,
        role: 'Investigator',
        organization,
      });
      expect(reg.status).toBe(201);
      users[organization] = { email, password };

      const client = new SpecClient(first.url);
      const login = await client.post('/api/auth/login', { email, password });
      expect(login.status).toBe(200);
      expect((await client.get('/api/auth/user')).body.user).toMatchObject({ organization, role: 'Investigator' });
      expect((await client.put('/api/auth/update-name', { name: `${organization} Renamed` })).status).toBe(200);
      expect((await client.get('/api/auth/user')).body.user.name).toBe(`${organization} Renamed`);
      expect((await client.post('/api/contact-admin', { subject: 'Hello', message: 'From the field' })).status).toBe(
        201,
      );
      const record = await client.post('/api/records', {
        incidentNumber: `${organization}-2025-001`,
        suspectName: 'Jane Roe',
        suspectDob: '1990-02-03',
        incidentDate: '2025-04-05',
        caseAmount: '1000.5',
        sourceOfRecord: 'Police Investigation',
        internationalNexus: false,
      });
      expect(record.status).toBe(201);
      expect(record.body).toMatchObject({ organization, caseAmount: '1000.50', country: 'Bermuda' });
      recordIds[organization] = record.body.id;
      expect((await client.get('/api/records')).body.map((r: { id: string }) => r.id)).toEqual([record.body.id]);
      expect((await client.post('/api/records/search', { suspectName: 'roe jane' })).body).toHaveLength(1);
      const cookie = client.cookieHeader();
      expect((await client.post('/api/auth/logout')).status).toBe(200);
      const replay = await fetch(`${first.url}/api/auth/user`, { headers: { cookie } });
      expect(replay.status).toBe(401);
    }

    const dup = await anon.post('/api/auth/register', {
      name: 'Dup',
      email: 'BPS.OFFICER@gov.bm',
      password: 'another-password',
      role: 'x',
      organization: 'FIA',
    });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain('User already exists');
    expect(
      (
        await anon.post('/api/auth/register', {
          name: 'A',
          email: 'a@b.bm',
          password: 'long-enough',
          role: 'r',
          organization: 'ADMIN',
        })
      ).status,
    ).toBe(400);
    expect((await anon.post('/api/auth/login', { email: { $gt: '' }, password: 'x' })).status).toBe(400);
    expect((await anon.post('/api/auth/login', '{"email":')).status).toBe(400);

    const admin = new SpecClient(first.url);
    const adminLogin = await admin.post('/api/auth/login', first.admin);
    expect(adminLogin.status).toBe(200);
    expect(adminLogin.body.user.organization).toBe('ADMIN');
    const everyAgency = await admin.get('/api/admin/records');
    expect(
      everyAgency.body.map((r: { organization: string; amount: string }) => [r.organization, r.amount]).sort(),
    ).toEqual([
      ['BPS', '1000.50'],
      ['CUS', '1000.50'],
      ['FIA', '1000.50'],
    ]);

    // The same suspect in three agencies: each record is linked to the other two, with reasons.
    const bpsId = recordIds.BPS as string;
    let links: Array<{ linkedRecord: { organization: string }; confidence: number; explanation: unknown[] }> = [];
    for (let i = 0; i < 100 && links.length < 2; i++) {
      links = (await admin.get(`/api/records/${bpsId}/links`)).body;
      if (links.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(links.map((l) => l.linkedRecord.organization).sort()).toEqual(['CUS', 'FIA']);
    for (const l of links) expect(l.explanation).toHaveLength(4);
    const check = await admin.post('/api/records/check-namlc-matches', {
      namlcOrganization: 'Customs',
      suspectName: 'Roe, Jane',
      suspectDob: '1990-02-03',
      incidentDate: '2025-04-05',
      caseAmount: '1000.50',
    });
    expect(check.status).toBe(200);
    expect(check.body.matches.map((m: { id: string }) => m.id)).toEqual([recordIds.CUS]);

    // Statistics: one record per agency, counted from the records.* events.
    let counts: Record<string, number> = {};
    for (let i = 0; i < 100 && counts.cusRecords !== 1; i++) {
      counts = (await admin.get('/api/admin/stats')).body;
      if (counts.cusRecords !== 1) await new Promise((r) => setTimeout(r, 100));
    }
    expect(counts).toEqual({ bpsRecords: 1, fiaRecords: 1, cusRecords: 1 });

    // A report without a model configured: written from the template, which says so, over every agency.
    expect(first.output()).toContain('Reports: written from a template (no AI model configured');
    const report = await admin.post('/api/generate-report', { parameters: 'Year in review' });
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ model: 'template' });
    expect(report.body.report).toMatch(/^> \*\*Written from a template, not by AI\.\*\*/);
    expect(report.body.report).toContain('- Records: 3');
    expect(report.body.report).toContain('| BPS – CUS | 1 | 1 | 0 |');
    expect((await admin.get('/api/reports')).body).toMatchObject({ total: 1, items: [{ id: report.body.id }] });

    // The operations console: every service ready with the build npm start bundled, the queues and
    // the streams; /metrics is not on the public port.
    const ops = await admin.get('/api/admin/operations');
    expect(ops.status).toBe(200);
    expect(ops.body.problems).toEqual([]);
    expect(ops.body.services.map((s: { name: string }) => s.name)).toEqual([
      'auth',
      'records',
      'linking',
      'stats',
      'ingest',
      'report',
      'audit',
    ]);
    for (const s of ops.body.services) expect(s.version).toMatch(/^0\.1\.0(\+[0-9a-f]+)?$/);
    expect(ops.body.queues.map((q: { name: string }) => q.name)).toEqual(['ingest', 'report']);
    expect(ops.body.streams.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['LINKS', 'RECORDS']));
    expect((await fetch(`${first.url}/metrics`)).status).toBe(404);

    // Lockout: five failures lock the account, even against the right password.
    const victim = users.CUS as { email: string; password: string };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await anon.post('/api/auth/login', { email: victim.email, password: 'wrong' })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 423]);
    const locked = await anon.post('/api/auth/login', victim);
    expect(locked.status).toBe(423);
    expect(locked.body.message).toMatch(/locked/);

    expect(await first.stop()).toBe(0);
    expect(first.output()).toContain('Stopped.');
    await expect(fetch(`${first.url}/api/health`)).rejects.toThrow();

    const second = await npmStart(port);
    expect(second.admin).toEqual(first.admin);
    const again = new SpecClient(second.url);
    const relogin = await again.post('/api/auth/login', users.BPS);
    expect(relogin.status).toBe(200);
    expect(relogin.body.user.name).toBe('BPS Renamed');
    const kept = await again.get('/api/records');
    expect(kept.body.map((r: { incidentNumber: string }) => r.incidentNumber)).toEqual(['BPS-2025-001']);
    expect((await again.get('/api/stats')).body).toMatchObject({ totalRecords: 1, internationalCases: 0 });
    expect(kept.body[0]).toMatchObject({ linked: true, linkedOrganizations: ['CUS', 'FIA'] });
    const linked = await again.get(`/api/records/${bpsId}/linked`);
    expect(linked.body.map((r: { organization: string }) => r.organization).sort()).toEqual(['CUS', 'FIA']);
    expect(await second.stop()).toBe(0);
  }, 300_000);
});
