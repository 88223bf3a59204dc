import { type Bus, type Logger, publishEvent } from '@nrad/service-kit';
import type { Types } from 'mongoose';
import type { RecordRepository } from '../data/records.ts';
import type { KeyedLock } from '../lib/keyed-lock.ts';

export interface RelayOptions {
  records: RecordRepository;
  bus: Bus;
  lock: KeyedLock;
  logger: Logger;
  /** How often records with unpublished events are looked for (default 2 s). */
  sweepMs?: number;
}

/**
 * The outbox relay: every change stores its event in the changed record's own document (one atomic
 * write), and this relay publishes pending events to JetStream in order, removing each only after
 * the stream acknowledged it. A change's event is relayed at once; a sweep picks up whatever is left
 * (NATS down, a crash, a restart). A re-publish carries the same `Nats-Msg-Id`, so the stream keeps
 * it once.
 */
export class OutboxRelay {
  private readonly running = new Map<string, Promise<boolean>>();
  private readonly again = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(private readonly options: RelayOptions) {}

  /** Sweeps now (events left from before a restart) and then every `sweepMs`. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.sweeping = this.sweep().finally(() => {
        this.sweeping = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.options.sweepMs ?? 2000);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sweeping;
    await Promise.all(this.running.values());
  }

  /** Relays one record's pending events soon, without making the caller wait. */
  kick(id: Types.ObjectId): void {
    if (this.stopped) return; // the next start's sweep publishes it
    void this.relay(id).catch(() => {});
  }

  /** Publishes every pending event; resolves when none is left (or one could not be published). */
  async sweep(): Promise<void> {
    try {
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
  relay(id: Types.ObjectId): Promise<boolean> {
    const key = id.toHexString();
    const current = this.running.get(key);
    if (current) {
      this.again.add(key);
      return current;
    }
    const run = (async () => {
      let done = false;
      try {
        do {
          this.again.delete(key);
          done = await this.relayOnce(id);
        } while (this.again.has(key) && !this.stopped);
      } finally {
        // No await between the last check of `again` and this: a kick cannot slip in between.
        this.running.delete(key);
      }
      return done;
    })();
    this.running.set(key, run);
    return run;
  }

  private async relayOnce(id: Types.ObjectId): Promise<boolean> {
    const { records, bus, lock, logger } = this.options;
    const state = await records.outboxOf(id);
    if (!state || state.outbox.length === 0) return true;
    const published = new Set<string>();
    for (const entry of state.outbox) {
      try {
        await publishEvent(bus.js, entry.subject, entry.id, JSON.parse(entry.payload));
        published.add(entry.id);
      } catch (err) {
        if (!this.failing) logger.warn({ err, eventId: entry.id }, 'event not published yet; will retry');
        this.failing = true;
        break; // keep the order: later events of this record wait for this one
      }
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
}
