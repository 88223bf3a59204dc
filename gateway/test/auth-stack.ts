/**
 * The services of the gateway's tests, without vitest: auth, records, linking, stats, ingest, report, audit and ops on real ports
 * and gateways in front of them, in a namespace the caller gives and closes (stack.ts wraps it for
 * test files; serve-stack.ts runs it in a process of its own for tests in a browser environment).
 */
import { createApp as createAuditApp } from '@nrad/audit-service/app';
import { auditTestConfig } from '@nrad/audit-service/test-support';
import { createApp as createAuthApp } from '@nrad/auth-service/app';
import { authTestConfig } from '@nrad/auth-service/test-support';
import type { TestNamespace } from '@nrad/infra/harness';
import { createApp as createIngestApp } from '@nrad/ingest-service/app';
import { ingestTestConfig } from '@nrad/ingest-service/test-support';
import { createApp as createLinkingApp } from '@nrad/linking-service/app';
import { linkingTestConfig } from '@nrad/linking-service/test-support';
import { createApp as createOpsApp } from '@nrad/ops-service/app';
import { opsTestConfig } from '@nrad/ops-service/test-support';
import { createApp as createRecordsApp } from '@nrad/records-service/app';
import { recordsTestConfig } from '@nrad/records-service/test-support';
import { createApp as createReportApp } from '@nrad/report-service/app';
import { reportTestConfig } from '@nrad/report-service/test-support';
import {
  AuditTrail,
  closeServer,
  connectBus,
  connectMongo,
  createLogger,
  listen,
  RedisAuditSpool,
} from '@nrad/service-kit';
import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { createApp as createStatsApp } from '@nrad/stats-service/app';
import { statsTestConfig } from '@nrad/stats-service/test-support';
import { Redis } from 'ioredis';
import { createGateway } from '../src/app.ts';

import { type GatewayConfig, GatewayConfigSchema } from '../src/config.ts';

export const ADMIN = { email: 'admin@nrad.test', password: 'admin-password-123' };

/** How a test wants the stack's linking service to link (its own defaults otherwise). */
export interface StackOptions {
  /**
   * LINK_THRESHOLD, and REVIEW_THRESHOLD (= DISCLOSURE_THRESHOLD): a review band (issue 36);
   * `behind`: the linking service consumes a stream nobody publishes to, so it never sees a record
   * (as behind a long backlog).
   */
  linking?: { threshold?: number; reviewThreshold?: number; behind?: boolean };
}

