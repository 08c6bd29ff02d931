import { describe, expect, it } from 'vitest';
import { AttemptBudget } from './budget.ts';

describe('AttemptBudget', () => {
  it('gives the default count normally and the deep count under --deep, recording it', () => {
    const normal = new AttemptBudget(false);
    expect(normal.recorded).toBeUndefined();
    expect(normal.iterations(8, 200)).toBe(8);
    expect(normal.recorded).toBe(8);
    const deep = new AttemptBudget(true);
    expect(deep.iterations(8, 200)).toBe(200);
    expect(deep.recorded).toBe(200);
  });

  it('records what actually ran when a case stops early', () => {
    const budget = new AttemptBudget(true);
    budget.iterations(100, 10_000);
    budget.ran(1_234);
    expect(budget.recorded).toBe(1_234);
  });

  it('refuses counts that are not whole numbers', () => {
    const budget = new AttemptBudget(false);
    expect(() => budget.iterations(0, 5)).toThrow(/positive integer, not 0/);
    expect(() => budget.iterations(3, 2.5)).toThrow(/positive integer, not 2.5/);
    expect(() => {
      budget.ran(-1);
    }).toThrow(/non-negative integer, not -1/);
  });
});
