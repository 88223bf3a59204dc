import { expect } from 'vitest';
import type { Latency, OperationResult } from '../src/report.ts';

/** Each side measured `samples` times, every percentile and the ratio a finite number (never judged by size). */
export function expectComparison(
  o: { name: string; gateway: Latency; direct: Latency; ratio: number },
  samples: number,
): void {
  for (const side of [o.gateway, o.direct]) expectLatency(side, samples, o.name);
  expect(Number.isFinite(o.ratio), o.name).toBe(true);
}

export function expectLatency(side: Latency, samples: number, label: string): void {
  expect(side.samples, label).toBe(samples);
  for (const figure of [side.p50, side.p95, side.p99]) expect(Number.isFinite(figure), label).toBe(true);
}

/** The operation's runs answered totals: whole numbers, at least one record, the fewest first. */
export function expectFound(o: Pick<OperationResult, 'found'> | undefined, label: string): void {
  const found = o?.found;
  expect(found, label).toBeDefined();
  const { min, max } = found as NonNullable<OperationResult['found']>;
  expect(Number.isInteger(min) && Number.isInteger(max), label).toBe(true);
  expect(min, label).toBeGreaterThan(0);
  expect(max, label).toBeGreaterThanOrEqual(min);
}
