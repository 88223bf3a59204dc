import { type Bus, type Logger, publishEventJson } from '@nrad/service-kit';
import { Types } from 'mongoose';
import type { LinkingStore } from '../data/store.ts';

interface Pending {
  id: string;
  subject: string;
  event: string;
}

/**
 * Publishes `links.created` for every stored link until the stream acknowledges it. A link and its
 * event are one document (`published: false` until acknowledged), so a crash between the write and
 * the publish loses nothing: at start every unpublished link is queued again (the service loads
 * all links anyway). The link id is the `Nats-Msg-Id`, so a re-publish is stored once.
 */
export class LinkRelay {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: { store: LinkingStore; bus: Bus; logger: Logger; retryMs: number }) {}

  /** Queues a link's event and tries to publish it now. */
  enqueue(item: Pending): void {
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
    const { bus, store, logger } = this.options;
    for (;;) {
      const next = this.pending.values().next();
      if (next.done || this.stopped) return;
      const item = next.value;
      try {
        await publishEventJson(bus, item.subject, item.id, item.event);
        await store.markPublished(new Types.ObjectId(item.id));
        this.pending.delete(item.id);
      } catch (err) {
        logger.warn({ err, link: item.id }, 'links.created not published yet; will retry');
        return; // NATS or the database is down: the next tick tries again, in order
      }
    }
  }
}
