import { randomUUID } from 'node:crypto';
import {
  AUDIT_BATCH_SUBJECT,
  AUDIT_MAX_BATCH_EVENTS,
  AUDIT_MAX_RECORD_IDS,
  AUDIT_STREAM,
  AUDIT_SUBJECT_PREFIX,
  type AuditAction,
  AuditBatchSchema,
  type AuditEvent,
  AuditEventSchema,
  type Identity,
  type Organization,
} from '@nrad/contracts';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import { env } from './config.ts';
import { type Bus, EventPublisher, ensureStream } from './jetstream.ts';
import type { Logger } from './logger.ts';

/**
 * Publishing audit events (issue 21, ADR 0014). Each service records what it did — a read, a list
 * page, a change, a refusal — as audit events on `audit.<action>` in the AUDIT stream, which the
 * audit writer stores in its hash chain. A change's event goes in the changed record's outbox (the
 * records service), so the two cannot part. Everything else goes through `AuditTrail.record`,
 * which resolves only once the event is durable: acknowledged by the stream or, when NATS does not
 * answer, written to the service's own spool (`audit_spool` in its database), which a relay
 * publishes once NATS is back. A request whose access cannot be recorded fails.
 */

/** Who did it, from where, in which request. */
export interface AuditActor {
  userId: string | null;
  organization: Organization | null;
  requestId: string | null;
  clientAddress: string | null;
}

/** The variables of a service that publishes audit events (tests give each file its own stream). */
export const auditEnv = {
  AUDIT_STREAM: env.streamName(AUDIT_STREAM),
  AUDIT_SUBJECT_PREFIX: env.subjectPrefix(AUDIT_SUBJECT_PREFIX),
};

/** Where audit events go: the stream and the subjects' prefix (`audit` of `audit.record.read`). */
export interface AuditStreamConfig {
  AUDIT_STREAM: string;
  AUDIT_SUBJECT_PREFIX: string;
}

/** The subject of an action's events. */
export const auditSubject = (config: AuditStreamConfig, action: AuditAction) =>
  `${config.AUDIT_SUBJECT_PREFIX}.${action}`;

/**
 * How long the stream keeps an audit event: the audit writer stores each within moments, so the
 * stream is a pipe, not the trail; 90 days cover any outage of the writer the operations console
 * would not have shown long before.
 */
export const AUDIT_STREAM_MAX_AGE_MS = 90 * 24 * 3_600_000;

/** Makes sure the audit stream exists (every publishing service does at start; the writer too). */
export const ensureAuditStream = (bus: Bus, config: AuditStreamConfig) =>
  ensureStream(bus.jsm, {
    name: config.AUDIT_STREAM,
    subjects: [`${config.AUDIT_SUBJECT_PREFIX}.>`],
    maxAgeMs: AUDIT_STREAM_MAX_AGE_MS,
  });

/** The address the gateway saw (it sets X-Forwarded-For to it alone; a client's own is dropped). */
function clientAddressOf(header: string | undefined): string | null {
  const first = header?.split(',')[0]?.trim();
  return first ? first.slice(0, 100) : null;
}

/** The actor of a service request: the identity the gateway vouched for, its request id and client address. */
export function actorOf(ctx: {
  state: { identity?: Identity; requestId?: string };
  get(field: string): string;
}): AuditActor {
  const identity = ctx.state.identity;
  return {
    userId: identity?.kind === 'user' ? identity.userId : null,
    organization: identity?.kind === 'user' ? identity.organization : null,
    requestId: ctx.state.requestId ?? null,
    clientAddress: clientAddressOf(ctx.get('x-forwarded-for')),
  };
}

/** What else an action's events carry. */
export interface AuditEventOptions {
  detail?: AuditEvent['detail'];
  at?: Date;
  /**
   * The events' id (the second event of an action gets `<id>-2`, and so on): given when the same
   * events are built again after a crash (a relay's), so the stream and the writer keep them once.
   * A new random id otherwise.
   */
  id?: string;
}

/**
 * The events of one action: one event, or one per AUDIT_MAX_RECORD_IDS record ids when it named
 * more (each with the same request id). Validated with the contract.
 */
