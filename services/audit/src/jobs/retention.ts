import type { Logger } from '@nrad/service-kit';
import type { AuditStore } from '../data/store.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface RetentionOptions {
  store: AuditStore;
  logger: Logger;
  /** Entries younger than this many days are kept (AUDIT_RETENTION_DAYS). */
  days: number;
  /** Hours between runs (AUDIT_RETENTION_CHECK_HOURS). */
  everyHours: number;
  now?: () => Date;
}

/** One run: removes the entries older than `days` before now from the start of the chain. */
export async function applyRetention({ store, logger, days, now = () => new Date() }: RetentionOptions) {
  const cutoff = new Date(now().getTime() - days * DAY_MS);
  const result = await store.removeOlderThan(cutoff);
  logger.info(
    { removed: result.removed, cutoff: cutoff.toISOString(), anchorSeq: result.anchor.seq },
    `audit retention: ${result.removed} entries older than ${days} days removed`,
  );
  return { ...result, cutoff };
}

/**
 * Retention on a schedule: a run at once (in the background: a long first run does not hold the
 * start) and then every `everyHours`; a run that fails is logged and the next one tries again.
 * `stop()` ends the schedule and waits for a run in progress; `idle()` waits for a run in progress.
 */
export function scheduleRetention(options: RetentionOptions) {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = applyRetention(options)
      .then(
        () => undefined,
        (err: unknown) => options.logger.error({ err }, 'audit retention failed; the next run tries again'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, options.everyHours * HOUR_MS).unref();
  run();
  return {
    async idle() {
      await running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
