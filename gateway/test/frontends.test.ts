import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from '../src/config.ts';
import { IMMUTABLE, REVALIDATE } from '../src/frontends.ts';
import { startAuthStack } from './stack.ts';

/** Built frontends as the build writes them, in a folder of this test's own. */
const dir = mkdtempSync(path.join(tmpdir(), 'nrad-frontends-'));
const put = (file: string, text: string, gz = false) => {
  const full = path.join(dir, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  if (gz) writeFileSync(`${full}.gz`, gzipSync(text));
};
put('shell/dist/index.html', '<!doctype html><title>NRAD</title><div id="root"></div>', true);
put('shell/dist/assets/main.0123456789ab.js', 'console.log("shell")', true);
put('shell/dist/assets/main.0123456789ab.js.map', '{"secret":"source"}');
put('settings/dist/mf-manifest.json', '{"name":"settings"}', true);
put('settings/dist/remoteEntry.js', 'var settings = 1;');
put('settings/dist/615.abcdefabcdef.js', 'chunk()');
put('admin/dist/index.txt', 'not a remote: no mf-manifest.json');
put('secret.txt', 'outside every dist');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;
beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway({ FRONTENDS_DIR: dir });
});

describe('serving the built frontends', () => {
  it('answers the shell for every screen path, revalidated, and 404 for missing files', async () => {
    for (const p of ['/', '/login', '/record/abc/edit', '/settings', '/no/such/screen']) {
      const res = await request(gw.server).get(p).expect(200);
      expect(res.type).toBe('text/html');
      expect(res.text).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe(REVALIDATE);
    }
    await request(gw.server).get('/favicon.ico').expect(404);
    await request(gw.server).get('/assets/nothing.0123456789ab.js').expect(404);
    await request(gw.server).post('/settings').expect(404);
  });

  it('caches hashed files for a year and entry files never, gzip when the browser takes it', async () => {
    const hashed = await request(gw.server)
      .get('/assets/main.0123456789ab.js')
      .set('Accept-Encoding', 'gzip')
      .expect(200);
    expect(hashed.headers['cache-control']).toBe(IMMUTABLE);
    expect(hashed.headers['content-encoding']).toBe('gzip');
    expect(hashed.headers.vary).toContain('Accept-Encoding');
    expect(hashed.text).toBe('console.log("shell")');
    const plain = await request(gw.server).get('/assets/main.0123456789ab.js').set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.type).toBe('text/javascript');
    const entry = await request(gw.server).get('/mf/settings/remoteEntry.js').expect(200);
    expect(entry.headers['cache-control']).toBe(REVALIDATE);
    const chunk = await request(gw.server).get('/mf/settings/615.abcdefabcdef.js').expect(200);
    expect(chunk.headers['cache-control']).toBe(IMMUTABLE);
    // A repeated request for an unchanged file is answered 304.
    const again = await request(gw.server)
      .get('/mf/settings/remoteEntry.js')
      .set('If-Modified-Since', entry.headers['last-modified'] as string)
      .expect(304);
    expect(again.text ?? '').toBe('');
    const head = await request(gw.server).head('/assets/main.0123456789ab.js').expect(200);
    expect(head.headers['content-length']).toBe(String('console.log("shell")'.length));
  });

  it('lists the built remotes in /mf/remotes.json, with MF_REMOTES over them', async () => {
    const res = await request(gw.server).get('/mf/remotes.json').expect(200);
    expect(res.headers['cache-control']).toBe(REVALIDATE);
    expect(res.body).toEqual({ remotes: [{ name: 'settings', entry: '/mf/settings/mf-manifest.json' }] });
    const moved = stack.gateway({
      FRONTENDS_DIR: dir,
      MF_REMOTES: JSON.stringify({
        settings: 'https://cdn.example.bm/settings/mf-manifest.json',
        search: '/elsewhere/x.json',
      }),
    });
    const answer = await request(moved.server).get('/mf/remotes.json').expect(200);
    expect(answer.body.remotes).toEqual([
      { name: 'settings', entry: 'https://cdn.example.bm/settings/mf-manifest.json' },
      { name: 'search', entry: '/elsewhere/x.json' },
    ]);
    // The policy lets the moved remote's scripts and manifest in, and nothing else.
    const csp = (await request(moved.server).get('/')).headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self' https://cdn.example.bm;");
    expect(csp).toContain("connect-src 'self' https://cdn.example.bm;");
    expect(csp).not.toContain('unsafe-eval');
    const own = (await request(gw.server).get('/')).headers['content-security-policy'] as string;
    expect(own).toContain("script-src 'self';");
  });

  it('serves nothing outside a dist folder, no source maps and no hidden files', async () => {
    for (const p of [
      '/assets/main.0123456789ab.js.map',
      '/assets/..%2F..%2F..%2Fsecret.txt',
      '/mf/settings/..%2F..%2Fsecret.txt',
      '/mf/settings/%2e%2e/%2e%2e/secret.txt',
      '/mf/shell/index.html',
      '/mf/ADMIN/x.js',
      '/mf/settings/.hidden',
      '/mf/settings/remoteEntry.js.gz',
      '/mf/nothing/remoteEntry.js',
    ]) {
      const res = await request(gw.server).get(p);
      // A dot segment or an encoded slash is refused before anything looks for a file (request-checks.ts).
      expect(res.status, p).toBe(/%2f|%2e/i.test(p) ? 400 : 404);
      expect(res.text, p).not.toContain('outside every dist');
      expect(res.text, p).not.toContain('secret');
    }
  });

  it('says plainly when the app is not built, and keeps /api working', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'nrad-frontends-empty-'));
    try {
      const bare = stack.gateway({ FRONTENDS_DIR: empty });
      const res = await request(bare.server).get('/').expect(503);
      expect(res.text).toContain('not built');
      expect((await request(bare.server).get('/mf/remotes.json').expect(200)).body).toEqual({ remotes: [] });
      await request(bare.server).get('/api/auth/user').expect(401);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('refuses a malformed MF_REMOTES at start, naming the variable', () => {
    const base = {
      REDIS_URL: 'redis://127.0.0.1:6379',
      NATS_URL: 'nats://127.0.0.1:4222',
      ...testIdentityEnv('gateway'),
      SESSION_SECRET: 's'.repeat(40),
      AUTH_URL: 'http://127.0.0.1:1',
      RECORDS_URL: 'http://127.0.0.1:2',
      LINKING_URL: 'http://127.0.0.1:3',
      STATS_URL: 'http://127.0.0.1:4',
      INGEST_URL: 'http://127.0.0.1:5',
      REPORT_URL: 'http://127.0.0.1:6',
      OPS_URL: 'http://127.0.0.1:7',
      AUDIT_URL: 'http://127.0.0.1:8',
    };
    for (const bad of ['not json', '{"Settings":"/x"}', '{"settings":"javascript:alert(1)"}', '[1]']) {
      const parsed = GatewayConfigSchema.safeParse({ ...base, MF_REMOTES: bad });
      expect(parsed.success, bad).toBe(false);
      expect(JSON.stringify(parsed.error?.issues), bad).toContain('MF_REMOTES');
    }
    expect(GatewayConfigSchema.parse(base).MF_REMOTES).toEqual({});
  });
});
