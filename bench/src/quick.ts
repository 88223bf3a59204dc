import type { BenchReport, OperationResult } from './report.ts';
import { ms, ratio, table } from './report.ts';

/**
 * `npm run bench:quick` (issue 38): bench:records at 10,000 records, with each operation's
 * gateway/store ratio held against the budgets of issue 38 — at most 3× for a get or a create,
 * 1.3× for a list or a search, and at most 10 ms added to the store's p50 — so a change that slows
 * the request path shows the day it is made. A quick run checks ratios, not the absolute budgets
 * at 100,000 records (bench:records).
 */
export const QUICK_RECORDS = 10_000;

/** The most the gateway and the service together may add to a store read's p50 (ms). */
export const ADDED_MS_BUDGET = 10;

/** The gateway/store ratio an operation is held to, or undefined for a row with no like-for-like store side. */
export function ratioBudget(name: string): number | undefined {
  if (name === 'get' || name === 'create') return 3;
  // `count` is a page of one with its total through the gateway (the service keeps totals), but
  // countDocuments alone on the store: not the same work, so not held to a ratio.
  if (name === 'count') return undefined;
  return 1.3;
}

export interface BudgetRow {
  name: string;
  ratio: number;
  budget?: number;
  addedMs: number;
  met: boolean;
}

/** Each operation's ratio and what the path added, against its budget. */
export function budgetRows(operations: readonly OperationResult[]): BudgetRow[] {
  return operations.map((o) => {
    const budget = ratioBudget(o.name);
    const addedMs = o.gateway.p50 - o.direct.p50;
    const met = (budget === undefined || o.ratio <= budget) && addedMs <= ADDED_MS_BUDGET;
    return { name: o.name, ratio: o.ratio, ...(budget === undefined ? {} : { budget }), addedMs, met };
  });
}

/** The budget table printed under bench:records' report. */
export function formatBudgets(report: BenchReport): string {
  const rows = budgetRows(report.operations);
  const missed = rows.filter((r) => !r.met).length;
  return [
    '',
    `Against issue 38's budgets (gateway/store p50 ≤ 3× for get and create, ≤ 1.3× for lists and searches;`,
    `the gateway and service add ≤ ${ADDED_MS_BUDGET} ms to the store's p50):`,
    '',
    ...table(
      ['operation', 'gw/db', 'budget', 'added ms', 'holds'],
      rows.map((r) => [
        r.name,
        ratio(r.ratio),
        r.budget === undefined ? '—' : `${r.budget}×`,
        ms(r.addedMs),
        r.met ? 'yes' : 'NO',
      ]),
    ),
    '',
    missed === 0 ? 'Every operation holds its budget.' : `${missed} of ${rows.length} operations miss their budget.`,
  ].join('\n');
}
