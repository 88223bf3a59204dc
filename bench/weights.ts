// `npm run bench:weights [-- --n 100000 --rounds 3 --seed 7]`: the linking service's estimate of
// r and the weights (domain/match-rate.ts estimateMatchRate: 200,000 random pairs for u, then EM on
// a sample's candidate pairs) on its in-memory index of island records, as the service runs one at
// start and again as an upload grows the pairs across agencies (README.md "Benchmarks"). Needs no
// services: one process, one core.

import { entryFor, estimateMatchRate, MatchIndex } from '@nrad/linking-service/bench-support';
import { newRecordDoc, presentRecord } from '@nrad/records-service/storage';
import { Types } from 'mongoose';
import { readCounts } from './src/cli.ts';
import { Island } from './src/island.ts';
import { machineLine, percentile } from './src/report.ts';
import { Random, recordBody, recordInput, withTypo } from './src/seed.ts';

const USAGE = `Usage: npm run bench:weights -- [--n N] [--rounds R] [--seed X]
  --n       records in the index: 90% police, 10% FIA, 1 in 10 of FIA's a near-duplicate of a police record (default 100000, or BENCH_N)
  --rounds  estimates timed (default 3)
  --seed    seed of the generated records (default 7)`;

const { n, rounds, seed } = readCounts(USAGE, {
  n: { fallback: 100_000, min: 1000, env: 'BENCH_N' },
  rounds: { fallback: 3, min: 1 },
  seed: { fallback: 7, min: 0 },
});

const rng = new Random(seed);
const island = new Island(rng);
const index = new MatchIndex();
const createdAt = new Date('2026-06-01T00:00:00Z');
const police: Array<{ suspectName: string; suspectDob: string }> = [];
const owner = (organization: 'BPS' | 'FIA') => ({ organization, createdById: new Types.ObjectId().toHexString() });
for (let i = 0; i < n; i++) {
  const fia = i % 10 === 9;
  const agency = fia ? 'FIA' : 'BPS';
  const near = fia && i % 100 === 99 && police.length > 0 ? rng.pick(police) : undefined;
  const person = near
    ? { suspectName: withTypo(rng, near.suspectName), suspectDob: near.suspectDob }
    : island.person(rng);
  if (!fia) police.push(person);
  const body = { ...recordBody(rng, agency, String(i).padStart(6, '0'), createdAt), ...person };
  index.put(entryFor(presentRecord(newRecordDoc(recordInput(body), owner(agency), createdAt))));
}

console.log(machineLine());
console.log(`Index:   ${n.toLocaleString('en')} records (island names), in memory; no store`);
const ms: number[] = [];
const weightsMs: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const estimate = estimateMatchRate(index);
  ms.push(estimate.ms);
  weightsMs.push(estimate.weights.ms);
  console.log(
    `estimate ${round}: ${estimate.ms.toFixed(0)} ms (weights ${estimate.weights.ms.toFixed(0)} ms, ${estimate.weights.adopted ? 'estimated' : 'fixed'}; r ${estimate.matchesPerRecord.toFixed(3)} from ${estimate.sample} records, ${estimate.pairs} pairs)`,
  );
}
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
console.log(
  `median:     ${median(ms).toFixed(0)} ms an estimate, ${median(weightsMs).toFixed(0)} ms of it the weights`,
);
