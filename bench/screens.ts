// `npm run bench:screens [-- --n 3000 --iterations 10 --warmup 2 --seed 1 --seed-via gateway|store --upload 0]`:
// seeds N records — up to 5,000 through the gateway, more straight into the records, linking and
// stats stores before the services start — then measures the record screens in Chromium: search
// (first page, Show more, a name with a typo), Record Details with its journey, the NAMLC match
// check and Deleted Records (see README.md "Benchmarks"), with `--upload R` while customs uploads
// files of R rows one after another in the background. Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand } from './src/cli.ts';
import {
  DEFAULT_DELETED_PERCENT,
  formatScreensReport,
  runScreensBench,
  SEED_VIA,
  type SeedVia,
  STORE_SEEDING_ABOVE,
} from './src/screens-bench.ts';

const above = STORE_SEEDING_ABOVE.toLocaleString('en-US');
const USAGE = `Usage: npm run bench:screens -- [--n N] [--iterations I] [--warmup W] [--seed X] [--seed-via gateway|store]
  --n           records to seed, spread over BPS, FIA and CUS (default 3000, or BENCH_N)
  --iterations  measured runs of each screen operation (default 10)
  --warmup      uncounted runs of each operation first (default 2)
  --seed        seed of the generated records (default 1)
  --seed-via    gateway: POST each record through the gateway, then DELETE a tenth of the police
                  records (at most 300) — the default up to ${above} records;
                store: write them into the records collection (${DEFAULT_DELETED_PERCENT}% deleted), the linking service's
                  match index and the stats read model before the services start, as each service
                  stores them — the default above ${above} records
  --upload      rows of each file customs uploads in the background, one file after another while
                  every screen is timed (default 0: no upload)`;

/**
 * `--seed-via gateway|store` (or `--seed-via=store`), taken out of the arguments before
 * readCounts reads them (it knows whole-number options only).
 */
function takeSeedVia(): SeedVia | undefined {
  const args = process.argv;
  for (let i = 2; i < args.length; i++) {
    const match = /^--seed-via(?:=(.*))?$/.exec(args[i] as string);
    if (!match) continue;
    const value = match[1] ?? args[i + 1];
    args.splice(i, match[1] === undefined ? 2 : 1);
    if (!SEED_VIA.includes(value as SeedVia)) {
      console.error(`--seed-via must be gateway or store (got "${value ?? ''}")\n\n${USAGE}`);
      process.exit(2);
    }
    return value as SeedVia;
  }
  return undefined;
}

const seedVia = takeSeedVia();
const options = readCounts(USAGE, {
  n: { fallback: 3000, min: 3, env: 'BENCH_N' },
  iterations: { fallback: 10, min: 1 },
  warmup: { fallback: 2, min: 0 },
  seed: { fallback: 1, min: 0 },
  upload: { fallback: 0, min: 0 },
});

await runBenchCommand('bench:screens', async (context) =>
  formatScreensReport(await runScreensBench({ ...options, ...(seedVia ? { seedVia } : {}), ...context })),
);
