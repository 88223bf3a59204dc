// The weight estimation thread (weights-thread.ts): gathers `right`, rebuilds the records' identity
// from their references, runs em.ts's weightEstimation at once and answers its estimate.
import { parentPort } from 'node:worker_threads';
import { finish, type LabelledPair, type PreparedRecord, weightEstimation } from '@nrad/matching';
import type { RecordRef, WeightsAnswer, WeightsMessage } from './weights-thread.ts';

const port = parentPort;
if (!port) throw new Error('weights-worker runs as a worker thread');
const right: PreparedRecord[] = [];
const recordOf = (ref: RecordRef): PreparedRecord => (typeof ref === 'number' ? (right[ref] as PreparedRecord) : ref);

port.on('message', (message: WeightsMessage) => {
  if (message.kind === 'right') {
    for (const record of message.records) right.push(record);
    return;
  }
  let answer: WeightsAnswer;
  try {
    const labels: LabelledPair[] = message.labels.map((l) => ({ a: recordOf(l.a), b: recordOf(l.b), same: l.same }));
    const estimate = finish(weightEstimation(message.left.map(recordOf), message.pairs, right, { labels }));
    answer = { ok: true, estimate };
  } catch (err) {
    answer = { ok: false, message: (err as Error).message };
  }
  port.postMessage(answer);
});
