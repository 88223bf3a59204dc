import {
  type AuditStreamConfig,
  auditEvents,
  auditOutboxEntry,
  type Bus,
  type KeyedLock,
  type Logger,
  publishEventJson,
} from '@nrad/service-kit';
import type { Types } from 'mongoose';
import type { ImportEvent, ImportEventsDoc, ImportEventsRepository } from '../data/import-events.ts';
import type { OutboxEntry, RecordRepository } from '../data/records.ts';

/** Events of an import published at once (in flight to JetStream). */
const IMPORT_PUBLISHING = 64;
/**
 * Age after which the sweep relays an import outbox document although some of its records are
 * missing: an import request has long ended by then, so a missing record's row was refused.
 */
const IMPORT_SETTLE_MS = 600_000;

export interface RelayOptions {
  records: RecordRepository;
  imports: ImportEventsRepository;
  bus: Bus;
  lock: KeyedLock;
  logger: Logger;
  /** Where an import's audit events go. */
  auditStream: AuditStreamConfig;
  /** How often this process retries the events it could not publish (default 1 s). */
  retryMs?: number;
  /** How often the whole collection is searched for pending events (default 10 min; also at start). */
  sweepMs?: number;
  /**
   * How often the import outbox is looked at for documents a request left behind (default 5 s): it
   * is empty but for requests under way, so a look costs one read of a few ids; a request cut short
   * (the service killed, the store gone) is published as soon as its retry has made the rest.
   */
  importSweepMs?: number;
}

/**
 * The outbox relay: every change stores its event in the changed record's own document (one atomic
 * write), and this relay publishes pending events to JetStream in order, removing each only after
 * the stream acknowledged it. A change's event is relayed at once; what could not be published
 * (NATS down) is retried every `retryMs` from memory; a sweep of the collection at start and every
 * `sweepMs` picks up what an earlier run or another instance left (a crash, a restart). A
 * re-publish carries the same `Nats-Msg-Id`, so the stream keeps it once.
 *
 * The sweep is a query on `outboxPending` (an index read on MongoDB and on our FerretDB build); the
 * in-memory retries make a long default interval enough.
 */
export class OutboxRelay {
  private readonly running = new Map<string, Promise<boolean>>();
  private readonly again = new Set<string>();
  /** Records of this process whose events are not all published yet. */
  private readonly retry = new Map<string, Types.ObjectId>();
  private timers: NodeJS.Timeout[] = [];
  private readonly busy = new Set<Promise<void>>();
  /**
   * Import outbox documents of this process's requests under way, from before the document is
   * stored until its relay ends (the sweep leaves them alone).
   */
  private readonly importing = new Set<string>();
  /** The run of `sweepImports` under way (the import timer and the full sweep share it). */
  private importSweep: Promise<void> | undefined;
  /** Import outbox documents of this process whose events are not all published yet. */
  private readonly importRetry = new Map<string, { doc: ImportEventsDoc; events: readonly ImportEvent[] }>();
  private stopped = false;
  private failing = false;

  constructor(private readonly options: RelayOptions) {}

  /** Sweeps now (events left from before a restart), then retries and sweeps on their intervals. */
  start(): void {
    this.stopped = false;
    this.every(this.options.retryMs ?? 1000, () => this.retryPending());
    this.every(this.options.sweepMs ?? 600_000, () => this.sweep(), true);
    this.every(this.options.importSweepMs ?? 5000, () =>
      this.sweepImports().catch((err: unknown) => {
        this.options.logger.error({ err }, 'import outbox sweep failed');
      }),
    );
  }

  /** Runs `work` now (if asked) and then `ms` after each run ends, until stopped. */
  private every(ms: number, work: () => Promise<void>, now = false): void {
    const run = () => {
      if (this.stopped) return;
      const p = work().finally(() => {
        this.busy.delete(p);
        if (!this.stopped) this.timers.push(setTimeout(run, ms));
      });
      this.busy.add(p);
    };
    if (now) run();
    else this.timers.push(setTimeout(run, ms));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await Promise.all([...this.busy]);
    await Promise.all(this.running.values());
  }

  /**
   * Relays one record's pending events soon, without making the caller wait. `first` are events
   * the caller just stored and knows to be the record's oldest pending ones (a new record's
   * `created`): they are published before the record is read back, so a new record's event waits
   * for no read (on unpatched FerretDB that read is a scan of the collection, ADR 0006).
   */
  /**
   * A write to this record whose outcome is unknown (the store's answer was lost): had it been
   * stored, its events are pending, so the record is retried every `retryMs` like one whose publish
   * failed, instead of waiting for the next sweep. A record that is not there is done at once.
   */
  unsure(id: Types.ObjectId): void {
    if (this.stopped) return; // the next start's sweep publishes it
    this.retry.set(id.toHexString(), id);
  }

