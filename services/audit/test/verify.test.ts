import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FERRETDB_BINARY, REPO_ROOT, startFerretdb } from '@nrad/infra';
import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore, ENTRIES_COLLECTION } from '../src/data/store.ts';
import { verifyCommand } from '../src/verify-command.ts';
import { auditEvent } from './harness.ts';

/** `npm run audit:verify`: its logic on the test store, and the command itself on a data directory. */
const t = testNamespace();
const dbName = t.db('audit');
const db = await connectMongo({ url: t.mongoUrl, dbName });
afterAll(() => db.close());
const store = new AuditStore(db);
await store.init();

beforeEach(async () => {
  await store.entries.deleteMany({});
  await store.anchors.deleteMany({});
});

async function run(env: Record<string, string>) {
  const lines: string[] = [];
  const code = await verifyCommand(env, [], (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

describe('audit:verify', () => {
  it('says the chain holds, with the entries checked', async () => {
    for (let k = 0; k < 7; k++) await store.append(auditEvent());
    expect(await run({ MONGO_URL: t.mongoUrl, MONGO_DB: dbName })).toEqual({
      code: 0,
      out: `7 entries checked in ${dbName}: the chain holds (up to seq 7).`,
    });
  });

  it('names the first entry edited in the database with the raw driver, by seq, and fails', async () => {
    for (let k = 0; k < 7; k++) await store.append(auditEvent());
    await db.collection(ENTRIES_COLLECTION).updateOne({ _id: 5 as never }, { $set: { action: 'sign-out' } });
    const { code, out } = await run({ MONGO_URL: t.mongoUrl, MONGO_DB: dbName });
    expect(code).toBe(1);
    expect(out).toBe(
      `5 entries checked in ${dbName}: the chain does not hold.\n` +
        'First broken entry: seq 5: its fields do not hash to its hash (the entry was changed).',
    );
  });

  it('reads only: an empty or missing database holds and is not created', async () => {
    const missing = t.db('audit_never');
    expect(await run({ MONGO_URL: t.mongoUrl, MONGO_DB: missing })).toEqual({
      code: 0,
      out: `0 entries checked in ${missing}: the chain holds.`,
    });
    const { databases } = await db.getClient().db().admin().listDatabases();
    expect(databases.map((d) => d.name)).not.toContain(missing);
  });

  it('fails with a message when the settings are wrong or the database does not answer', async () => {
    expect(await run({ MONGO_DB: dbName })).toMatchObject({ code: 1, out: expect.stringMatching(/MONGO_URL/) });
    const lines: string[] = [];
    expect(await verifyCommand({ MONGO_URL: t.mongoUrl }, ['--all'], (l) => lines.push(l))).toBe(2);
    expect(lines.join('\n')).toMatch(/^usage: audit-verify/);
  });
});

/** The command as `npm run audit:verify` runs it, on a data directory as `npm start` leaves it. */
describe.skipIf(!existsSync(FERRETDB_BINARY))('npm run audit:verify on the data of npm start', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-audit-verify-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const verify = () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !['MONGO_URL', 'MONGO_DB', 'NATS_URL'].includes(k)),
    );
    const res = spawnSync(process.execPath, [path.join(REPO_ROOT, 'services/audit/bin/audit-verify.mjs')], {
      cwd: REPO_ROOT,
      env: { ...env, NRAD_DATA_DIR: dir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: res.status, out: res.stdout, err: res.stderr };
  };

  it('reads the FerretDB that runs on it, and starts one of its own when none does', async () => {
    expect(verify()).toMatchObject({ code: 1, err: expect.stringMatching(/^No data at /) });

    // As npm start runs it: the data directory's ferretdb/ (the audit service's database, nrad_audit).
    const mongo = await startFerretdb({ sqliteDir: path.join(dir, 'ferretdb') });
    try {
      const conn = await connectMongo({ url: mongo.url, dbName: 'nrad_audit' });
      try {
        const running = new AuditStore(conn);
        await running.init();
        for (let k = 0; k < 4; k++) await running.append(auditEvent());
        const holds = verify();
        expect(holds, holds.err).toMatchObject({ code: 0, err: expect.stringContaining("running system's FerretDB") });
        expect(holds.out).toContain('4 entries checked in nrad_audit: the chain holds (up to seq 4).');

        await conn.collection(ENTRIES_COLLECTION).updateOne({ _id: 2 as never }, { $set: { recordIds: ['other'] } });
        const broken = verify();
        expect(broken.code, broken.err).toBe(1);
        expect(broken.out).toContain('First broken entry: seq 2:');
      } finally {
        await conn.close();
      }
    } finally {
      await mongo.process.stop();
    }

    // Nothing serves the directory now: the command starts FerretDB on it, and stops it after.
    const alone = verify();
    expect(alone, alone.err).toMatchObject({ code: 1, err: expect.stringContaining('Starting the embedded FerretDB') });
    expect(alone.out).toContain('First broken entry: seq 2:');
  }, 120_000);
});
