import { AuditEventSchema } from '@nrad/contracts';
import { testNamespace, waitUntil } from '@nrad/infra/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_STREAM_MAX_AGE_MS,
  type AuditActor,
  AuditTrail,
  auditEvents,
  auditOutboxEntry,
  ensureAuditStream,
  MongoAuditSpool,
} from './audit.ts';
import { type Bus, connectBus } from './jetstream.ts';
import { createLogger } from './logger.ts';
import { connectMongo } from './mongo.ts';

const t = testNamespace();
const logger = createLogger({ name: 'audit-test', level: 'silent' });
const actor: AuditActor = {
  userId: '0123456789abcdef01234567',
  organization: 'BPS',
  requestId: 'req-1',
  clientAddress: '10.0.0.1',
};
let bus: Bus;

beforeAll(async () => {
  bus = await connectBus({ url: t.natsUrl, name: 'kit-audit-test' });
});
afterAll(() => bus?.nc.close());

/** Every message of a stream, decoded as audit events, with their `Nats-Msg-Id`. */
async function streamed(stream: string) {
  const total = (await bus.jsm.streams.info(stream)).state.messages;
  const out: Array<{ msgId: string; event: ReturnType<typeof AuditEventSchema.parse> }> = [];
  if (total === 0) return out;
  const consumer = await bus.js.consumers.get(stream);
  for await (const m of await consumer.fetch({ max_messages: total, expires: 5000 })) {
    out.push({ msgId: m.headers?.get('Nats-Msg-Id') ?? '', event: AuditEventSchema.parse(m.json()) });
    if (out.length === total) break;
  }
  return out;
}

describe('audit events', () => {
  it('one event per 1,000 record ids, each valid, ids derived from a given id', () => {
    const ids = Array.from({ length: 2500 }, (_, n) => n.toString(16).padStart(24, '0'));
    const events = auditEvents('records', 'record.list', actor, ids, { id: 'page-1', detail: { list: 'active' } });
    expect(events.map((e) => [e.id, e.recordIds.length])).toEqual([
      ['page-1', 1000],
      ['page-1-2', 1000],
      ['page-1-3', 500],
    ]);
    expect(events.flatMap((e) => e.recordIds)).toEqual(ids);
    expect(new Set(events.map((e) => e.requestId))).toEqual(new Set(['req-1']));
    const [none] = auditEvents('gateway', 'sign-out', actor, []);
    expect(none?.recordIds).toEqual([]);
    expect(none?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses what the contract refuses (a detail that is not a short scalar)', () => {
    expect(() => auditEvents('records', 'record.read', actor, ['x'], { detail: { text: 'x'.repeat(501) } })).toThrow();
  });

  it('an outbox entry carries the event on its subject under its own id', () => {
    const [event] = auditEvents('records', 'record.edit', actor, ['a']);
    const entry = auditOutboxEntry({ AUDIT_STREAM: 'S', AUDIT_SUBJECT_PREFIX: 'p.audit' }, event as never);
    expect(entry).toMatchObject({ id: event?.id, subject: 'p.audit.record.edit' });
    expect(JSON.parse(entry.payload)).toEqual(event);
  });
});

describe('AuditTrail (real nats-server and FerretDB)', () => {
  it('publishes at once; while no stream takes the events they wait in the spool, then go once', async () => {
    const stream = { AUDIT_STREAM: t.stream('AUDIT'), AUDIT_SUBJECT_PREFIX: t.subject('audit') };
    const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('kitaudit') });
    const spool = new MongoAuditSpool(db);
    const trail = new AuditTrail({ bus, stream, service: 'kit-test', logger, spool, relayMs: 50 });
    try {
      await trail.start();
      // A pipe, not the trail: events older than 90 days leave the stream.
      const info = await bus.jsm.streams.info(stream.AUDIT_STREAM);
      expect(info.config.max_age).toBe(AUDIT_STREAM_MAX_AGE_MS * 1_000_000);
      await trail.record(actor, 'record.read', ['r1']);
      expect((await streamed(stream.AUDIT_STREAM)).map((m) => m.event.recordIds)).toEqual([['r1']]);

      // The stream gone: a publish is refused, and the event is written to the spool instead.
      await bus.jsm.streams.delete(stream.AUDIT_STREAM);
      await trail.record(actor, 'record.read', ['r2']);
      await trail.record(actor, 'record.read', ['r3']);
      expect((await spool.take(10)).map((e) => e.recordIds[0])).toEqual(['r2', 'r3']);
      expect(trail.pending).toBe(true);

      await ensureAuditStream(bus, stream);
      await waitUntil('spool relayed', async () => (await spool.take(1)).length === 0, 10_000);
      const after = await streamed(stream.AUDIT_STREAM);
      expect(after.map((m) => m.event.recordIds[0])).toEqual(['r2', 'r3']);
      expect(after.every((m) => m.msgId === m.event.id)).toBe(true);
      // Back to publishing at once.
      await trail.record(actor, 'record.read', ['r4']);
      expect((await streamed(stream.AUDIT_STREAM)).map((m) => m.event.recordIds[0])).toEqual(['r2', 'r3', 'r4']);
      expect(trail.pending).toBe(false);
    } finally {
      await trail.stop();
      await db.close();
    }
  });

  it('the spool keeps an event once however often it is put', async () => {
    const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('kitspool') });
    try {
      const spool = new MongoAuditSpool(db);
      const events = auditEvents('records', 'record.read', actor, ['a', 'b']);
      await spool.put(events);
      await spool.put(events);
      expect(await spool.take(10)).toEqual(events);
      await spool.remove(events.map((e) => e.id));
      expect(await spool.take(10)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
