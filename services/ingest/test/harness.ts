import { IDENTITY_HEADER, type Organization, type UserIdentity } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { recordsBeside } from '@nrad/records-service/test-support';
import { closeServer, connectMongo, createLogger, listen, signIdentity } from '@nrad/service-kit';
import { Types } from 'mongoose';
import request from 'supertest';
import { afterAll } from 'vitest';
import * as XLSX from 'xlsx';
import { createApp } from '../src/app.ts';
import type { IngestConfig } from '../src/config.ts';
import { TEMPLATE_COLUMNS } from '../src/domain/index.ts';
import { ingestTestConfig } from '../src/test-support.ts';

export const SECRET = 'g'.repeat(40);
export const logger = createLogger({ name: 'ingest-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });

export function userOf(organization: Organization, name = `${organization} officer`): UserIdentity {
  return { kind: 'user', userId: new Types.ObjectId().toHexString(), name, organization, role: 'Analyst' };
}

/** The template's header row. */
export const HEADER = TEMPLATE_COLUMNS.map((c) => c.title);

let made = 0;
/** A valid row of `HEADER`, with a new incident number each call. */
export function goodRow(overrides: Partial<Record<(typeof HEADER)[number], unknown>> = {}): unknown[] {
  made += 1;
  const row: Record<string, unknown> = {
    'Incident Number': `UP-${Date.now().toString(36)}-${made}`,
    'Suspect Name': 'Jane Upload',
    'Suspect Date of Birth': '1981-02-03',
    'Incident Date': '2024-05-06',
    'Case Amount': 1500.5,
    'Seized Amount': 0,
    'Confiscated Amount': 0,
    'Source of Record': 'Police Investigation',
    'NAMLC Organization': '',
    'International Nexus': 'No',
    'Cyber-Assisted': 'No',
    Country: 'Bermuda',
    'Crime Type': '',
    'Crime Subtype': '',
    'Additional Information': '',
    ...overrides,
  };
  return HEADER.map((h) => row[h]);
}

/** An .xlsx of a header and rows (arrays of cell values), as bytes. */
export function workbook(rows: unknown[][], header: string[] = HEADER): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([header, ...rows]), 'Records');
  return Buffer.from(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
}

/**
 * The ingest service beside a records service on real ports (the worker calls the records service
 * over HTTP as in production), in this file's namespace. `start()` builds another ingest instance
 * on the same database and queue (a restart, or a second worker).
 */
export async function startIngest(overrides: Record<string, string> = {}) {
  const t = testNamespace();
  const records = await recordsBeside(t, { identitySecret: SECRET, logger, name: 'ingest-test' });
  const recordsServer = await listen(records.built.app, 0, '127.0.0.1');
  const recordsUrl = `http://127.0.0.1:${recordsServer.port}`;
  const config = (more: Record<string, string> = {}): IngestConfig =>
    ingestTestConfig({
      identitySecret: SECRET,
      mongoUrl: t.mongoUrl,
      redisUrl: t.redisUrl,
      recordsUrl,
      dbName: t.db('ingest'),
      queuePrefix: `${t.redisPrefix}bull`,
      overrides: { ...overrides, ...more },
    });
  const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('ingest') });
  const instances: Array<Awaited<ReturnType<typeof createApp>>> = [];
  const start = async (more: Record<string, string> = {}) => {
    const built = await createApp({ config: config(more), db, logger });
    instances.push(built);
    return built;
  };
  const main = await start();

  const as = async (user: UserIdentity, target = main.app.callback()) => {
    const headers = { [IDENTITY_HEADER]: await signIdentity(user, SECRET, 600) };
    return {
      get: (p: string) => request(target).get(p).set(headers),
      post: (p: string) => request(target).post(p).set(headers),
      records: {
        get: (p: string) => request(records.server).get(p).set(headers),
        post: (p: string) => request(records.server).post(p).set(headers),
      },
    };
  };

  const stop = async () => {
    for (const i of instances.reverse()) await i.stop();
    await db.close();
    await closeServer(recordsServer.server);
    await records.close();
  };
  afterAll(stop);
  return { t, main, start, config, as, db, records, recordsUrl, stop };
}
