import { type Bus, type KeyedLock, type Logger, publishEventJson } from '@nrad/service-kit';
import { Types } from 'mongoose';
import type { LinkDoc, LinkingStore, OutboxMessage } from '../data/store.ts';

/** A stored link's messages, in the order they are published. */
export interface PendingLink {
  /** The link's id. */
  id: string;
  messages: OutboxMessage[];
  /** The link's change count these messages go up to (0: none since it was made). */
  changeSeq: number;
}

/**
 * What a stored link has still to publish: unless published, `links.created` (the link id as its
 * `Nats-Msg-Id`) on `linksSubject`, then its audit event (`link.create`) when it has one; then the
 * messages of its rejections and restores (`links.rejected`/`links.restored` and their audit
 * events) in order. A published `links.created` is never sent again: the stream's duplicate window
 * is short, and a late copy after a rejection would set the Linked flag again.
 */
export function pendingLink(doc: LinkDoc, linksSubject: string): PendingLink {
  const id = doc._id.toHexString();
  const created = doc.published
    ? []
    : [{ id, subject: linksSubject, payload: doc.event }, ...(doc.audit ? [doc.audit] : [])];
  return { id, messages: [...created, ...(doc.pending ?? [])], changeSeq: doc.changeSeq ?? 0 };
}

/** Whether a stored link has messages to publish. */
export const hasPending = (doc: LinkDoc) => !doc.published || (doc.pending?.length ?? 0) > 0;

/**
 * Publishes the messages of every stored link — `links.created` and the link's `link.create` audit
 * event — until the streams acknowledge them. A link and its events are one document
 * (`published: false` until both are acknowledged), so a crash between the write and the publish
 * loses nothing: at start every unpublished link is queued again (the service loads all links
 * anyway). Each message has a fixed `Nats-Msg-Id` (the link id; the audit event's id, made from the
 * link id), so a re-publish is stored once.
 */
export class LinkRelay {
  private readonly pending = new Map<string, PendingLink>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      store: LinkingStore;
      bus: Bus;
      logger: Logger;
      retryMs: number;
      /** The links' lock: marking a link published must not overlap a rejection or restore of it. */
      lock: KeyedLock;
    },
  ) {}

  /** Queues a link's messages and tries to publish them now. */
  enqueue(item: PendingLink): void {
    this.pending.set(item.id, item);
    this.kick();
  }

  get size(): number {
    return this.pending.size;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.kick();
      this.schedule();
    }, this.options.retryMs);
  }

  private kick(): void {
    if (this.running || this.stopped || this.pending.size === 0) return;
    this.running = this.flush().finally(() => {
      this.running = undefined;
    });
  }

  private async flush(): Promise<void> {
    const { bus, store, logger, lock } = this.options;
    for (;;) {
      const next = this.pending.values().next();
      if (next.done || this.stopped) return;
      const item = next.value;
      try {
        for (const m of item.messages) await publishEventJson(bus, m.subject, m.id, m.payload);
        await lock.run(item.id, () => store.markPublished(new Types.ObjectId(item.id), item.changeSeq));
        // A change queued meanwhile replaced the item: it stays (it holds these messages too).
        if (this.pending.get(item.id) === item) this.pending.delete(item.id);
      } catch (err) {
        logger.warn({ err, link: item.id }, 'link events not published yet; will retry');
        return; // NATS or the database is down: the next tick tries again, in order
      }
    }
  }
}
