import { IDENTITY_HEADER, type Organization, type UserIdentity } from '@nrad/contracts';
import { deferCleanup, testNamespace, waitUntil } from '@nrad/infra/harness';
import { recordsBeside } from '@nrad/records-service/test-support';
import { closeServer, connectMongo, createLogger, GRANT_HEADER, listen } from '@nrad/service-kit';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import { testGrant, testToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import * as XLSX from 'xlsx';
import { createApp } from '../src/app.ts';
import type { IngestConfig } from '../src/config.ts';
import { TEMPLATE_COLUMNS } from '../src/domain/index.ts';
import { ingestTestConfig } from '../src/test-support.ts';

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
 * over HTTP as in production), in this file's namespace. `overrides` are variables of the ingest
 * service's config, `recordsOverrides` of the records service's. `start()` builds another ingest
 * instance on the same database and queue (a restart, or a second worker).
 */
export async function startIngest(
  overrides: Record<string, string> = {},
  recordsOverrides: Record<string, string> = {},
) {
  const t = testNamespace();
  const records = await recordsBeside(t, {
    logger,
    name: 'ingest-test',
    overrides: recordsOverrides,
  });
  const recordsServer = await listen(records.built.app, 0, '127.0.0.1');
  const recordsUrl = `http://127.0.0.1:${recordsServer.port}`;
  const config = (more: Record<string, string> = {}): IngestConfig =>
    ingestTestConfig({
      mongoUrl: t.mongoUrl,
      redisUrl: t.redisUrl,
      natsUrl: t.natsUrl,
      recordsUrl,
      dbName: t.db('ingest'),
      auditStream: t.stream('AUDIT'),
      auditSubjectPrefix: t.subject('audit'),
      queuePrefix: `${t.redisPrefix}bull`,
      overrides: { ...overrides, ...more },
    });
  const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('ingest') });
  const instances: Array<Awaited<ReturnType<typeof createApp>>> = [];
  const start = async (more: Record<string, string> = {}) => {
    // The records service's bus: one connection to NATS for both.
    const built = await createApp({ config: config(more), db, bus: records.bus, logger });
    instances.push(built);
    return built;
  };
  const main = await start();

  const as = async (user: UserIdentity, target = main.app.callback()) => {
    // As the gateway sends an upload: the user's token and the grant for the ingest service's job.
    const headers = { [IDENTITY_HEADER]: await testToken(user, 600), [GRANT_HEADER]: await testGrant(user, 'ingest') };
    return {
      get: (p: string) => request(target).get(p).set(headers),
      post: (p: string) => request(target).post(p).set(headers),
      records: {
        get: (p: string) => request(records.server).get(p).set(headers),
        post: (p: string) => request(records.server).post(p).set(headers),
      },
    };
  };

  /**
   * Every event of the namespace's audit stream (the ingest service's and the records service's),
   * once the ingest instances' and the records service's spools and the records outbox are empty.
   */
  const auditEvents = async () => {
    await waitUntil(
      'audit spools drained',
      async () =>
        instances.every((i) => !i.audit.pending) &&
        !records.built.audit.pending &&
        (await db.collection('audit_spool').countDocuments({})) === 0 &&
        (await records.db.collection('audit_spool').countDocuments({})) === 0 &&
        (await records.db.collection('records').countDocuments({ outboxPending: true })) === 0 &&
        (await records.db.collection('import_events').countDocuments({})) === 0,
      20_000,
    );
    return readAuditStream(records.bus, config().AUDIT_STREAM);
  };

  const stop = async () => {
    for (const i of instances.reverse()) await i.stop();
    await db.close();
    await closeServer(recordsServer.server);
    await records.close();
  };
  deferCleanup(stop);
  return { t, main, start, config, as, db, records, recordsUrl, auditEvents, stop };
}
