import type { AuditEvent } from '@nrad/contracts';
import { deferCleanup, testNamespace } from '@nrad/infra/harness';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import request from 'supertest';
import { createAuthStack, type StackOptions } from './auth-stack.ts';

export { ADMIN, createAuthStack, type StackOptions } from './auth-stack.ts';

/**
 * Real auth, records, linking, stats, ingest, report, audit and ops services on real ports (FerretDB, NATS JetStream behind them) and gateways
 * in front of them on real Redis, all in this test file's namespace; everything is closed after
 * the file (deferCleanup: it is called in a beforeAll).
 */
export async function startAuthStack(options: StackOptions = {}) {
  const stack = await createAuthStack(testNamespace(), options);
  deferCleanup(() => stack.close());
  return stack;
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

/** The gateway's events of the stack's audit stream (read as the writer would). */
export async function gatewayAuditEvents(stack: Awaited<ReturnType<typeof createAuthStack>>): Promise<AuditEvent[]> {
  return (await readAuditStream(stack.bus, stack.auditConfig.AUDIT_STREAM)).filter((e) => e.service === 'gateway');
}
