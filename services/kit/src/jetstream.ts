import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type PubAck,
  StorageType,
} from '@nats-io/jetstream';
import { createInbox, headers, type Msg, nanos, type Subscription } from '@nats-io/nats-core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from './logger.ts';

export type { JetStreamClient, JetStreamManager, NatsConnection };

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Publishes events and waits for the stream's acknowledgements (publishEvent, publishEventJson). */
  publisher: EventPublisher;
}

/** A publish the stream did not acknowledge: it refused it, no stream took the subject, or no answer came in time. */
export class PublishError extends Error {
  override name = 'PublishError';
}

/**
 * Publishes messages to JetStream and resolves each with the stream's acknowledgement, as
 * `js.publish` does, but through one reply subscription of its own (`<inbox>.<n>`) and one timer
 * for all publishes in flight: `js.publish` makes a request per message, each with its own timer,
 * and the client builds an error object on the completion of every request (a stack captured each
 * time) — at the tens of thousands of events of a batch upload, a tenth of a relaying service's
 * CPU. A message lost on the way (a reconnect) is not acknowledged in time and its publish fails;
 * the relays publish it again, and the stream keeps it once (`Nats-Msg-Id`).
 */
export class EventPublisher {
  private readonly inbox: string;
  private readonly subscription: Subscription;
  private readonly waiting = new Map<
    number,
    { at: number; resolve: (ack: PubAck) => void; reject: (err: Error) => void }
  >();
  private next = 0;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 5000,
  ) {
    this.inbox = createInbox();
    this.subscription = nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.answered(msg) });
    void nc.closed().then(() => this.failAll(new PublishError('the NATS connection closed')));
  }

  /** Publishes `data` to `subject` with `eventId` as `Nats-Msg-Id`; resolves once the stream stored it. */
  publish(subject: string, eventId: string, data: string | Uint8Array): Promise<PubAck> {
    const n = ++this.next;
    const h = headers();
    h.set('Nats-Msg-Id', eventId);
    return new Promise<PubAck>((resolve, reject) => {
      this.waiting.set(n, { at: Date.now(), resolve, reject });
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}.${n}`, headers: h });
      } catch (err) {
        this.waiting.delete(n);
        reject(err as Error);
        return;
      }
      this.sweeper ??= setInterval(() => this.sweep(), Math.min(1000, this.timeoutMs)).unref();
    });
  }

  /** Publishes waiting for their acknowledgement. */
  get inFlight(): number {
    return this.waiting.size;
  }

  private answered(msg: Msg): void {
    const n = Number(msg.subject.slice(this.inbox.length + 1));
    const waiter = this.waiting.get(n);
    if (!waiter) return; // timed out already
    this.waiting.delete(n);
    if (msg.headers?.hasError) {
      const why = msg.headers.code === 503 ? 'no stream takes the subject' : msg.headers.description;
      waiter.reject(new PublishError(`publish refused: ${why}`));
      return;
    }
    let ack: PubAck & { error?: { description?: string } };
    try {
      ack = msg.json();
    } catch {
      waiter.reject(new PublishError('the stream answered a publish with something other than JSON'));
      return;
    }
    if (ack.error || typeof ack.stream !== 'string') {
      waiter.reject(new PublishError(`publish refused: ${ack.error?.description ?? 'no stream in the answer'}`));
      return;
    }
    waiter.resolve({ ...ack, duplicate: ack.duplicate === true }); // the server leaves out `duplicate: false`
  }

  private sweep(): void {
    const late = Date.now() - this.timeoutMs;
    for (const [n, waiter] of this.waiting) {
      if (waiter.at > late) break; // in order of publishing
      this.waiting.delete(n);
      waiter.reject(new PublishError(`no acknowledgement within ${this.timeoutMs} ms`));
    }
    if (this.waiting.size === 0) this.stopSweeping();
  }

  private failAll(err: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
    this.stopSweeping();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Stops listening for acknowledgements; publishes still in flight fail. */
  close(): void {
    this.subscription.unsubscribe();
    this.failAll(new PublishError('the publisher closed'));
  }
}

/**
 * The servers of a NATS URL (comma-separated) and the user and password it carries
 * (`nats://records:<password>@host:4222`, issue 37): the client takes credentials as options.
 */
export function natsServersOf(urls: string): { servers: string[]; user?: string; pass?: string } {
  let credentials: { user: string; pass: string } | undefined;
  const servers = urls.split(',').map((one) => {
    const u = new URL(one.trim());
    if (u.username) credentials = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
    return `${u.protocol}//${u.host}`;
  });
  return { servers, ...credentials };
}

/** Connects to NATS with JetStream; reconnects forever (the relay and consumers wait it out). */
export async function connectBus(options: { url: string; name: string }): Promise<Bus> {
  const nc = await connect({
    ...natsServersOf(options.url),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // No stack captured for every request (each publish's and ack's confirmation): at thousands of
    // events a second that capture was a tenth of a service's CPU (bench:ingest profiles).
    noAsyncTraces: true,
  });
  const jsm = await jetstreamManager(nc);
  return { nc, js: jetstream(nc), jsm, publisher: new EventPublisher(nc) };
}

/** Readiness check: the connection is open and JetStream answers. */
export function busReadiness(bus: Bus) {
  return async () => {
    if (bus.nc.isClosed()) throw new Error('closed');
    await bus.jsm.getAccountInfo();
  };
}

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** Window in which a repeated `Nats-Msg-Id` is dropped as a duplicate (default 24 h). */
  duplicateWindowMs?: number;
  /** Messages older than this are discarded (default: kept for ever). */
  maxAgeMs?: number;
}

/**
 * Creates the stream, or brings an existing one's subjects and duplicate window up to date. Several
 * services ensure the same stream at start (records, linking and stats all read RECORDS): when
 * another one creates it between our look-up and our create, it is found and brought up to date.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const config = {
    name: spec.name,
    subjects: spec.subjects,
    storage: StorageType.File,
    duplicate_window: nanos(spec.duplicateWindowMs ?? 24 * 3_600_000),
    max_age: spec.maxAgeMs ? nanos(spec.maxAgeMs) : 0,
  };
  const exists = () =>
    jsm.streams.info(spec.name).then(
      () => true,
      () => false,
    );
  if (!(await exists())) {
    try {
      await jsm.streams.add(config);
      return;
    } catch (err) {
      if (!(await exists())) throw err;
    }
  }
  await jsm.streams.update(spec.name, {
    subjects: config.subjects,
    duplicate_window: config.duplicate_window,
    max_age: config.max_age,
  });
}

/**
 * Publishes a JSON event with its id as `Nats-Msg-Id`, so publishing the same event again (a relay
 * retry after a crash) is dropped by the stream. Resolves once the stream has stored it.
 */
export async function publishEvent(bus: Bus, subject: string, eventId: string, payload: unknown): Promise<PubAck> {
  return publishEventJson(bus, subject, eventId, JSON.stringify(payload));
}

/** publishEvent of an event already written as JSON text (an outbox's stored payload, sent as is). */
export async function publishEventJson(bus: Bus, subject: string, eventId: string, json: string): Promise<PubAck> {
  return bus.publisher.publish(subject, eventId, json);
}

/** Throw this from a handler for a message that can never succeed; it is terminated, not retried. */
export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}

