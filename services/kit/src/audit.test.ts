import { AUDIT_MAX_BATCH_EVENTS, AuditEventSchema } from '@nrad/contracts';
import { testNamespace, waitUntil } from '@nrad/infra/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_MAX_BATCH_BYTES,
  AUDIT_STREAM_MAX_AGE_MS,
  type AuditActor,
  AuditTrail,
  auditEvents,
  auditMessageEvents,
  auditOutboxEntry,
  ensureAuditStream,
  MongoAuditSpool,
} from './audit.ts';
import { type Bus, connectBus } from './jetstream.ts';
import { createLogger } from './logger.ts';
import { connectMongo } from './mongo.ts';
import { howCarried, readAuditStream } from './test-audit.ts';

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

/** Every event of a stream, with its message's `Nats-Msg-Id` and subject. */
const streamed = async (stream: string) =>
  (await readAuditStream(bus, stream)).map(({ subject, msgId, ...event }) => ({ subject, msgId, event }));

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

  it('group commit: requests recorded while a publish is in flight go together, each resolved once its batch is in the stream', async () => {
    const stream = { AUDIT_STREAM: t.stream('AUDITG'), AUDIT_SUBJECT_PREFIX: t.subject('auditg') };
    const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('kitgroup') });
    const trail = new AuditTrail({ bus, stream, service: 'kit-test', logger, spool: new MongoAuditSpool(db) });
    try {
      await trail.start();
      // Alone: at once, on its action's subject under its own id (as before group commit).
      await trail.record(actor, 'record.read', ['alone']);
      const [first] = await streamed(stream.AUDIT_STREAM);
      expect(first?.subject).toBe(`${stream.AUDIT_SUBJECT_PREFIX}.record.read`);
      expect(first?.msgId).toBe(first?.event.id);

      // 450 requests at once: the first goes alone, the rest behind it in batches of at most 200.
      const n = 450;
      const resolved: number[] = [];
      await Promise.all(
        Array.from({ length: n }, (_, i) => trail.record(actor, 'record.read', [`r${i}`]).then(() => resolved.push(i))),
      );
      expect(resolved).toHaveLength(n);
      const events = await readAuditStream(bus, stream.AUDIT_STREAM);
      const ids = events.flatMap((e) => e.recordIds);
      expect(ids).toHaveLength(n + 1);
      expect(new Set(ids)).toEqual(new Set(['alone', ...Array.from({ length: n }, (_, i) => `r${i}`)]));
      const carried = events.map((e) => howCarried(e, stream.AUDIT_SUBJECT_PREFIX));
      expect(new Set(carried)).toEqual(new Set(['alone', 'batch']));
      const messages = (await bus.jsm.streams.info(stream.AUDIT_STREAM)).state.messages;
      expect(messages).toBeLessThanOrEqual(1 + 1 + Math.ceil((n - 1) / AUDIT_MAX_BATCH_EVENTS) + 1);
      const perBatch = new Map<string, number>();
      for (const e of events) if (e.msgId.startsWith('batch-')) perBatch.set(e.msgId, (perBatch.get(e.msgId) ?? 0) + 1);
      expect(Math.max(...perBatch.values())).toBeLessThanOrEqual(AUDIT_MAX_BATCH_EVENTS);
      expect(trail.commits).toEqual({ messages, events: n + 1 });
      expect(trail.pending).toBe(false);
    } finally {
      await trail.stop();
      await db.close();
    }
  });

  it('group commit: a batch stays under the byte limit; one the stream refuses is spooled whole and relayed once', async () => {
    const stream = { AUDIT_STREAM: t.stream('AUDITB'), AUDIT_SUBJECT_PREFIX: t.subject('auditb') };
    const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('kitbatch') });
    const spool = new MongoAuditSpool(db);
    const trail = new AuditTrail({ bus, stream, service: 'kit-test', logger, spool, relayMs: 50 });
    // A list page naming 1,000 records: about 30 KB an event.
    const page = (k: number) =>
      Array.from({ length: 1000 }, (_, n) => `${k}`.padStart(4, '0') + `${n}`.padStart(20, '0'));
    try {
      await trail.start();
      await Promise.all(Array.from({ length: 40 }, (_, k) => trail.record(actor, 'record.list', page(k))));
      const total = (await bus.jsm.streams.info(stream.AUDIT_STREAM)).state.messages;
      const consumer = await bus.js.consumers.get(stream.AUDIT_STREAM);
      let seen = 0;
      let largest = 0;
      for await (const m of await consumer.fetch({ max_messages: total, expires: 5000 })) {
        largest = Math.max(largest, m.data.length);
        if (++seen === total) break;
      }
      expect(largest).toBeLessThanOrEqual(AUDIT_MAX_BATCH_BYTES + 20);
      expect(total).toBeGreaterThan(1);
      expect(total).toBeLessThan(40);
      expect((await readAuditStream(bus, stream.AUDIT_STREAM)).length).toBe(40);

      // No stream: the batch in flight and those queued behind it go to the spool, none lost.
      await bus.jsm.streams.delete(stream.AUDIT_STREAM);
      await Promise.all(Array.from({ length: 30 }, (_, i) => trail.record(actor, 'record.read', [`s${i}`])));
      expect((await spool.take(100)).map((e) => e.recordIds[0]).sort()).toEqual(
        Array.from({ length: 30 }, (_, i) => `s${i}`).sort(),
      );
      await ensureAuditStream(bus, stream);
      await waitUntil('spool relayed', async () => (await spool.take(1)).length === 0, 10_000);
      const relayed = await readAuditStream(bus, stream.AUDIT_STREAM);
      expect(relayed.map((e) => e.recordIds[0]).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `s${i}`).sort());
    } finally {
      await trail.stop();
      await db.close();
    }
  });

  it('a message of the stream is an event or a batch of at least two; anything else is refused', () => {
    const [a, b] = [
      ...auditEvents('records', 'record.read', actor, ['a']),
      ...auditEvents('records', 'record.read', actor, ['b']),
    ];
    expect(auditMessageEvents(a)).toEqual([a]);
    expect(auditMessageEvents({ events: [a, b] })).toEqual([a, b]);
    expect(() => auditMessageEvents({ events: [a] })).toThrow();
    expect(() => auditMessageEvents({ events: [a, { ...b, action: 'nope' }] })).toThrow();
    expect(() => auditMessageEvents({ events: [a, b], extra: 1 })).toThrow();
    expect(AuditEventSchema.safeParse({ events: [a, b] }).success).toBe(false);
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
