import { describe, expect, it } from 'vitest';
import { budgetRows, ratioBudget } from '../src/quick.ts';
import type { OperationResult } from '../src/report.ts';

const op = (name: string, gateway: number, direct: number): OperationResult => ({
  name,
  gateway: { p50: gateway, p95: gateway, p99: gateway, samples: 20 },
  direct: { p50: direct, p95: direct, p99: direct, samples: 20 },
  ratio: gateway / direct,
  seconds: 1,
});

describe('bench:quick against issue 38', () => {
  it('holds gets and creates to 3×, lists and searches to 1.3×, everything to 10 ms added', () => {
    expect(ratioBudget('get')).toBe(3);
    expect(ratioBudget('create')).toBe(3);
    expect(ratioBudget('list')).toBe(1.3);
    expect(ratioBudget('search freeText')).toBe(1.3);
    expect(ratioBudget('count')).toBeUndefined();
    const rows = budgetRows([
      op('get', 5.9, 2), // 2.95×
      op('create', 6.2, 2), // 3.1×
      op('list', 25, 20), // 1.25×
      op('search country', 27, 20), // 1.35×
      op('admin list', 61, 50), // 1.22× but 11 ms added
      op('count', 9, 1.5), // no ratio; 7.5 ms added
    ]);
    expect(rows.map((r) => [r.name, r.met])).toEqual([
      ['get', true],
      ['create', false],
      ['list', true],
      ['search country', false],
      ['admin list', false],
      ['count', true],
    ]);
  });
});
