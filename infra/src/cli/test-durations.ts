// `npx tsx infra/src/cli/test-durations.ts <report.json>`: rewrites infra/src/harness/durations.json
// (the test sequencer's table, ADR 0021) from a whole run's JSON report
// (`npx vitest run --reporter=json --outputFile=<report.json>`): every file of 8 s or more.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths.ts';

const MIN_SECONDS = 8;
const report = process.argv[2];
if (!report) {
  console.error('usage: test-durations.ts <vitest JSON report>');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
};
const rows = testResults
  .map((f) => [path.relative(REPO_ROOT, f.name), Math.round((f.endTime - f.startTime) / 1000)] as const)
  .filter(([, seconds]) => seconds >= MIN_SECONDS)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
const out = path.join(REPO_ROOT, 'infra', 'src', 'harness', 'durations.json');
writeFileSync(out, `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`${rows.length} files of ${MIN_SECONDS} s or more written to ${path.relative(REPO_ROOT, out)}`);
