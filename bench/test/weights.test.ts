import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('bench:weights', () => {
  it("times the linking service's estimate on an index of island records and prints each", () => {
    const out = execFileSync(process.execPath, ['scripts/bench-weights.mjs', '--n', '5000', '--rounds', '2'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, BENCH_N: '' },
    });
    expect(out).toMatch(/^Machine: .+ × \d+, /m);
    expect(out).toMatch(/^Index: {3}5,000 records \(island names\)/m);
    expect(
      out.match(
        /^estimate \d: \d+ ms \(weights \d+ ms, (estimated|fixed); r \d+\.\d{3} from \d+ records, \d+ pairs\)$/gm,
      ),
    ).toHaveLength(2);
    expect(out).toMatch(/^median: +\d+ ms an estimate, \d+ ms of it the weights$/m);
  });
});
