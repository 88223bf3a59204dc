import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  IDENTITY_HEADER,
  type Organization,
  QUEUES_BOARD_PATH,
  REQUEST_ID_HEADER,
  type UserIdentity,
} from '@nrad/contracts';
import { freePort, startNats } from '@nrad/infra';
import { testNamespace, waitUntil } from '@nrad/infra/harness';
import { type Bus, connectBus, createLogger } from '@nrad/service-kit';
import { readAuditStream, type StreamedAuditEvent } from '@nrad/service-kit/test-audit';
import { testToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { opsTestConfig } from '../src/test-support.ts';

const t = testNamespace();
const logger = createLogger({ name: 'ops-audit-test', level: 'silent' });
const config = opsTestConfig({
  natsUrl: t.natsUrl,
  redisUrl: t.redisUrl,
  queuePrefix: `${t.redisPrefix}bull`,
  queues: ['ingest'],
  streamPrefix: t.stream(''),
  services: {},
  auditStream: t.stream('AUDIT'),
  auditSubjectPrefix: t.subject('audit'),
});
const bus = await connectBus({ url: config.NATS_URL, name: 'ops-audit-test' });
const ops = await createApp({ config, bus, logger });
const server = ops.app.callback();
afterAll(async () => {
  await ops.stop();
  await bus.nc.close();
});

const userOf = (organization: Organization): UserIdentity => ({
  kind: 'user',
  userId: randomBytes(12).toString('hex'),
  name: `${organization} user`,
  organization,
  role: organization === 'ADMIN' ? 'Administrator' : 'Analyst',
});
const headersOf = async (user: UserIdentity) => ({ [IDENTITY_HEADER]: await testToken(user) });

type Built = Awaited<ReturnType<typeof createApp>>;

/** Every event of the audit stream once the spool is empty, with its subject and `Nats-Msg-Id`. */
async function auditEvents(
  built: Built = ops,
  b: Bus = bus,
  stream = config.AUDIT_STREAM,
): Promise<StreamedAuditEvent[]> {
  await waitUntil('audit spool drained', async () => !built.audit.pending && (await built.spool.size()) === 0, 20_000);
  return readAuditStream(b, stream);
}

describe('audit events of the ops service (issue 21)', () => {
  it("records ADMIN's reads of the operations and actions on the queue board, and refusals", async () => {
    const admin = userOf('ADMIN');
    const customs = userOf('CUS');
    const adminHeaders = await headersOf(admin);
    await request(server)
      .get('/api/admin/operations')
      .set(adminHeaders)
      .set(REQUEST_ID_HEADER, 'req-ops-1')
      .set('x-forwarded-for', '10.5.5.1')
      .expect(200);
    await request(server)
      .get('/api/admin/operations')
      .set(await headersOf(customs))
      .set(REQUEST_ID_HEADER, 'req-refused-1')
      .set('x-forwarded-for', '10.5.5.2')
      .expect(403);
    // The board's reads are not recorded; its actions are, with what was done and its answer.
    await request(server).get(`${QUEUES_BOARD_PATH}/api/queues`).set(adminHeaders).expect(200);
    const queue = config.OPS_QUEUES[0] as string;
    const paused = await request(server)
      .put(`${QUEUES_BOARD_PATH}/api/queues/${queue}/pause`)
      .set(adminHeaders)
      .set(REQUEST_ID_HEADER, 'req-pause-1')
      .set('x-forwarded-for', '10.5.5.3');
    expect(paused.status, paused.text).toBeLessThan(300);
    expect(await ops.queues.queues[0]?.isPaused()).toBe(true);
    // An action turned off on the board: ADMIN's own refusal.
    await request(server)
      .post(`${QUEUES_BOARD_PATH}/api/queues/${queue}/add`)
      .set(adminHeaders)
      .send({ name: 'upload', data: {} })
      .expect(403);

    const events = await auditEvents();
    expect(events.map((e) => `${e.action} ${e.organization} ${e.detail?.what ?? e.detail?.path}`).sort()).toEqual([
      `access.refused ADMIN ${QUEUES_BOARD_PATH}/api/queues/${queue}/add`,
      'access.refused CUS /api/admin/operations',
      'admin ADMIN operations',
      'admin ADMIN queue-board',
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ service: 'ops', recordIds: [], subject: `${t.subject('audit')}.${e.action}` });
      expect(e.msgId).toBe(e.id);
    }
    expect(events.find((e) => e.detail?.what === 'operations')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-ops-1',
      clientAddress: '10.5.5.1',
      detail: { what: 'operations' },
    });
    expect(events.find((e) => e.detail?.what === 'queue-board')).toMatchObject({
      userId: admin.userId,
      requestId: 'req-pause-1',
      clientAddress: '10.5.5.3',
      detail: { what: 'queue-board', method: 'PUT', path: `/api/queues/${queue}/pause`, status: paused.status },
    });
    expect(events.find((e) => e.organization === 'CUS')).toMatchObject({
      action: 'access.refused',
      userId: customs.userId,
      requestId: 'req-refused-1',
      clientAddress: '10.5.5.2',
      detail: { status: 403, method: 'GET', path: '/api/admin/operations' },
    });
  });

  it("NATS down: ADMIN's actions still answer, their events wait in the Redis spool and are published once it is back", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nrad-ops-nats-'));
    const port = await freePort();
    let nats = await startNats({ storeDir: dir, port });
    const own = opsTestConfig({
      natsUrl: nats.url,
      redisUrl: t.redisUrl,
      queuePrefix: `${t.redisPrefix}bull2`,
      queues: ['ingest'],
      streamPrefix: t.stream(''),
      services: {},
    });
    const ownBus = await connectBus({ url: own.NATS_URL, name: 'ops-audit-test-2' });
    const built = await createApp({ config: own, bus: ownBus, logger });
    try {
      const admin = userOf('ADMIN');
      const headers = await headersOf(admin);
      await nats.process.stop();
      // Actions on the queue board (they need no NATS) still answer; their events are spooled.
      for (const [i, action] of ['pause', 'resume'].entries()) {
        const res = await request(built.app.callback())
          .put(`${QUEUES_BOARD_PATH}/api/queues/${own.OPS_QUEUES[0]}/${action}`)
          .set(headers)
          .set(REQUEST_ID_HEADER, `req-down-${i}`);
        expect(res.status, res.text).toBeLessThan(300);
      }
      expect(built.audit.pending).toBe(true);
      expect(await built.spool.size()).toBe(2);

      nats = await startNats({ storeDir: dir, port });
      await waitUntil(
        'JetStream back',
        () =>
          ownBus.jsm.streams.info(own.AUDIT_STREAM).then(
            () => true,
            () => false,
          ),
        20_000,
      );
      const events = await auditEvents(built, ownBus, own.AUDIT_STREAM);
      expect(events.map((e) => e.requestId).sort()).toEqual(['req-down-0', 'req-down-1']);
      for (const e of events) expect(e).toMatchObject({ action: 'admin', userId: admin.userId, service: 'ops' });
    } finally {
      await built.stop();
      await ownBus.nc.close();
      await nats.process.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps events in its Redis spool while NATS does not take them, and publishes them afterwards', async () => {
    const event = {
      id: `spooled-${Date.now()}`,
      action: 'admin' as const,
      at: new Date().toISOString(),
      userId: null,
      organization: null,
      recordIds: [],
      requestId: null,
      clientAddress: null,
      service: 'ops',
    };
    await ops.spool.put([event, { ...event, id: `${event.id}-2` }]);
    await ops.spool.put([event]); // put again: kept once, in its first place
    expect((await ops.spool.take(10)).map((e) => e.id)).toEqual([event.id, `${event.id}-2`]);
    await ops.spool.remove([event.id]);
    expect((await ops.spool.take(10)).map((e) => e.id)).toEqual([`${event.id}-2`]);
    await ops.spool.remove([`${event.id}-2`]);
    expect(await ops.spool.size()).toBe(0);
  });
});