  /**
   * An import request is about to store its outbox document `id`: the sweep leaves the document
   * alone until `relayImported` (or `importAbandoned`, when the request failed) says otherwise.
   */
  importBegun(id: Types.ObjectId): void {
    this.importing.add(id.toHexString());
  }

  /** The request of import outbox document `id` failed: the sweep publishes what it left. */
  importAbandoned(id: Types.ObjectId): void {
    this.importing.delete(id.toHexString());
  }

  kick(id: Types.ObjectId, first: readonly OutboxEntry[] = []): void {
    if (this.stopped) return; // the next start's sweep publishes it
    void this.relay(id, first).catch((err: unknown) => {
      this.retry.set(id.toHexString(), id);
      this.options.logger.warn({ err }, 'outbox relay failed; will retry');
    });
  }

  /**
   * Relays the `created` events of an import request (stored in the import outbox before its
   * records, docs/adr/0011): publishes those of the records it created (`IMPORT_PUBLISHING` at a
   * time), then deletes the request's document. What could not be published is retried every
   * `retryMs` (and stays in the import outbox for the sweep of another run).
   */
  relayImported(doc: ImportEventsDoc, created: ReadonlySet<string>): void {
    if (this.stopped) return; // the next start's sweep publishes them
    const events = doc.events.filter((e) => created.has(e.recordId.toHexString()));
    const p: Promise<void> = this.relayImportOnce(doc, events)
      .then(() => undefined)
      .finally(() => this.busy.delete(p));
    this.busy.add(p); // stop() waits for it
  }

  /** One attempt at an import's events; what fails is retried with the rest every `retryMs`. */
  private async relayImportOnce(doc: ImportEventsDoc, events: readonly ImportEvent[]): Promise<boolean> {
    const key = doc._id.toHexString();
    this.importing.add(key);
    try {
      const done = await this.publishImported(doc, events);
      if (done) this.importRetry.delete(key);
      else this.importRetry.set(key, { doc, events });
      return done;
    } catch (err) {
      this.options.logger.warn({ err }, 'relaying an import failed; will retry');
      this.importRetry.set(key, { doc, events });
      return false;
    } finally {
      this.importing.delete(key);
    }
  }

