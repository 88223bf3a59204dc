import { type RecordEvent, RecordEventSchema } from '@nrad/contracts';
import { type Bus, type Logger, Scope } from '@nrad/service-kit';
import type { StatsStore } from '../data/store.ts';
import { StatsModel, stateOf } from '../domain/figures.ts';
import type { StatsDeps } from './stats.ts';

export interface RebuildOptions {
  store: StatsStore;
  bus: Bus;
  logger: Logger;
  /** The RECORDS stream and the first token of its subjects (`records`). */
  stream: string;
  subjectPrefix: string;
  /** The service's durable consumer: while a client pulls from it, the service is running. */
  durable: string;
  /**
   * Rebuild even though the service seems to be running (it must not write meanwhile), or the
   * stream no longer holds its first events (records created then would be missing).
   */
  force?: boolean;
}

export interface RebuildReport {
  /** Events read from the stream. */
  events: number;
  /** Of those, not decodable (the service terminates them too). */
  undecodable: number;
  /** Record states written to the new read model. */
  records: number;
  ms: number;
  /** The rebuilt model (its figures are what the service will load). */
  model: StatsModel;
}

/**
 * Refused: the service's consumer has a client waiting for events (the service is running), the
 * stream does not exist, or it no longer holds its first events.
 */
export class RebuildRefusedError extends Error {
  override name = 'RebuildRefusedError';
}

/**
 * Rebuilds the read model from the start of the RECORDS stream: every event is applied in stream
 * order to a fresh model (the same version rule as the service: a snapshot no newer than the one
 * applied changes nothing), which is then written to a fresh collection that takes the old one's
 * place. The stream keeps every record event (no limits), so this is the whole history.
 *
 * The stats service must be stopped meanwhile: a write of its own during the swap could be lost.
 * When it starts again it loads the rebuilt states, and its durable consumer redelivers whatever it
 * had not acknowledged, which the version rule makes harmless.
 */
export async function rebuildReadModel(options: RebuildOptions): Promise<RebuildReport> {
  const started = performance.now();
  if (!options.force) await refuseWhileRunning(options);
  await checkHistory(options);
  const model = new StatsModel();
  let events = 0;
  let undecodable = 0;
  await replayStream(options, (event) => {
    events += 1;
    if (event) model.apply(event.record.id.toLowerCase(), stateOf(event.record));
    else undecodable += 1;
  });
  const records = await options.store.replaceAll(model.entries());
  const ms = Math.round(performance.now() - started);
  options.logger.info({ events, undecodable, records, ms }, 'read model rebuilt');
  return { events, undecodable, records, ms, model };
}

/**
 * At start, before the consumer: a read model stored before the breakdowns existed (states
 * without `detailed`) is rebuilt from the RECORDS stream (it keeps every record event; 102,000
 * events took 7.6 s, ADR 0010), so no operator step is needed after an upgrade. If the stream
 * cannot give the whole history, the service runs on with those records counted in
 * `withoutDetail`, which the breakdown (and a report) states.
 */
export async function rebuildUndetailed(
  deps: StatsDeps,
  options: Omit<RebuildOptions, 'store' | 'logger' | 'force'>,
): Promise<void> {
  const outdated = deps.model.figures(Scope.system('stats rebuild: records counted without detail')).withoutDetail;
  if (outdated === 0) return;
  deps.logger.info({ outdated }, 'read model predates the breakdowns: rebuilding it from the stream');
  try {
    deps.model = (await rebuildReadModel({ ...options, store: deps.store, logger: deps.logger })).model;
  } catch (err) {
    if (!(err instanceof RebuildRefusedError)) throw err;
    deps.logger.error({ outdated, reason: err.message }, 'read model not rebuilt: breakdowns leave those records out');
  }
}

async function refuseWhileRunning({ bus, stream, durable }: RebuildOptions): Promise<void> {
  const info = await bus.jsm.consumers.info(stream, durable).catch(() => undefined);
  if (info && info.num_waiting > 0) {
    throw new RebuildRefusedError(
      `The stats service is running (consumer "${durable}" of ${stream} has a client waiting): stop it before rebuilding its read model.`,
    );
  }
}

/** The stream must exist and still begin with its first event, else the rebuild would lose records. */
async function checkHistory({ bus, stream, force }: RebuildOptions): Promise<void> {
  const info = await bus.jsm.streams.info(stream).catch((err: unknown) => {
    if ((err as Error).name !== 'StreamNotFoundError') throw err;
    throw new RebuildRefusedError(`There is no stream ${stream} to rebuild from (RECORDS_STREAM).`);
  });
  if (info.state.first_seq > 1 && !force) {
    throw new RebuildRefusedError(
      `The stream ${stream} no longer holds its first events (it starts at ${info.state.first_seq}): a model rebuilt from it would miss records.`,
    );
  }
}

/** Hands every event of `<prefix>.>` in the stream to `apply`, in order (null: one that does not decode). */
async function replayStream(
  { bus, stream, subjectPrefix, logger }: RebuildOptions,
  apply: (event: RecordEvent | null) => void,
): Promise<void> {
  const filter = `${subjectPrefix}.>`;
  const info = await bus.jsm.streams.info(stream, { subjects_filter: filter });
  const total = Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  if (total === 0) return;
  // An ordered consumer: ephemeral, in stream order, no acknowledgements; gone once we stop.
  const consumer = await bus.js.consumers.get(stream, { filter_subjects: filter });
  const messages = await consumer.consume();
  try {
    for await (const m of messages) {
      let event: RecordEvent | null = null;
      try {
        event = RecordEventSchema.parse(m.json());
      } catch (err) {
        logger.warn({ err, seq: m.seq }, 'undecodable event skipped');
      }
      apply(event);
      if (m.info.pending === 0) break;
    }
  } finally {
    await messages.close();
  }
}
