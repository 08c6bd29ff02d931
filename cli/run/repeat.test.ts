// --repeat: each repetition a whole run with its own seed, ID and folder; the first replays the
// run's own seed, so `--seed S --repeat N` starts with exactly the run `--seed S` would be.
import { describe, expect, it } from 'vitest';
import { caseSeed } from '../../suites/framework/seeded-random.ts';
import type { RunPlan } from './plan.ts';
import { repetitionsOf } from './repeat.ts';

const plan = { seed: 7, repeat: 3, runId: 'run-x', out: '/results' } as RunPlan;

describe('repetitionsOf', () => {
  it('keeps the run seed for the first repetition and derives the others from it', () => {
    expect(repetitionsOf(plan).map((repetition) => repetition.seed)).toEqual([
      7,
      caseSeed(7, 'repetition-2'),
      caseSeed(7, 'repetition-3'),
    ]);
    expect(new Set(repetitionsOf(plan).map((repetition) => repetition.seed)).size).toBe(3);
  });

  it('numbers each repetition’s ID and folder from 1, and runs them quietly', () => {
    expect(repetitionsOf(plan)).toMatchObject([
      { runId: 'run-x-1', dir: '/results/repetition-1', quiet: true },
      { runId: 'run-x-2', dir: '/results/repetition-2', quiet: true },
      { runId: 'run-x-3', dir: '/results/repetition-3', quiet: true },
    ]);
  });
});
