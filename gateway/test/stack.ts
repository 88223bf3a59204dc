import { createApp as createAuthApp } from '@nrad/auth-service/app';
import { authTestConfig } from '@nrad/auth-service/test-support';
import { testNamespace } from '@nrad/infra/harness';
import { createApp as createLinkingApp } from '@nrad/linking-service/app';
import { linkingTestConfig } from '@nrad/linking-service/test-support';
import { createApp as createRecordsApp } from '@nrad/records-service/app';
import { recordsTestConfig } from '@nrad/records-service/test-support';
import { closeServer, connectBus, connectMongo, createLogger, listen } from '@nrad/service-kit';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll } from 'vitest';
import { createGateway } from '../src/app.ts';
import { type GatewayConfig, GatewayConfigSchema } from '../src/config.ts';

export const IDENTITY_SECRET = 'i'.repeat(40);
export const ADMIN = { email: 'admin@nrad.test', password: 'admin-password-123' };

/**
 * Real auth, records and linking services on real ports (FerretDB, NATS JetStream behind them) and gateways
 * in front of them on real Redis, all in this test file's namespace; everything is closed after
 * the file.
 */
export async function startAuthStack() {
  const t = testNamespace();
  const logger = createLogger({ name: 'gateway-test', level: 'silent' });
  const authConfig = authTestConfig({
    identitySecret: IDENTITY_SECRET,
    mongoUrl: t.mongoUrl,
    dbName: t.db('auth'),
    admin: ADMIN,
  });
  const db = await connectMongo({ url: authConfig.MONGO_URL, dbName: authConfig.MONGO_DB });
  const { app: authApp } = await createAuthApp({ config: authConfig, db, logger });
  const authServer = await listen(authApp, 0, '127.0.0.1');
  const authUrl = `http://127.0.0.1:${authServer.port}`;
  const recordsConfig = recordsTestConfig({
    identitySecret: IDENTITY_SECRET,
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('records'),
    stream: t.stream('RECORDS'),
    subjectPrefix: t.subject('records'),
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
  });
  const recordsDb = await connectMongo({ url: recordsConfig.MONGO_URL, dbName: recordsConfig.MONGO_DB });
  const bus = await connectBus({ url: recordsConfig.NATS_URL, name: 'gateway-test' });
  const records = await createRecordsApp({ config: recordsConfig, db: recordsDb, bus, logger });
  const recordsServer = await listen(records.app, 0, '127.0.0.1');
  const linkingConfig = linkingTestConfig({
    identitySecret: IDENTITY_SECRET,
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('linking'),
    recordsStream: recordsConfig.RECORDS_STREAM,
    recordsSubjectPrefix: recordsConfig.RECORDS_SUBJECT_PREFIX,
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
  });
  const linkingDb = await connectMongo({ url: linkingConfig.MONGO_URL, dbName: linkingConfig.MONGO_DB });
  const linking = await createLinkingApp({ config: linkingConfig, db: linkingDb, bus, logger });
  const linkingServer = await listen(linking.app, 0, '127.0.0.1');
  const redis = new Redis(t.redisUrl);
  const closers: Array<() => unknown> = [];

  /** A gateway (in-process app) with these settings over the defaults. */
  function gateway(overrides: Record<string, string> = {}) {
    const config: GatewayConfig = GatewayConfigSchema.parse({
      REDIS_URL: t.redisUrl,
      REDIS_PREFIX: `${t.redisPrefix}gw:`,
      IDENTITY_SECRET,
      SESSION_SECRET: 's'.repeat(40),
      AUTH_URL: authUrl,
      RECORDS_URL: `http://127.0.0.1:${recordsServer.port}`,
      LINKING_URL: `http://127.0.0.1:${linkingServer.port}`,
      TRUST_PROXY: 'true',
      ...overrides,
    });
    const gw = createGateway({ config, redis, logger });
    closers.push(gw.close);
    return { server: gw.app.callback(), config };
  }

  afterAll(async () => {
    for (const close of closers) await close();
    redis.disconnect();
    await authServer.close();
    await recordsServer.close();
    await linkingServer.close();
    await linking.stop();
    await records.stop();
    await bus.nc.close();
    await Promise.all([db.close(), recordsDb.close(), linkingDb.close()]);
  });

  return {
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
    closeAuth: () => closeServer(authServer.server),
  };
}

let ipCounter = 0;
/** A distinct client address per test (the gateway trusts X-Forwarded-For in these tests). */
export const nextIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

export const newUser = (overrides: Record<string, unknown> = {}) => ({
  name: 'Gary Gateway',
  email: `gary.${Math.random().toString(36).slice(2)}@agency.bm`,
  password: 'a long enough password',
  role: 'Investigator',
  organization: 'FIA',
  ...overrides,
});

/** Registers a user through the gateway and signs in with a cookie-keeping agent. */
export async function signIn(
  server: NonNullable<Parameters<typeof request.agent>[0]>,
  overrides: Record<string, unknown> = {},
) {
  const ip = nextIp();
  const body = newUser(overrides);
  await request(server).post('/api/auth/register').set('x-forwarded-for', ip).send(body).expect(201);
  const agent = request.agent(server);
  const login = await agent
    .post('/api/auth/login')
    .set('x-forwarded-for', ip)
    .send({ email: body.email, password: body.password })
    .expect(200);
  return { agent, body, ip, login, user: login.body.user as { id: string; name: string; organization: string } };
}

/** The Cookie header a browser would send back after `res` (session id and its signature). */
export function cookieJar(res: request.Response): string {
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');
}
