// `npm run bench:quick [-- --iterations 30 --budget 10 --seed 1]`: bench:records at 10,000 records
// with one restart, then each operation's gateway/store ratio against issue 38's budgets (see
// README.md "Benchmarks"). Under three minutes on two cores; run it whenever a change touches a
// hot path. Honors MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as
// `npm start` does.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { formatBudgets, QUICK_RECORDS } from './src/quick.ts';
import { runRecordsBench } from './src/records-bench.ts';
import { formatReport } from './src/report.ts';

const USAGE = `Usage: npm run bench:quick -- [--iterations I] [--budget S] [--seed X]
  --iterations  measured runs of each operation at most (default 30)
  --budget      seconds an operation may take before it stops at the runs it has (default 10)
  --seed        seed of the generated records and queries (default 1)`;

const { budget, ...counts } = readCounts(USAGE, {
  iterations: { fallback: 30, min: 1 },
  budget: { fallback: 10, min: 0 },
  seed: { fallback: 1, min: 0 },
});

await runBenchCommand('bench:quick', async (context) => {
  const report = await runRecordsBench({
    ...counts,
    n: QUICK_RECORDS,
    warmup: 2,
    restarts: 1,
    budgetSeconds: budget,
    ...context,
  });
  return `${formatReport(report)}\n${formatBudgets(report)}`;
});