export interface EventMeta {
  subject: string;
  streamSequence: number;
  deliveryCount: number;
}

export interface ConsumerOptions<T> {
  bus: Bus;
  stream: string;
  durable: string;
  /** Subject filter, e.g. `records.>` (one filter: nats-server 2.9, Debian's, has no multi-filter). */
  filterSubject?: string;
  /** Parses the JSON payload (a contracts schema's `parse`); a failure terminates the message. */
  decode: (data: unknown) => T;
  /** Handles one message (with `handleBatch`, by default a run of one). */
  handle?: (event: T, meta: EventMeta) => Promise<void>;
  /**
   * Handles the messages at hand together, in stream order (up to `batchSize`; as many as arrived
   * while the previous run was being handled), acknowledged together once it resolves. When it
   * throws, `handle` takes the same messages one by one (so one bad event fails alone). With it,
   * `concurrency` is 1. One of `handle` and `handleBatch` is required.
   */
  handleBatch?: (events: ReadonlyArray<{ event: T; meta: EventMeta }>) => Promise<void>;
  /** Most messages per `handleBatch` (default 200). */
  batchSize?: number;
  logger: Logger;
  /** Messages handled at once (default 1: in stream order). */
  concurrency?: number;
  /** Redelivery delay after a failure (default 1 s). */
  nakDelayMs?: number;
  /** Time a handler may take before the server redelivers (default 30 s). */
  ackWaitMs?: number;
}

export interface RunningConsumer {
  /** Stops taking messages and waits for the ones in hand. */
  stop(): Promise<void>;
}

/**
 * A durable pull consumer loop: ack after the handler succeeds, nak with a delay when it fails,
 * term when the message is poison. Bounded concurrency. Handlers must be idempotent: JetStream
 * delivers at least once.
 */
/** How long a pull of a batch consumer waits for messages before it is made again (ms). */
const PULL_EXPIRES_MS = 5000;

