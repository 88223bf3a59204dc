import {
  type CaseRecord,
  type GeneratedReport,
  GeneratedReportSchema,
  type ReportJob,
  ReportJobSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { deferCleanup, testNamespace, waitUntil } from '@nrad/infra/harness';
import { createApp as createLinkingApp } from '@nrad/linking-service/app';
import { linkingTestConfig } from '@nrad/linking-service/test-support';
import {
  consumerCaughtUp,
  recordsBeside,
  testApiAs,
  testRecordBody,
  testUser,
} from '@nrad/records-service/test-support';
import { closeServer, connectMongo, createLogger, listen } from '@nrad/service-kit';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import { createApp as createStatsApp } from '@nrad/stats-service/app';
import { statsTestConfig } from '@nrad/stats-service/test-support';
import { expect } from 'vitest';
import { createApp } from '../src/app.ts';
import { reportTestConfig } from '../src/test-support.ts';

export const logger = createLogger({ name: 'report-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });
export const userOf = testUser;

const REPORT_PATH = /^\/api\/(generate-report|reports(\/.*)?)$/;
const FIGURE_PATH = /^\/api\/(stats(\/.*)?|links\/summary)$/;

/**
 * The report service beside the services it asks for figures — records (with its streams),
 * linking and stats on real ports, as in production — in this file's namespace. `start(overrides)`
 * builds another report instance on the same database and queue with other settings (a model
 * server, a short wait); requests go to the latest one.
 */
export async function startReports(overrides: Record<string, string> = {}) {
  const t = testNamespace();
  const records = await recordsBeside(t, { logger, name: 'report-test', links: true });
  const linkingConfig = linkingTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('linking'),
    recordsStream: records.config.RECORDS_STREAM,
    recordsSubjectPrefix: records.config.RECORDS_SUBJECT_PREFIX,
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
  });
  const linkingDb = await connectMongo({ url: t.mongoUrl, dbName: linkingConfig.MONGO_DB });
  const linking = await createLinkingApp({ config: linkingConfig, db: linkingDb, bus: records.bus, logger });
  const linkingServer = await listen(linking.app, 0, '127.0.0.1');
  const statsConfig = statsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('stats'),
    recordsStream: records.config.RECORDS_STREAM,
    recordsSubjectPrefix: records.config.RECORDS_SUBJECT_PREFIX,
  });
  const statsDb = await connectMongo({ url: t.mongoUrl, dbName: statsConfig.MONGO_DB });
  const stats = await createStatsApp({ config: statsConfig, db: statsDb, bus: records.bus, logger });
  const statsServer = await listen(stats.app, 0, '127.0.0.1');
  const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('report') });

  const config = (more: Record<string, string> = {}) =>
    reportTestConfig({
      mongoUrl: t.mongoUrl,
      redisUrl: t.redisUrl,
      natsUrl: t.natsUrl,
      statsUrl: `http://127.0.0.1:${statsServer.port}`,
      linkingUrl: `http://127.0.0.1:${linkingServer.port}`,
      dbName: t.db('report'),
      queuePrefix: `${t.redisPrefix}bull`,
      auditStream: t.stream('AUDIT'),
      auditSubjectPrefix: t.subject('audit'),
      overrides: { ...overrides, ...more },
    });
  const instances: Array<Awaited<ReturnType<typeof createApp>>> = [];
  let current: Awaited<ReturnType<typeof createApp>>;
  const start = async (more: Record<string, string> = {}) => {
    // One worker at a time on the queue: the one whose settings the test set.
    for (const i of instances.splice(0)) await i.stop();
    // The records service's bus: one connection to NATS for all.
    current = await createApp({ config: config(more), db, bus: records.bus, logger });
    instances.push(current);
    return current;
  };
  await start();

  // Each request carries a grant for the report service, as the gateway sends with a report asked for.
  const as = (user: UserIdentity) =>
    testApiAs(
      user,
      (p) =>
        REPORT_PATH.test(p)
          ? current.app.callback()
          : FIGURE_PATH.test(p)
            ? p.startsWith('/api/links')
              ? linking.app.callback()
              : stats.app.callback()
            : records.server,
      'report',
    );

  /** Creates a record as `user`. */
  const create = async (user: UserIdentity, overrides: Record<string, unknown> = {}): Promise<CaseRecord> =>
    (await (await as(user)).post('/api/records').send(testRecordBody('REP', overrides)).expect(201)).body;

  /** Waits until stats and linking have applied every record event. */
  const settled = async () => {
    await consumerCaughtUp(records.bus, records.config.RECORDS_STREAM, statsConfig.RECORDS_CONSUMER);
    await consumerCaughtUp(records.bus, records.config.RECORDS_STREAM, linkingConfig.RECORDS_CONSUMER);
  };

  /** `POST /api/generate-report` waiting for the report (200), checked against its schema. */
  const generate = async (user: UserIdentity, parameters?: string): Promise<GeneratedReport> => {
    const res = await (await as(user))
      .post('/api/generate-report')
      .send(parameters === undefined ? {} : { parameters })
      .expect(200);
    return GeneratedReportSchema.parse(res.body);
  };

  /** Polls a job until it is completed or failed, noting each stage seen. */
  const finish = async (user: UserIdentity, jobId: string) => {
    const stages: string[] = [];
    let job: ReportJob | undefined;
    await waitUntil(
      `report job ${jobId} done`,
      async () => {
        const res = await (await as(user)).get(`/api/reports/jobs/${jobId}`).expect(200);
        job = ReportJobSchema.parse(res.body);
        if (stages.at(-1) !== job.stage) stages.push(job.stage);
        return job.state === 'completed' || job.state === 'failed';
      },
      30_000,
    );
    expect(job).toBeDefined();
    return { job: job as ReportJob, stages };
  };

  /** The report service's events of the audit stream, once its spool is empty. */
  const auditEvents = async () => {
    await waitUntil(
      'audit spool drained',
      async () => !current.audit.pending && (await db.collection('audit_spool').countDocuments({})) === 0,
      20_000,
    );
    return (await readAuditStream(records.bus, config().AUDIT_STREAM)).filter((e) => e.service === 'report');
  };

  const stop = async () => {
    for (const i of instances.splice(0)) await i.stop();
    await db.close();
    await closeServer(statsServer.server);
    await closeServer(linkingServer.server);
    await stats.stop();
    await linking.stop();
    await records.close();
    await Promise.all([statsDb.close(), linkingDb.close()]);
  };
  deferCleanup(stop);
  return { t, db, start, as, create, settled, generate, finish, records, stats, linking, auditEvents, stop };
}
export type ReportHarness = Awaited<ReturnType<typeof startReports>>;
