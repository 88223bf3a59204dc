import { describe, expect, it } from 'vitest';
import { clusterRecords, confidenceBits } from './cluster.ts';

const pair = (i: number, j: number, confidence: number) => ({ i, j, confidence });

describe('clusterRecords', () => {
  it('joins records reachable through a chain of links, though the ends were never scored above the threshold', () => {
    // 0–1 and 1–2 link; 0–2 scored low (a typo in the name and another in the date, say).
    const groups = clusterRecords(4, [pair(0, 1, 99), pair(1, 2, 97), pair(0, 2, 12)], { threshold: 40 });
    expect(groups).toEqual([1, 1, 1, 2]);
  });

  it('never joins on pairs below the threshold, and numbers groups by their first record', () => {
    expect(clusterRecords(3, [pair(1, 2, 39.99), pair(2, 0, 40)], { threshold: 40 })).toEqual([1, 2, 1]);
    expect(clusterRecords(3, [], { threshold: 40 })).toEqual([1, 2, 3]);
  });

  it('splits two people joined by one borderline link far below their own links', () => {
    // Two people of three records each, every pair within a person near certain; one borderline
    // pair across them.
    const strong = [pair(0, 1, 99.99), pair(1, 2, 99.98), pair(0, 2, 99.97), pair(3, 4, 99.99), pair(4, 5, 99.9)];
    const groups = clusterRecords(6, [...strong, pair(2, 3, 45)], { threshold: 40 });
    expect(groups).toEqual([1, 1, 1, 2, 2, 2]);
  });

  it('keeps a group whose weakest link is not far below the others, or is not a lone bridge', () => {
    // 45% against 60–70%: within 5 bits of each other; the chain stays one group.
    expect(clusterRecords(4, [pair(0, 1, 70), pair(1, 2, 60), pair(2, 3, 45)], { threshold: 40 })).toEqual([
      1, 1, 1, 1,
    ]);
    // A lone record joined by one weak link is a typo-ridden copy more often than another person.
    expect(clusterRecords(4, [pair(0, 1, 99.9), pair(1, 2, 99.9), pair(2, 3, 45)], { threshold: 40 })).toEqual([
      1, 1, 1, 1,
    ]);
    // Two links between the two parts: they hold together.
    const twice = [pair(0, 1, 99.99), pair(2, 3, 99.99), pair(1, 2, 45), pair(0, 3, 44)];
    expect(clusterRecords(4, twice, { threshold: 40 })).toEqual([1, 1, 1, 1]);
    // The same bridge with a gap larger than its fall: kept.
    const bridged = [pair(0, 1, 99.99), pair(2, 3, 99.99), pair(1, 2, 99.9)];
    expect(clusterRecords(4, bridged, { threshold: 40 })).toEqual([1, 1, 1, 1]);
    expect(clusterRecords(4, bridged, { threshold: 40, gapBits: 1 })).toEqual([1, 1, 2, 2]);
  });

  it('cuts again inside each side: three people in one chain', () => {
    const groups = clusterRecords(
      6,
      [pair(0, 1, 99.99), pair(1, 2, 41), pair(2, 3, 99.99), pair(3, 4, 42), pair(4, 5, 99.99)],
      { threshold: 40 },
    );
    expect(groups).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('reads confidence as log2-odds, finite at 0 and 100', () => {
    expect(confidenceBits(50)).toBe(0);
    expect(confidenceBits(80)).toBeCloseTo(2, 10);
    expect(Number.isFinite(confidenceBits(100))).toBe(true);
    expect(Number.isFinite(confidenceBits(0))).toBe(true);
  });
});