/** The stack of startAuthStack in a namespace given by the caller, who closes it (no vitest needed). */
export async function createAuthStack(t: TestNamespace, options: StackOptions = {}) {
  const logger = createLogger({ name: 'gateway-test', level: 'silent' });
  // One connection to NATS for every service of the stack (auth's audit trail needs it first).
  const bus = await connectBus({ url: t.natsUrl, name: 'gateway-test' });
  const authConfig = authTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('auth'),
    admin: ADMIN,
  });
  const db = await connectMongo({ url: authConfig.MONGO_URL, dbName: authConfig.MONGO_DB });
  const auth = await createAuthApp({ config: authConfig, db, bus, logger });
  const authServer = await listen(auth.app, 0, '127.0.0.1');
  const authUrl = `http://127.0.0.1:${authServer.port}`;
  const recordsConfig = recordsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    redisUrl: t.redisUrl,
    redisPrefix: t.redisPrefix,
    dbName: t.db('records'),
    stream: t.stream('RECORDS'),
    subjectPrefix: t.subject('records'),
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
  });
  const recordsDb = await connectMongo({ url: recordsConfig.MONGO_URL, dbName: recordsConfig.MONGO_DB });
  const records = await createRecordsApp({ config: recordsConfig, db: recordsDb, bus, logger });
  const recordsServer = await listen(records.app, 0, '127.0.0.1');
  const linkingConfig = linkingTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('linking'),
    recordsStream: options.linking?.behind ? t.stream('ELSEWHERE') : recordsConfig.RECORDS_STREAM,
    recordsSubjectPrefix: options.linking?.behind ? t.subject('elsewhere') : recordsConfig.RECORDS_SUBJECT_PREFIX,
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
    // A refused id made in the last minute is answered after this wait (issue 34: as long as for a
    // record whose event is on its way); the matrix refuses fresh ids 18 times.
    recordWaitMs: 1000,
    recordsUrl: `http://127.0.0.1:${recordsServer.port}`,
    ...(options.linking?.threshold === undefined ? {} : { threshold: options.linking.threshold }),
    ...(options.linking?.reviewThreshold === undefined ? {} : { reviewThreshold: options.linking.reviewThreshold }),
  });
  const linkingDb = await connectMongo({ url: linkingConfig.MONGO_URL, dbName: linkingConfig.MONGO_DB });
  const linking = await createLinkingApp({ config: linkingConfig, db: linkingDb, bus, logger });
  const linkingServer = await listen(linking.app, 0, '127.0.0.1');
  const statsConfig = statsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('stats'),
    recordsStream: recordsConfig.RECORDS_STREAM,
    recordsSubjectPrefix: recordsConfig.RECORDS_SUBJECT_PREFIX,
  });
  const statsDb = await connectMongo({ url: statsConfig.MONGO_URL, dbName: statsConfig.MONGO_DB });
  let stats = await createStatsApp({ config: statsConfig, db: statsDb, bus, logger });
  let statsServer = await listen(stats.app, 0, '127.0.0.1');
  let statsRunning = true;
  const ingestConfig = ingestTestConfig({
    mongoUrl: t.mongoUrl,
    redisUrl: t.redisUrl,
    natsUrl: t.natsUrl,
    recordsUrl: `http://127.0.0.1:${recordsServer.port}`,
    dbName: t.db('ingest'),
    queuePrefix: `${t.redisPrefix}bull`,
  });
  const ingestDb = await connectMongo({ url: ingestConfig.MONGO_URL, dbName: ingestConfig.MONGO_DB });
  const ingest = await createIngestApp({ config: ingestConfig, db: ingestDb, bus, logger });
  const ingestServer = await listen(ingest.app, 0, '127.0.0.1');
  const reportConfig = reportTestConfig({
    mongoUrl: t.mongoUrl,
    redisUrl: t.redisUrl,
    natsUrl: t.natsUrl,
    statsUrl: `http://127.0.0.1:${statsServer.port}`,
    linkingUrl: `http://127.0.0.1:${linkingServer.port}`,
    dbName: t.db('report'),
    queuePrefix: `${t.redisPrefix}bull`,
  });
  const reportDb = await connectMongo({ url: reportConfig.MONGO_URL, dbName: reportConfig.MONGO_DB });
  const report = await createReportApp({ config: reportConfig, db: reportDb, bus, logger });
  const reportServer = await listen(report.app, 0, '127.0.0.1');
  const auditConfig = auditTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('audit'),
    auditStream: t.stream('AUDIT'),
    auditSubjectPrefix: t.subject('audit'),
    recordsStream: recordsConfig.RECORDS_STREAM,
    recordsSubjectPrefix: recordsConfig.RECORDS_SUBJECT_PREFIX,
  });
  const auditDb = await connectMongo({ url: auditConfig.MONGO_URL, dbName: auditConfig.MONGO_DB });
  const audit = await createAuditApp({ config: auditConfig, db: auditDb, bus, logger });
  const auditServer = await listen(audit.app, 0, '127.0.0.1');
  const serviceUrls = {
    auth: authUrl,
    records: `http://127.0.0.1:${recordsServer.port}`,
    linking: `http://127.0.0.1:${linkingServer.port}`,
    stats: `http://127.0.0.1:${statsServer.port}`,
    ingest: `http://127.0.0.1:${ingestServer.port}`,
    report: `http://127.0.0.1:${reportServer.port}`,
    audit: `http://127.0.0.1:${auditServer.port}`,
  };
  const opsConfig = opsTestConfig({
    natsUrl: t.natsUrl,
    redisUrl: t.redisUrl,
    queuePrefix: `${t.redisPrefix}bull`,
    queues: [ingestConfig.INGEST_QUEUE, reportConfig.REPORT_QUEUE],
    streamPrefix: t.stream(''),
    services: serviceUrls,
    // The gateways below keep their security alerts under this prefix (REDIS_PREFIX).
    gatewayRedisPrefix: `${t.redisPrefix}gw:`,
  });
  const ops = await createOpsApp({ config: opsConfig, bus, logger });
  const opsServer = await listen(ops.app, 0, '127.0.0.1');
  const redis = new Redis(t.redisUrl);
  const closers: Array<() => unknown> = [];
  // The gateways' audit trail: the namespace's audit stream (the audit service above reads it).
  const gatewayAudit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: auditConfig.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: auditConfig.AUDIT_SUBJECT_PREFIX },
    service: 'gateway',
    logger,
    spool: new RedisAuditSpool(redis, `${t.redisPrefix}gw:`),
  });
  await gatewayAudit.start();

  /** A gateway (in-process app) with these settings over the defaults. */
  function gateway(overrides: Record<string, string> = {}) {
    const config: GatewayConfig = GatewayConfigSchema.parse({
      REDIS_URL: t.redisUrl,
      REDIS_PREFIX: `${t.redisPrefix}gw:`,
      NATS_URL: t.natsUrl,
      AUDIT_STREAM: auditConfig.AUDIT_STREAM,
      AUDIT_SUBJECT_PREFIX: auditConfig.AUDIT_SUBJECT_PREFIX,
      ...testIdentityEnv('gateway'),
      SESSION_SECRET: 's'.repeat(40),
      AUTH_URL: serviceUrls.auth,
      RECORDS_URL: serviceUrls.records,
      LINKING_URL: serviceUrls.linking,
      STATS_URL: serviceUrls.stats,
      INGEST_URL: serviceUrls.ingest,
      REPORT_URL: serviceUrls.report,
      OPS_URL: `http://127.0.0.1:${opsServer.port}`,
      AUDIT_URL: serviceUrls.audit,
      TRUST_PROXY: 'true',
      ...overrides,
    });
    const gw = createGateway({ config, redis, logger, audit: gatewayAudit });
    closers.push(gw.close);
    return { server: gw.app.callback(), metrics: gw.metricsApp.callback(), config };
  }

  const close = async () => {
    for (const close of closers) await close();
    await gatewayAudit.stop();
    redis.disconnect();
    await authServer.close();
    await recordsServer.close();
    await linkingServer.close();
    if (statsRunning) await statsServer.close();
    await ingestServer.close();
    await reportServer.close();
    await opsServer.close();
    await auditServer.close();
    await ops.stop();
    await auth.stop();
    await ingest.stop();
    await report.stop();
    await audit.stop();
    await linking.stop();
    if (statsRunning) await stats.stop();
    await records.stop();
    await bus.nc.close();
    await Promise.all([
      db.close(),
      recordsDb.close(),
      linkingDb.close(),
      statsDb.close(),
      ingestDb.close(),
      reportDb.close(),
      auditDb.close(),
    ]);
  };

  return {
    close,
    t,
    redis,
    authUrl,
    authPort: authServer.port,
    gateway,
    db,
    bus,
    recordsDb,
    recordsStream: recordsConfig.RECORDS_STREAM,
    linkingDb,
    linksStream: linkingConfig.LINKS_STREAM,
    statsDb,
    auditDb,
    auditConfig,
    serviceUrls,
    opsUrl: `http://127.0.0.1:${opsServer.port}`,
    opsConfig,
    closeAuth: () => closeServer(authServer.server),
    /** Stops the stats service (its HTTP server and its consumer of records.*), as a crash would. */
    async stopStats() {
      statsRunning = false;
      await closeServer(statsServer.server);
      await stats.stop();
    },
    /** Starts the stats service again on the same port, from its stored read model. */
    async startStats() {
      const port = statsServer.port;
      stats = await createStatsApp({ config: statsConfig, db: statsDb, bus, logger });
      statsServer = await listen(stats.app, port, '127.0.0.1');
      statsRunning = true;
    },
  };
}