export function auditEvents(
  service: string,
  action: AuditAction,
  actor: AuditActor,
  recordIds: readonly string[],
  options: AuditEventOptions = {},
): AuditEvent[] {
  const chunks: string[][] = [];
  for (let i = 0; i < recordIds.length; i += AUDIT_MAX_RECORD_IDS) {
    chunks.push(recordIds.slice(i, i + AUDIT_MAX_RECORD_IDS));
  }
  if (chunks.length === 0) chunks.push([]);
  const base = options.id ?? randomUUID();
  const at = (options.at ?? new Date()).toISOString();
  return chunks.map((ids, n) =>
    AuditEventSchema.parse({
      id: n === 0 ? base : `${base}-${n + 1}`,
      action,
      at,
      ...actor,
      recordIds: ids,
      service,
      ...(options.detail ? { detail: options.detail } : {}),
    }),
  );
}

/**
 * The events of one message of an AUDIT stream: an event alone, or a group commit's batch
 * (`{ events: [...] }`). Throws when it is neither (the writer terminates such a message).
 */
export function auditMessageEvents(data: unknown): AuditEvent[] {
  if (typeof data === 'object' && data !== null && 'events' in data) return AuditBatchSchema.parse(data).events;
  return [AuditEventSchema.parse(data)];
}

/** An event as an outbox entry: the records service keeps it beside the change it records. */
export function auditOutboxEntry(config: AuditStreamConfig, event: AuditEvent, createdAt = new Date()) {
  return { id: event.id, subject: auditSubject(config, event.action), payload: JSON.stringify(event), createdAt };
}

/** Events written down while NATS did not answer, published again once it does. */
export interface AuditSpool {
  put(events: readonly AuditEvent[]): Promise<void>;
  /** The oldest spooled events, up to `limit`. */
  take(limit: number): Promise<AuditEvent[]>;
  remove(ids: readonly string[]): Promise<void>;
}

interface SpoolDoc {
  _id: string;
  event: string;
  createdAt: Date;
  /** The order put: milliseconds × 1,000 plus a counter of this process (events of one millisecond keep theirs). */
  order: number;
}

let spooled = 0;
/** A number larger than any this process gave before (up to 1,000 a millisecond). */
const nextOrder = () => Date.now() * 1000 + (spooled++ % 1000);

/** The spool in the service's own database (`audit_spool`). */
export class MongoAuditSpool implements AuditSpool {
  constructor(private readonly db: Connection) {}

  private get collection() {
    return this.db.collection<SpoolDoc>('audit_spool');
  }

