import { expect } from 'vitest';
import type { Latency } from '../src/report.ts';

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
