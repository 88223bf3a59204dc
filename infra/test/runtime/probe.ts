// Says which Node runs it and which `node` its children get from PATH; with `--wait`, waits for
// SIGINT and exits with 7 (the bootstrap's passing on of signals).
import { execFileSync } from 'node:child_process';

const report = {
  version: process.version,
  execPath: process.execPath,
  childNode: execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim(),
  typescript: true satisfies boolean,
};
process.stdout.write(`probe ${JSON.stringify(report)}\n`);
if (process.argv.includes('--wait')) {
  process.on('SIGINT', () => process.exit(7));
  setInterval(() => {}, 1000);
}