export async function startConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const { bus, stream, durable, logger } = options;
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    ...(options.filterSubject ? { filter_subject: options.filterSubject } : {}),
  };
  try {
    await bus.jsm.consumers.info(stream, durable);
    await bus.jsm.consumers.update(stream, durable, {
      ack_wait: config.ack_wait,
      ...(options.filterSubject ? { filter_subject: options.filterSubject } : {}),
    });
  } catch {
    await bus.jsm.consumers.add(stream, config);
  }
  const consumer = await bus.js.consumers.get(stream, durable);
  const { handleBatch } = options;
  const given = options.handle ?? (handleBatch && ((event: T, meta: EventMeta) => handleBatch([{ event, meta }])));
  if (!given) throw new Error('startConsumer needs handle or handleBatch');
  const handle = given;
  const batchSize = handleBatch ? Math.max(1, options.batchSize ?? 200) : 1;
  const concurrency = handleBatch ? 1 : (options.concurrency ?? 1);
  // Runs of a batch handler pull their own messages (below); single handlers consume.
  const messages = handleBatch ? undefined : await consumer.consume({ max_messages: Math.max(10, concurrency * 2) });
  const workingEveryMs = Math.max(100, Math.floor((options.ackWaitMs ?? 30_000) / 3));
  let stopping = false;
  let stopPulling = () => {};
  const nakDelay = options.nakDelayMs ?? 1000;

  const metaOf = (m: JsMsg): EventMeta => ({
    subject: m.subject,
    streamSequence: m.seq,
    deliveryCount: m.info.deliveryCount,
  });

  /** The message's event, or undefined when it does not decode (then it is terminated). */
  function decoded(m: JsMsg): { event: T } | undefined {
    try {
      return { event: options.decode(m.json()) };
    } catch (err) {
      logger.error({ err, subject: m.subject, seq: m.seq }, 'undecodable event terminated');
      m.term(); // no reason argument: nats-server < 2.10.4 ignores '+TERM <reason>'
      return undefined;
    }
  }

  const ack = (m: JsMsg) =>
    m.ackAck().catch((err: unknown) => logger.warn({ err, seq: m.seq }, 'ack not confirmed; event may be redelivered'));

  async function handleOne(m: JsMsg): Promise<void> {
    const meta = metaOf(m);
    const got = decoded(m);
    if (!got) return;
    try {
      await handle(got.event, meta);
    } catch (err) {
      if (err instanceof PoisonMessageError) {
        logger.error({ err, subject: m.subject, seq: m.seq }, 'poison event terminated');
        m.term();
        return;
      }
      logger.warn(
        { err, subject: m.subject, seq: m.seq, attempt: meta.deliveryCount },
        'event handler failed; will retry',
      );
      m.nak(nakDelay);
      return;
    }
    await ack(m);
  }

  async function handleRun(run: JsMsg[]): Promise<void> {
    if (!handleBatch || run.length === 1) {
      for (const m of run) await handleOne(m);
      return;
    }
    const taken: JsMsg[] = [];
    const events: Array<{ event: T; meta: EventMeta }> = [];
    for (const m of run) {
      const got = decoded(m);
      if (!got) continue;
      taken.push(m);
      events.push({ event: got.event, meta: metaOf(m) });
    }
    try {
      await handleBatch(events);
    } catch (err) {
      logger.warn({ err, events: events.length }, 'batch handler failed; handling its events one by one');
      for (const m of taken) await handleOne(m);
      return;
    }
    // The run's acks in order on one connection: the last one confirmed means the server has
    // taken all of them (a confirmation each cost a request apiece). An ack that is lost anyway
    // means a redelivery, which the idempotent handlers absorb.
    const last = taken.pop();
    for (const m of taken) m.ack();
    if (last) await ack(last);
  }

  const loop = handleBatch
    ? (async () => {
        // Explicit pulls of at most `batchSize` messages, one at a time, each started once the
        // messages at hand have been taken: every message delivered is then either in the run being
        // handled or at hand, and both tell the server they are being worked on (+WPI) while the
        // run lasts, so that a slow run behind a backlog delivers nothing again (issue 36: 184
        // redeliveries when an upload's events waited in the client's buffer past the ack wait).
        const hand: JsMsg[] = [];
        let wake: (() => void) | undefined;
        let pulling: Promise<void> | undefined;
        let current: { stop(): void } | undefined;
        const pull = () => {
          pulling = (async () => {
            try {
              const batch = await consumer.fetch({ max_messages: batchSize, expires: PULL_EXPIRES_MS });
              current = batch;
              if (stopping) batch.stop();
              for await (const m of batch) {
                hand.push(m);
                wake?.();
              }
            } catch (err) {
              if (!stopping) {
                logger.warn({ err }, 'pull of events failed; pulling again');
                await new Promise((resolve) => setTimeout(resolve, nakDelay));
              }
            } finally {
              current = undefined;
              pulling = undefined;
              wake?.();
            }
          })();
        };
        stopPulling = () => {
          current?.stop();
          wake?.();
        };
        for (;;) {
          if (!pulling && !stopping && hand.length === 0) pull();
          if (hand.length === 0) {
            if (stopping && !pulling) break;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          const run = hand.splice(0, batchSize);
          if (!pulling && !stopping) pull();
          const heartbeat = setInterval(() => {
            for (const m of run) m.working();
            for (const m of hand) m.working();
          }, workingEveryMs);
          try {
            await handleRun(run);
          } finally {
            clearInterval(heartbeat);
          }
        }
      })()
    : (async () => {
        const inflight = new Set<Promise<void>>();
        for await (const m of messages as NonNullable<typeof messages>) {
          const p: Promise<void> = handleOne(m).finally(() => inflight.delete(p));
          inflight.add(p);
          if (inflight.size >= concurrency) await Promise.race(inflight);
        }
        await Promise.all(inflight);
      })();

  return {
    async stop() {
      stopping = true;
      messages?.stop();
      stopPulling();
      await loop;
    },
  };
}