  /** Publishes `events` (`IMPORT_PUBLISHING` at once); deletes `doc` once every one of them went. */
  private async publishImported(doc: ImportEventsDoc, events: readonly ImportEvent[]): Promise<boolean> {
    let next = 0;
    let failed = false;
    const worker = async () => {
      for (let i = next++; i < events.length && !failed; i = next++) {
        if (!(await this.publish((events[i] as ImportEvent).entry))) failed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(IMPORT_PUBLISHING, events.length) }, worker));
    if (failed) return false;
    for (const entry of this.importAudit(doc, events)) {
      if (!(await this.publish(entry))) return false;
    }
    await this.options.imports.remove(doc._id);
    return true;
  }

  /**
   * The `record.create` audit events of an import's records that exist (up to 1,000 ids each),
   * with ids from the import document's, so that publishing them again stores them once.
   */
  private importAudit(doc: ImportEventsDoc, events: readonly ImportEvent[]): OutboxEntry[] {
    if (!doc.audit || events.length === 0) return [];
    return auditEvents(
      'records',
      'record.create',
      doc.audit,
      events.map((e) => e.recordId.toHexString()),
      { id: `import-${doc._id.toHexString()}`, at: doc.createdAt, detail: { via: 'upload' } },
    ).map((event) => auditOutboxEntry(this.options.auditStream, event));
  }

  /**
   * Publishes what import requests left in the import outbox (a crash between storing the events
   * and relaying them, NATS down): once every record of the request exists (its retry made the
   * rest) or the request is older than `IMPORT_SETTLE_MS`, the events of the records that exist
   * and that this document's request inserted (`importId`; a record without one, from before it
   * was kept, counts as its). A record its retry inserted belongs to the retry's document, which
   * publishes it. Stops early when publishing fails. One run at a time.
   */
  private sweepImports(): Promise<void> {
    this.importSweep ??= this.sweepImportsOnce().finally(() => {
      this.importSweep = undefined;
    });
    return this.importSweep;
  }

  private async sweepImportsOnce(): Promise<void> {
    const { imports, records } = this.options;
    for (;;) {
      let removed = 0;
      for (const id of await imports.oldestIds(20)) {
        if (this.stopped) return;
        const key = id.toHexString();
        if (this.importing.has(key) || this.importRetry.has(key)) continue; // this process's own
        const doc = await imports.get(id);
        if (!doc) continue;
        const owners = await records.importOwners(doc.events.map((e) => e.recordId));
        const settled = owners.size === doc.events.length || Date.now() - doc.createdAt.getTime() > IMPORT_SETTLE_MS;
        if (!settled) continue; // still being imported, or waiting for its retry: a later sweep comes back
        const events = doc.events.filter((e) => {
          const owner = owners.get(e.recordId.toHexString());
          return owner !== undefined && (owner === null || owner === key);
        });
        this.importing.add(key);
        try {
          if (!(await this.publishImported(doc, events))) return;
        } finally {
          this.importing.delete(key);
        }
        removed++;
      }
      if (removed === 0) return;
    }
  }

  /** Retries the imports and records of this process whose events could not be published. */
  private async retryPending(): Promise<void> {
    for (const { doc, events } of [...this.importRetry.values()]) {
      if (this.stopped || !(await this.relayImportOnce(doc, events))) return;
    }
    for (const id of [...this.retry.values()]) {
      if (this.stopped) return;
      const done = await this.relay(id).catch(() => false);
      if (!done) return; // still failing: keep the rest for the next round
    }
  }

  /** Publishes every pending event (records' and imports'); stops early when publishing fails. */
  async sweep(): Promise<void> {
    try {
      await this.sweepImports();
      for (;;) {
        const ids = await this.options.records.withPendingEvents(200);
        if (ids.length === 0) return;
        let progressed = false;
        for (const id of ids) {
          if (this.stopped) return;
          if (await this.relay(id)) progressed = true;
        }
        if (!progressed) return;
      }
    } catch (err) {
      this.options.logger.error({ err }, 'outbox sweep failed');
    }
  }

  /**
   * Publishes one record's pending events in order; at most one relay per record runs at a time
   * (a kick during a relay runs again after it). Resolves true when the record has none left.
   */
  relay(id: Types.ObjectId, first: readonly OutboxEntry[] = []): Promise<boolean> {
    const key = id.toHexString();
    const current = this.running.get(key);
    if (current) {
      this.again.add(key);
      return current;
    }
    const run = (async () => {
      let done = false;
      let known = first;
      try {
        do {
          this.again.delete(key);
          done = await this.relayOnce(id, known);
          known = [];
        } while (this.again.has(key) && !this.stopped);
        if (done) this.retry.delete(key);
        else this.retry.set(key, id);
      } finally {
        // No await between the last check of `again` and this: a kick cannot slip in between.
        this.running.delete(key);
      }
      return done;
    })();
    this.running.set(key, run);
    return run;
  }

  private async relayOnce(id: Types.ObjectId, known: readonly OutboxEntry[]): Promise<boolean> {
    const { records, lock, logger } = this.options;
    const published = new Set<string>();
    for (const entry of known) {
      if (!(await this.publish(entry))) return false;
      published.add(entry.id);
    }
    const state = await records.outboxOf(id);
    if (!state || state.outbox.length === 0) return true;
    for (const entry of state.outbox) {
      if (published.has(entry.id)) continue;
      if (!(await this.publish(entry))) break; // keep the order: later events of this record wait
      published.add(entry.id);
    }
    if (published.size === 0) return false;
    if (this.failing) logger.info('event publishing resumed');
    this.failing = false;
    // Remove what was acknowledged, against a fresh read: a change may have appended an event since.
    return lock.run(id.toHexString(), async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const fresh = await records.outboxOf(id);
        if (!fresh) return true;
        const left = fresh.outbox.filter((e) => !published.has(e.id));
        if (await records.setOutbox(id, fresh.version, left)) return left.length === 0;
      }
      return false; // changed under us repeatedly (another instance); the sweep comes back to it
    });
  }

  /** Publishes one event (its id is the Nats-Msg-Id); false when NATS did not take it. */
  private async publish(entry: OutboxEntry): Promise<boolean> {
    try {
      await publishEventJson(this.options.bus, entry.subject, entry.id, entry.payload);
      return true;
    } catch (err) {
      if (!this.failing) this.options.logger.warn({ err, eventId: entry.id }, 'event not published yet; will retry');
      this.failing = true;
      return false;
    }
  }
}
