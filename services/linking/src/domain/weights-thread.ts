import type { Worker } from 'node:worker_threads';
import type { LabelledPair, PreparedRecord, WeightEstimate } from '@nrad/matching';
import { startWorkerThread } from '@nrad/service-kit';

/**
 * EM's weight estimation (em.ts `weightEstimation`: 200,000 random pairs for u, the sessions, EM)
 * run in a worker thread instead of in slices of the service's own event loop. It is most of a
 * match-rate estimate's time (2–3 CPU-s at 100,000 records), and an upload into a new deployment
 * asks for one each time the pairs across agencies grow fourfold (MatchRate.grown): in slices,
 * they took about a third of the linking service's time while it linked the upload's records
 * (bench:ingest, 100,000 rows: 39 CPU-s with them, 28 without), and the records waited. The thread
 * computes exactly what the slices did — the same function on the same records — and the service
 * goes on linking meanwhile.
 */
export type WeightsOffload = (input: WeightsInput) => Promise<WeightEstimate | undefined>;

export interface WeightsInput {
  readonly left: readonly PreparedRecord[];
  readonly pairs: ReadonlyArray<readonly [number, number]>;
  readonly right: readonly PreparedRecord[];
  readonly labels: readonly LabelledPair[];
}

/**
 * A record as the thread receives it: its place in `right` when it is there (the records are the
 * same objects in left, right and the labels, and em.ts tells them apart by identity: a record
 * drawn against itself, a decided pair among the candidates), else the record itself.
 */
export type RecordRef = number | PreparedRecord;

/** The messages to the thread, in order: `right` in parts, then the rest. */
export type WeightsMessage =
  | { kind: 'right'; records: PreparedRecord[] }
  | {
      kind: 'estimate';
      left: RecordRef[];
      pairs: ReadonlyArray<readonly [number, number]>;
      labels: Array<{ a: RecordRef; b: RecordRef; same: boolean }>;
    };

/** The thread's answer. */
export type WeightsAnswer = { ok: true; estimate: WeightEstimate | undefined } | { ok: false; message: string };

/** Records of `right` posted at a time: a part's copy holds the event loop some 40 ms at most. */
export const RIGHT_PART = 10_000;

/** The thread's heap (MB): the population's copy (some 300 bytes a record) and EM's observations. */
const THREAD_HEAP_MB = 512;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The places in `right` of the records the thread must know by identity (the sample's and the
 * decided pairs': a few thousand), found in one walk of `right` — not a map of the whole population.
 */
function placesOf(right: readonly PreparedRecord[], wanted: Iterable<PreparedRecord>): Map<PreparedRecord, number> {
  const places = new Map<PreparedRecord, number>();
  for (const record of wanted) places.set(record, -1);
  right.forEach((record, at) => {
    if (places.get(record) === -1) places.set(record, at);
  });
  return places;
}

/** A record as the thread receives it (see RecordRef). */
const refOf = (places: ReadonlyMap<PreparedRecord, number>, record: PreparedRecord): RecordRef => {
  const at = places.get(record) ?? -1;
  return at >= 0 ? at : record;
};

/**
 * Runs the weight estimation of `input` in a thread of its own (started for it, gone after):
 * `right` goes in parts of RIGHT_PART, the event loop given back between them. Rejects when the
 * thread fails (its error), so that the caller can estimate in its own thread instead.
 */
export const estimateWeightsInThread: WeightsOffload = async (input) => {
  const places = placesOf(input.right, [...input.left, ...input.labels.flatMap((l) => [l.a, l.b])]);
  const worker = startWorkerThread(import.meta.url, 'weights-worker', {
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, stackSizeMb: 4 },
    stdout: false,
    stderr: false,
  });
  worker.unref(); // a service stopping does not wait for an estimate
  const answer = answerOf(worker);
  try {
    for (let at = 0; at < input.right.length; at += RIGHT_PART) {
      worker.postMessage({ kind: 'right', records: input.right.slice(at, at + RIGHT_PART) } satisfies WeightsMessage);
      await nextTurn();
    }
    worker.postMessage({
      kind: 'estimate',
      left: input.left.map((record) => refOf(places, record)),
      pairs: input.pairs,
      labels: input.labels.map((l) => ({ a: refOf(places, l.a), b: refOf(places, l.b), same: l.same })),
    } satisfies WeightsMessage);
    return await answer;
  } finally {
    void worker.terminate();
  }
};

function answerOf(worker: Worker): Promise<WeightEstimate | undefined> {
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: WeightsAnswer) => {
      if (answer.ok) resolve(answer.estimate);
      else reject(new Error(`weight estimation thread: ${answer.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`weight estimation thread exited (${code})`)));
  });
}
