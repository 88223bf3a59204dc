import { describe, expect, it } from 'vitest';
import { matchPercent } from './MatchExplanation.tsx';

describe('matchPercent', () => {
  it('shows one decimal, rounded down, at 99% and above: near-certainty never reads as 100%', () => {
    expect(matchPercent(100)).toBe('100% match');
    expect(matchPercent(99.99)).toBe('99.9% match');
    expect(matchPercent(99.1)).toBe('99.1% match');
    expect(matchPercent(99)).toBe('99.0% match');
  });

  it('shows up to two decimals below 99%', () => {
    expect(matchPercent(98.95)).toBe('98.95% match');
    expect(matchPercent(87.5)).toBe('87.5% match');
    expect(matchPercent(40)).toBe('40% match');
  });
});
