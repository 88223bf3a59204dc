// `npm run bench:weights [-- --n 100000 --rounds 3 --seed 7]`: the linking service's estimate of
// r and the weights (domain/match-rate.ts estimateMatchRate: 200,000 random pairs for u, then EM on
// a sample's candidate pairs) on its in-memory index of island records, as the service runs one at
// start and again as an upload grows the pairs across agencies (README.md "Benchmarks"). Needs no
// services: one process, one core.

import { entryFor, estimateMatchRate, MatchIndex } from '@nrad/linking-service/bench-support';
import { presentRecord } from '@nrad/records-service/storage';
import { readCounts } from './src/cli.ts';
import { Island, type IslandPerson } from './src/island.ts';
import { machineLine, median } from './src/report.ts';
import { Random, withTypo } from './src/seed.ts';
import { seedRecords, unsignedOwners } from './src/seeding.ts';

const USAGE = `Usage: npm run bench:weights -- [--n N] [--rounds R] [--seed X]
  --n       records in the index, the three agencies' alike, 1% a near-duplicate of an earlier one (default 100000, or BENCH_N)
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
const drawn: IslandPerson[] = [];
// The island's people, and now and then one of them again with a typo (most likely by another agency).
const person = (r: Random): IslandPerson => {
  const again = drawn.length > 0 && r.chance(0.01) ? r.pick(drawn) : undefined;
  if (again) return { suspectName: withTypo(r, again.suspectName), suspectDob: again.suspectDob };
  const fresh = island.person(r);
  drawn.push(fresh);
  return fresh;
};
await seedRecords(
  unsignedOwners(),
  n,
  rng,
  () => {},
  async (docs) => {
    for (const doc of docs) index.put(entryFor(presentRecord(doc)));
  },
  { person },
);

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
console.log(
  `median:     ${median(ms).toFixed(0)} ms an estimate, ${median(weightsMs).toFixed(0)} ms of it the weights`,
);
