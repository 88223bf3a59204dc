/**
 * `npm run bench:link-csv`: link-csv at scale (src/link-csv/scale-bench.ts). Options: `--records N`
 * (50,000), `--largest K` (20: the largest group of one person's records), `--seed S` (1).
 */
import { parseArgs } from 'node:util';
import { formatScaleBench, runScaleBench } from '../src/link-csv/scale-bench.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '50000' },
    largest: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
  },
});
const records = Number(values.records);
const largest = Number(values.largest);
const seed = Number(values.seed);
if (![records, largest, seed].every(Number.isInteger) || records < 2 || largest < 1) {
  console.error('usage: bench:link-csv [--records N] [--largest K] [--seed S]');
  process.exit(2);
}
console.error(
  `Running link-csv on ${records.toLocaleString('en-US')} generated records (groups of up to ${largest})...`,
);
console.log(formatScaleBench(runScaleBench({ records, largest, seed })));
