// The exact binomial tail behind the predictor battery's false-positive bound: known values,
// and critical counts that are the smallest ones at their level.
import { describe, expect, it } from 'vitest';
import { binomialUpperTail, criticalCount } from './binomial-tail.ts';

describe('binomial upper tail', () => {
  it('matches values counted by hand', () => {
    expect(binomialUpperTail(10, 8, 0.5)).toBeCloseTo((45 + 10 + 1) / 1024, 14);
    expect(binomialUpperTail(62, 62, 0.5)).toBeCloseTo(2 ** -62, 30);
    expect(binomialUpperTail(3, 1, 0.25)).toBeCloseTo(1 - 0.75 ** 3, 14);
    expect(binomialUpperTail(7, 0, 0.3)).toBe(1);
    expect(binomialUpperTail(7, 8, 0.3)).toBe(0);
  });

  it('gives the smallest count whose tail is within the level', () => {
    for (const [trials, p, alpha] of [
      [62, 0.5, 1e-10],
      [127, 0.5, 2e-10],
      [63, 0.5 + 2 ** -16, 1e-9],
      [20, 0.5, 0.05],
    ] as const) {
      const critical = criticalCount(trials, p, alpha);
      expect(binomialUpperTail(trials, critical, p)).toBeLessThanOrEqual(alpha);
      expect(binomialUpperTail(trials, critical - 1, p)).toBeGreaterThan(alpha);
    }
    expect(criticalCount(5, 0.5, 1e-3)).toBe(6);
  });
});
