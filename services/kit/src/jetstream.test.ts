import { testNamespace, waitUntil } from '@nrad/infra/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Bus,
  connectBus,
  EventPublisher,
  ensureStream,
  PoisonMessageError,
  PublishError,
  publishEvent,
  startConsumer,
} from './jetstream.ts';
import { createLogger } from './logger.ts';

const t = testNamespace();
const logger = createLogger({ name: 'jetstream-test', level: 'silent' });
const Event = z.object({ id: z.string(), n: z.number() });
let bus: Bus;

beforeAll(async () => {
  bus = await connectBus({ url: t.natsUrl, name: 'kit-test' });
});
afterAll(() => bus?.nc.close());

async function freshStream(label: string) {
  const name = t.stream(label);
  const subject = t.subject(`${label.toLowerCase()}.>`);
  await ensureStream(bus.jsm, { name, subjects: [subject] });
  return { name, subject: (s: string) => t.subject(`${label.toLowerCase()}.${s}`) };
}

/** Waits until the consumer has nothing pending: every message acknowledged or terminated. */
async function settled(stream: string, durable: string) {
  await waitUntil(
    `${durable} settled`,
    async () => {
      const info = await bus.jsm.consumers.info(stream, durable);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    },
    10_000,
  );
}

describe('JetStream helpers (against the real nats-server)', () => {
  it('ensureStream is idempotent and publishEvent deduplicates by event id', async () => {
    const s = await freshStream('DEDUPE');
    await ensureStream(bus.jsm, { name: s.name, subjects: [t.subject('dedupe.>')] });
    const first = await publishEvent(bus, s.subject('created'), 'evt-1', { id: 'evt-1', n: 1 });
    const again = await publishEvent(bus, s.subject('created'), 'evt-1', { id: 'evt-1', n: 1 });
    expect(first.duplicate).toBe(false);
    expect(again.duplicate).toBe(true);
    expect((await bus.jsm.streams.info(s.name)).state.messages).toBe(1);
  });

  it('publishEvent resolves each of many publishes in flight with its own acknowledgement', async () => {
    const s = await freshStream('MANY');
    const acks = await Promise.all(
      Array.from({ length: 500 }, (_, n) => publishEvent(bus, s.subject('x'), `m${n}`, { id: `m${n}`, n })),
    );
    expect(new Set(acks.map((a) => a.seq)).size).toBe(500);
    expect(acks.every((a) => a.stream === s.name && a.duplicate === false)).toBe(true);
    // Stored in the order published, each with its own id.
    const last = await bus.jsm.streams.getMessage(s.name, { seq: acks[499]!.seq });
    expect(last?.header.get('Nats-Msg-Id')).toBe('m499');
    expect(last?.json()).toEqual({ id: 'm499', n: 499 });
    expect(bus.publisher.inFlight).toBe(0);
  });

  it('publishEvent fails plainly when no stream takes the subject, or no acknowledgement comes in time', async () => {
    await expect(publishEvent(bus, t.subject('nostream.x'), 'n1', { id: 'n1', n: 1 })).rejects.toThrow(
      new PublishError('publish refused: no stream takes the subject'),
    );
    // A subscriber that is not a stream answers nothing: the publish times out.
    const silent = bus.nc.subscribe(t.subject('silent.x'));
    const quick = new EventPublisher(bus.nc, 300);
    await expect(quick.publish(t.subject('silent.x'), 's1', '{}')).rejects.toThrow(
      new PublishError('no acknowledgement within 300 ms'),
    );
    expect(quick.inFlight).toBe(0);
    quick.close();
    silent.unsubscribe();
  });

  it('acks after success, redelivers after a failure, terminates poison', async () => {
    const s = await freshStream('CONSUME');
    const handled: number[] = [];
    let failuresLeft = 2;
    const consumer = await startConsumer({
      bus,
      stream: s.name,
      durable: 'test-consumer',
      decode: (d) => Event.parse(d),
      logger,
      nakDelayMs: 50,
      handle: async (e) => {
        if (e.n === 2 && failuresLeft > 0) {
          failuresLeft--;
          throw new Error('transient');
        }
        if (e.n === 3) throw new PoisonMessageError('never valid');
        handled.push(e.n);
      },
    });
    await publishEvent(bus, s.subject('a'), 'e1', { id: 'e1', n: 1 });
    await publishEvent(bus, s.subject('a'), 'e2', { id: 'e2', n: 2 });
    await publishEvent(bus, s.subject('a'), 'e3', { id: 'e3', n: 3 });
    await publishEvent(bus, s.subject('a'), 'e4', { not: 'an event' });
    await publishEvent(bus, s.subject('a'), 'e5', { id: 'e5', n: 5 });
    await waitUntil('all good events handled', async () => handled.length === 3, 10_000);
    expect(handled.sort()).toEqual([1, 2, 5]);
    expect(failuresLeft).toBe(0);
    await settled(s.name, 'test-consumer');
    await consumer.stop();
    // Nothing is redelivered afterwards: acked, and poison terminated.
    const again = await startConsumer({
      bus,
      stream: s.name,
      durable: 'test-consumer',
      decode: (d) => Event.parse(d),
      logger,
      handle: async (e) => {
        handled.push(e.n);
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    await again.stop();
    expect(handled).toHaveLength(3);
  });

  it('a durable consumer resumes where it stopped', async () => {
    const s = await freshStream('RESUME');
    const seen: number[] = [];
    const options = {
      bus,
      stream: s.name,
      durable: 'resumer',
      decode: (d: unknown) => Event.parse(d),
      logger,
      handle: async (e: z.infer<typeof Event>) => {
        seen.push(e.n);
      },
    };
    const first = await startConsumer(options);
    await publishEvent(bus, s.subject('x'), 'r1', { id: 'r1', n: 1 });
    await waitUntil('first event', async () => seen.length === 1, 10_000);
    await first.stop();
    await publishEvent(bus, s.subject('x'), 'r2', { id: 'r2', n: 2 });
    await publishEvent(bus, s.subject('x'), 'r3', { id: 'r3', n: 3 });
    const second = await startConsumer(options);
    await waitUntil('events published while stopped', async () => seen.length === 3, 10_000);
    await second.stop();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('handleBatch takes the messages at hand in stream order, and one by one when a run fails', async () => {
    const s = await freshStream('BATCH');
    // Published before the consumer starts: they are at hand together.
    for (let n = 1; n <= 25; n++) await publishEvent(bus, s.subject('b'), `b${n}`, { id: `b${n}`, n });
    await publishEvent(bus, s.subject('b'), 'bad', { not: 'an event' });
    const runs: number[][] = [];
    const single: number[] = [];
    let failOnce = true;
    const consumer = await startConsumer({
      bus,
      stream: s.name,
      durable: 'batcher',
      decode: (d) => Event.parse(d),
      logger,
      nakDelayMs: 50,
      batchSize: 10,
      handleBatch: async (events) => {
        const ns = events.map((e) => e.event.n);
        if (failOnce && ns.includes(13)) {
          failOnce = false;
          throw new Error('a run that fails');
        }
        runs.push(ns);
      },
      handle: async (e) => {
        if (e.n === 13) throw new PoisonMessageError('13 never goes through');
        single.push(e.n);
      },
    });
    await settled(s.name, 'batcher');
    await consumer.stop();
    expect(runs.some((run) => run.length > 1)).toBe(true);
    expect(Math.max(...runs.map((run) => run.length))).toBeLessThanOrEqual(10);
    // The failed run's events went one by one; 13 alone was refused (terminated).
    const handled = [...runs.flat(), ...single].sort((a, b) => a - b);
    expect(handled).toEqual(Array.from({ length: 25 }, (_, i) => i + 1).filter((n) => n !== 13));
    expect(runs.flat()).toEqual([...runs.flat()].sort((a, b) => a - b)); // stream order
    expect(single.length).toBeGreaterThan(0);
  });

  it('keeps runs slower than the ack wait, and the messages waiting behind them, from being delivered again', async () => {
    const s = await freshStream('SLOW');
    for (let n = 1; n <= 12; n++) await publishEvent(bus, s.subject('s'), `s${n}`, { id: `s${n}`, n });
    const seen: number[] = [];
    const consumer = await startConsumer({
      bus,
      stream: s.name,
      durable: 'slow',
      decode: (d) => Event.parse(d),
      logger,
      batchSize: 3,
      ackWaitMs: 1000,
      // Each run of three takes 1.5 s: the last run waits 6 s in all, six ack waits.
      handleBatch: async (events) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        seen.push(...events.map((e) => e.event.n));
      },
    });
    await waitUntil('every event handled', async () => seen.length >= 12, 30_000);
    await settled(s.name, 'slow');
    const info = await bus.jsm.consumers.info(s.name, 'slow');
    await consumer.stop();
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(info.num_redelivered).toBe(0);
  });
});