  async put(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const createdAt = new Date();
    // An upsert each: a put retried after a lost answer does not fail on its own first write.
    await this.collection.bulkWrite(
      events.map((e) => ({
        replaceOne: {
          filter: { _id: e.id },
          replacement: { event: JSON.stringify(e), createdAt, order: nextOrder() },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  async take(limit: number): Promise<AuditEvent[]> {
    const docs = await this.collection.find({}).sort({ order: 1, _id: 1 }).limit(limit).toArray();
    return docs.map((d) => AuditEventSchema.parse(JSON.parse(d.event)));
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) await this.collection.deleteOne({ _id: id });
  }
}

/**
 * The spool of a process without a database of its own (the gateway, the ops service): events that
 * NATS did not take wait in Redis — each event's JSON in a hash by id, their order in a sorted set —
 * until the trail's relay publishes them.
 */
export class RedisAuditSpool implements AuditSpool {
  private readonly order: string;
  private readonly events: string;
  private counter = 0;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.order = `${prefix}audit:spool:order`;
    this.events = `${prefix}audit:spool:events`;
  }

  async put(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const multi = this.redis.multi();
    for (const e of events) {
      // NX: an event put again keeps its first place.
      multi.zadd(this.order, 'NX', Date.now() * 1000 + (this.counter++ % 1000), e.id);
      multi.hset(this.events, e.id, JSON.stringify(e));
    }
    const results = await multi.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('the audit spool write was discarded');
  }

  async take(limit: number): Promise<AuditEvent[]> {
    const ids = await this.redis.zrange(this.order, 0, String(limit - 1));
    if (ids.length === 0) return [];
    const texts = await this.redis.hmget(this.events, ...ids);
    return texts.flatMap((text) => (text ? [AuditEventSchema.parse(JSON.parse(text))] : []));
  }

  /** Events waiting (a test waits for none). */
  size(): Promise<number> {
    return this.redis.zcard(this.order);
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.redis
      .multi()
      .zrem(this.order, ...ids)
      .hdel(this.events, ...ids)
      .exec();
  }
}

export interface AuditTrailOptions {
  bus: Bus;
  stream: AuditStreamConfig;
  service: string;
  logger: Logger;
  spool: AuditSpool;
  /** How long a publish may wait for the stream before the event goes to the spool (default 2 s). */
  publishTimeoutMs?: number;
  /** How often the spool is relayed while it holds events (default 1 s). */
  relayMs?: number;
  /** How often the spool is looked at anyway (default 60 s; also at start: a crash may have left events). */
  sweepMs?: number;
}

/** A request's events waiting for the group commit they go in. */
interface Waiting {
  events: readonly AuditEvent[];
  /** Each event's JSON (made once: its size decides what fits in a batch). */
  texts: string[];
  bytes: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Most bytes of events one batch carries (NATS refuses a message above its max_payload, 1 MiB by
 * default). An event larger than this goes alone, as any event did before group commit.
 */
export const AUDIT_MAX_BATCH_BYTES = 256 * 1024;
/** Batches in flight at once once the queue holds a full batch (below that, one at a time). */
const MAX_BATCHES_IN_FLIGHT = 4;

/**
 * Records audit events durably (see the module comment), with group commit (issue 38): a request
 * whose events arrive while this trail's previous publish is waiting for the stream joins the
 * events queued behind it, and the queue goes as one message on `audit.batch` when that publish
 * is answered — so under load one durable round trip serves many requests, and alone a request's
 * events go at once, as before. Each request still resolves only once its events are durable
 * (acknowledged in the stream, or spooled). After a publish fails, events go straight to the spool
 * until a relay run publishes again, so a NATS outage costs each request a spool write, not a
 * time-out.
 */
export class AuditTrail {
  private readonly publisher: EventPublisher;
  private readonly service: string;
  private degraded = false;
  private spooled = false;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private relaying?: Promise<void>;
  private lastSweep = 0;
  private readonly queue: Waiting[] = [];
  private queuedBytes = 0;
  private queuedEvents = 0;
  /** The commits in flight. */
  private readonly sent = new Set<Promise<void>>();
  /** Messages published by group commits and the events they carried (bench:audit reads them). */
  readonly commits = { messages: 0, events: 0 };

  constructor(private readonly options: AuditTrailOptions) {
    this.service = options.service;
    this.publisher = new EventPublisher(options.bus.nc, options.publishTimeoutMs ?? 2000);
  }

  /** Makes sure the stream exists and starts the relay (which looks at the spool at once). */
  async start(): Promise<void> {
    await ensureAuditStream(this.options.bus, this.options.stream);
    this.stopped = false;
    this.spooled = true; // look once: an earlier run may have left events
    const tick = () => {
      if (this.stopped) return;
      this.relaying = this.relay().finally(() => {
        this.relaying = undefined;
        if (!this.stopped) this.timers.push(setTimeout(tick, this.options.relayMs ?? 1000).unref());
      });
    };
    tick();
  }

  /** Waits for the events queued and in flight, then stops the relay and the publisher. */
  async stop(): Promise<void> {
    while (this.sent.size > 0) await Promise.allSettled([...this.sent]);
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await this.relaying;
    this.publisher.close();
  }

  /** Events published or spooled and not yet published (a test waits for zero). */
  get pending(): boolean {
    return this.spooled || this.queue.length > 0 || this.sent.size > 0;
  }

  /** Records an action; resolves once its events are durable (stream or spool), throws when neither took them. */
  async record(
    actor: AuditActor,
    action: AuditAction,
    recordIds: readonly string[] = [],
    detail?: AuditEvent['detail'],
  ): Promise<void> {
    await this.publish(auditEvents(this.service, action, actor, recordIds, detail ? { detail } : {}));
  }

  /**
   * Publishes events already built (the gateway's, a worker's) in the next group commit; resolves
   * once they are in the stream or, when it did not take them, in the spool.
   */
  publish(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    if (this.degraded) return this.spool(events);
    const texts = events.map((e) => JSON.stringify(e));
    const bytes = texts.reduce((sum, t) => sum + t.length + 1, 0);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ events, texts, bytes, resolve, reject });
      this.queuedBytes += bytes;
      this.queuedEvents += events.length;
      this.pump();
    });
  }

  /**
   * Starts a commit of what is queued when none is in flight (a request alone goes at once), or
   * another when a full batch waits; otherwise the queue waits for the commit in flight.
   */
  private pump(): void {
    while (
      this.queue.length > 0 &&
      (this.sent.size === 0 ||
        (this.sent.size < MAX_BATCHES_IN_FLIGHT &&
          (this.queuedEvents >= AUDIT_MAX_BATCH_EVENTS || this.queuedBytes >= AUDIT_MAX_BATCH_BYTES)))
    ) {
      const commit = this.commit(this.take()).finally(() => {
        this.sent.delete(commit);
        this.pump();
      });
      this.sent.add(commit);
    }
  }

  /** The requests at the head of the queue whose events fit in one batch (at least one request). */
  private take(): Waiting[] {
    const taken: Waiting[] = [];
    let events = 0;
    let bytes = 0;
    for (const w of this.queue) {
      const fits = events + w.events.length <= AUDIT_MAX_BATCH_EVENTS && bytes + w.bytes <= AUDIT_MAX_BATCH_BYTES;
      if (taken.length > 0 && !fits) break;
      taken.push(w);
      events += w.events.length;
      bytes += w.bytes;
    }
    this.queue.splice(0, taken.length);
    this.queuedEvents -= events;
    this.queuedBytes -= bytes;
    return taken;
  }

  /** Publishes the requests' events as one message (one event: on its action's subject, as before); spools them when the stream did not take it. */
  private async commit(taken: readonly Waiting[]): Promise<void> {
    const events = taken.flatMap((w) => w.events);
    try {
      if (this.degraded) {
        await this.spool(events);
      } else {
        try {
          await this.send(
            events,
            taken.flatMap((w) => w.texts),
          );
          this.commits.messages++;
          this.commits.events += events.length;
        } catch (err) {
          this.options.logger.warn({ err, events: events.length }, 'audit events spooled: NATS did not take them');
          this.degraded = true;
          this.spooled = true;
          await this.spool(events);
        }
      }
    } catch (err) {
      for (const w of taken) w.reject(err);
      return;
    }
    for (const w of taken) w.resolve();
  }

  /**
   * One event on its action's subject with its id as `Nats-Msg-Id`; several as a batch whose
   * message id is new. A re-publish of an event (the relay's) is stored once
   * either way: the stream keeps a message id once, the writer an event id.
   */
  private async send(events: readonly AuditEvent[], texts: readonly string[]): Promise<void> {
    const [first] = events;
    if (events.length === 1 && first) {
      await this.publisher.publish(auditSubject(this.options.stream, first.action), first.id, texts[0] as string);
      return;
    }
    await this.publisher.publish(
      `${this.options.stream.AUDIT_SUBJECT_PREFIX}.${AUDIT_BATCH_SUBJECT}`,
      `batch-${randomUUID()}`,
      `{"events":[${texts.join(',')}]}`,
    );
  }

  private async spool(events: readonly AuditEvent[]): Promise<void> {
    await this.options.spool.put(events);
    this.spooled = true;
  }

  /** Publishes what the spool holds, oldest first, removing each once the stream took it. */
  private async relay(): Promise<void> {
    const sweep = Date.now() - this.lastSweep >= (this.options.sweepMs ?? 60_000);
    if (!this.spooled && !sweep) return;
    if (sweep) this.lastSweep = Date.now();
    try {
      for (;;) {
        const events = await this.options.spool.take(200);
        if (events.length === 0) {
          this.spooled = false;
          this.degraded = false;
          return;
        }
        const results = await Promise.allSettled(events.map((e) => this.send([e], [JSON.stringify(e)])));
        const published = events.filter((_, i) => results[i]?.status === 'fulfilled').map((e) => e.id);
        await this.options.spool.remove(published);
        if (published.length < events.length) {
          this.spooled = true;
          return; // NATS is still away: try again at the next tick
        }
      }
    } catch (err) {
      this.spooled = true;
      this.options.logger.warn({ err }, 'audit spool relay failed; will retry');
    }
  }
}
