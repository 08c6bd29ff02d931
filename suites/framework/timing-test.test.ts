import { describe, expect, it } from 'vitest';
import { SeededRandom } from './seeded-random.ts';
import {
  CLEAR_T,
  LEAK_T,
  MIN_EFFECT,
  compare,
  describeComparison,
  detectableDelay,
  mergeOutcomes,
  quantileSorted,
  runTimingTest,
  welch,
  welchTests,
  worstVerdict,
  type TimingPlan,
} from './timing-test.ts';

/** Round-trip-like samples in µs: a normal core around 1000 µs and a rare long tail (load spikes). */
function sampler(random: SeededRandom, sd = 40, tail = 0.02): () => number {
  const uniform = (): number => (random.int(0, 0x7fff_ffff) + 0.5) / 0x8000_0000;
  return () => {
    const normal = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const spike = uniform() < tail ? 2000 + 20_000 * uniform() : 0;
    return 1000 + sd * normal + spike;
  };
}

function plan(seed: number, delays: readonly number[], overrides: Partial<TimingPlan> = {}): TimingPlan {
  const random = new SeededRandom(seed);
  const draw = sampler(random);
  return {
    classes: delays.map((_, index) => `class ${String(index)}`),
    comparisons: [[0, 1]],
    warmupRounds: 2,
    maxRounds: 400,
    minRounds: 40,
    checkEvery: 20,
    measure: (index) => Promise.resolve(draw() + (delays[index] ?? 0)),
    order: (indices) => random.shuffle(indices),
    // The statistics alone; the floor has its own tests below.
    minEffect: 0,
    ...overrides,
  };
}

describe('welch', () => {
  it('gives the textbook statistic (x = 1..5, y = 2, 4, …, 10: t = -3/√2.5)', () => {
    const result = welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
    expect(result.t).toBeCloseTo(-3 / Math.sqrt(2.5), 10);
    expect(result.meanA).toBe(3);
    expect(result.varB).toBeCloseTo(10, 10);
  });

  it('uses each sample’s own variance (Welch, not the pooled Student statistic)', () => {
    const a = [10, 11, 9, 10, 10, 11, 9];
    const b = [0, 40, -20, 30, 10, 25, -5, 15, 5, 20];
    const result = welch(a, b);
    const se = Math.sqrt(result.varA / a.length + result.varB / b.length);
    expect(result.t).toBeCloseTo((result.meanA - result.meanB) / se, 12);
  });

  it('is 0 for equal constants, infinite for different constants, and refuses tiny samples', () => {
    expect(welch([5, 5, 5], [5, 5]).t).toBe(0);
    expect(welch([5, 5, 5], [6, 6]).t).toBe(-Infinity);
    expect(() => welch([1], [1, 2])).toThrow(RangeError);
  });
});

describe('crops', () => {
  it('takes the nearest-rank quantile', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantileSorted(sorted, 0.5)).toBe(5);
    expect(quantileSorted(sorted, 0.9)).toBe(9);
    expect(quantileSorted(sorted, 1)).toBe(10);
    expect(quantileSorted(sorted, 0.01)).toBe(1);
  });

  it('finds a shift the raw test misses because a few spikes swamp it', () => {
    const random = new SeededRandom(7);
    const draw = sampler(random, 20, 0.05);
    const a = Array.from({ length: 300 }, draw);
    const b = Array.from({ length: 300 }, () => draw() + 25);
    const tests = welchTests(a, b);
    const raw = tests.find((test) => test.test === 'raw');
    const median = tests.find((test) => test.test === 'p50');
    expect(Math.abs(raw?.welch?.t ?? 99)).toBeLessThan(LEAK_T);
    expect(Math.abs(median?.welch?.t ?? 0)).toBeGreaterThan(LEAK_T);
    expect(median?.cutoff).toBeGreaterThan(990);
  });

  it('leaves out a crop that keeps too few samples of a class', () => {
    const a = Array.from({ length: 20 }, (_, i) => i);
    const b = Array.from({ length: 20 }, (_, i) => 1000 + i);
    const tests = welchTests(a, b, [0.5]);
    expect(tests.find((test) => test.test === 'p50')?.welch).toBeUndefined();
    expect(tests.find((test) => test.test === 'raw')?.welch).toBeDefined();
  });
});

describe('runTimingTest', () => {
  it('finds no evidence between identical classes and states what it could have found', async () => {
    const outcome = await runTimingTest(plan(1, [0, 0]));
    expect(outcome.verdict).toBe('no-evidence');
    expect(outcome.stoppedEarly).toBe(false);
    expect(outcome.rounds).toBe(400);
    const comparison = outcome.comparisons[0];
    if (comparison === undefined) throw new Error('no comparison');
    expect(comparison.n).toEqual([400, 400]);
    // sd 40 µs, N 400: a few µs below the 40 µs a single sample spreads over.
    expect(comparison.detectable?.delay).toBeGreaterThan(5);
    expect(comparison.detectable?.delay).toBeLessThan(40);
    expect(describeComparison(comparison)).toMatch(
      /^class 0 vs class 1: no evidence of a difference: max \|t\| = \d+\.\d .*N = 400 per class.*no leak detectable above \d+(\.\d)? µs at this N/,
    );
  });

  it('stops early on a clear difference and calls it a leak', async () => {
    const outcome = await runTimingTest(plan(2, [0, 200]));
    expect(outcome.verdict).toBe('leak');
    expect(outcome.stoppedEarly).toBe(true);
    expect(outcome.rounds).toBe(40);
    const comparison = outcome.comparisons[0];
    if (comparison === undefined) throw new Error('no comparison');
    expect(Math.abs(comparison.strongest?.welch.t ?? 0)).toBeGreaterThanOrEqual(CLEAR_T);
    expect(describeComparison(comparison)).toMatch(/: leak \(stopped early\): max \|t\| = /);
  });

  it('calls a delay it can only just see at the end a leak, without stopping early', async () => {
    const outcome = await runTimingTest(plan(3, [0, 28]));
    expect(outcome.verdict).toBe('leak');
    expect(outcome.stoppedEarly).toBe(false);
    expect(outcome.rounds).toBe(400);
  });

  it('catches a delay of the size it reports as detectable most of the time, and a third of it rarely', async () => {
    const reference = await runTimingTest(plan(4, [0, 0]));
    const bound = reference.comparisons[0]?.detectable?.delay ?? Infinity;
    expect(Number.isFinite(bound)).toBe(true);
    const rate = async (delay: number): Promise<number> => {
      let caught = 0;
      for (let seed = 100; seed < 130; seed += 1) {
        const outcome = await runTimingTest(plan(seed, [0, delay], { minRounds: 400 }));
        if (outcome.verdict === 'leak') caught += 1;
      }
      return caught / 30;
    };
    expect(await rate(bound)).toBeGreaterThanOrEqual(0.7);
    expect(await rate(bound / 3)).toBeLessThanOrEqual(0.2);
  });

  it('judges each comparison and reports the worst verdict', async () => {
    const outcome = await runTimingTest(
      plan(5, [0, 0, 300], {
        comparisons: [
          [0, 1],
          [2, 1],
        ],
      }),
    );
    expect(outcome.verdict).toBe('leak');
    expect(outcome.comparisons.map((comparison) => comparison.labels)).toEqual([
      ['class 0', 'class 1'],
      ['class 2', 'class 1'],
    ]);
    expect(outcome.comparisons[1]?.verdict).toBe('leak');
    expect(worstVerdict(['no-evidence', 'inconclusive'])).toBe('inconclusive');
    expect(worstVerdict([])).toBe('no-evidence');
    const merged = mergeOutcomes([outcome, await runTimingTest(plan(10, [0, 0], { maxRounds: 50 }))]);
    expect(merged.comparisons).toHaveLength(3);
    expect(merged.rounds).toBe(outcome.rounds + 50);
    expect(merged.verdict).toBe('leak');
    expect(merged.stoppedEarly).toBe(true);
  });

  it('measures the warm-up rounds but keeps none of their samples', async () => {
    let calls = 0;
    const outcome = await runTimingTest({
      ...plan(6, [0, 0], { warmupRounds: 3, maxRounds: 12, minRounds: 12 }),
      measure: () => {
        calls += 1;
        return Promise.resolve(calls <= 6 ? 1e6 : 1000 + (calls % 7));
      },
    });
    expect(calls).toBe(30);
    expect(outcome.samples.flat().every((value) => value < 1e6)).toBe(true);
    expect(outcome.samples.map((values) => values.length)).toEqual([12, 12]);
  });

  it('ends at the time cap with the rounds taken, judged as a full run', async () => {
    let looks = 0;
    const outcome = await runTimingTest(
      plan(12, [0, 0], {
        outOfTime: () => {
          looks += 1;
          return looks >= 50;
        },
      }),
    );
    expect(outcome.outOfTime).toBe(true);
    expect(outcome.rounds).toBe(50);
    expect(outcome.comparisons[0]?.n).toEqual([50, 50]);
    expect(outcome.comparisons[0]?.detectable).toBeDefined();
  });

  it('puts every class once in every round, in the order given', async () => {
    const seen: number[] = [];
    await runTimingTest({
      ...plan(8, [0, 0, 0], { warmupRounds: 0, maxRounds: 2, minRounds: 2 }),
      order: () => [2, 0, 1],
      measure: (index) => {
        seen.push(index);
        return Promise.resolve(1000);
      },
    });
    expect(seen).toEqual([2, 0, 1, 2, 0, 1]);
  });

  it('is inconclusive with too few samples to compute any test', () => {
    const comparison = compare(['a', 'b'], [1, 2, 3], [1, 2, 3]);
    expect(comparison.verdict).toBe('inconclusive');
    expect(describeComparison(comparison)).toMatch(/inconclusive.*no test computable/);
  });

  it('refuses a malformed plan or order', async () => {
    await expect(runTimingTest(plan(9, [0, 0], { comparisons: [[0, 0]] }))).rejects.toThrow(RangeError);
    await expect(runTimingTest(plan(9, [0], { comparisons: [] }))).rejects.toThrow(/at least two/);
    await expect(runTimingTest(plan(9, [0, 0], { maxRounds: 0 }))).rejects.toThrow(/maxRounds/);
    await expect(runTimingTest(plan(9, [0, 0], { order: () => [0, 0] }))).rejects.toThrow(/every class/);
  });
});

describe('the minimum effect size', () => {
  // Round trips around 1000 µs (sd 40): the floor is MIN_EFFECT × their 10th percentile.
  const floored = { minEffect: MIN_EFFECT, minRounds: 400 };

  it('does not call a significant difference below the floor a leak, and says so', async () => {
    // 4 % of the round trip, like the bias a correct gateway showed (issue 22): |t| far above 5.
    const outcome = await runTimingTest(plan(21, [0, 40], { ...floored, maxRounds: 1000 }));
    const comparison = outcome.comparisons[0];
    if (comparison === undefined) throw new Error('no comparison');
    expect(Math.abs(comparison.strongest?.welch.t ?? 0)).toBeGreaterThan(LEAK_T);
    expect(comparison.verdict).toBe('no-evidence');
    expect(comparison.belowFloor).toBe(true);
    expect(comparison.floor).toBeCloseTo(MIN_EFFECT * comparison.scale, 6);
    // The fast round trip: the pooled 10th percentile, about 1000 − 1.28 · 40 µs.
    expect(comparison.scale).toBeGreaterThan(930);
    expect(comparison.scale).toBeLessThan(980);
    // What it could have seen is never below the floor.
    expect(comparison.detectable?.delay).toBeGreaterThanOrEqual(comparison.floor);
    expect(describeComparison(comparison)).toMatch(
      /no finding: the difference is below the minimum effect size \([\d.]+ µs = [\d.]+ × the fast round trip\).*no leak detectable above [\d.]+ µs at this N \(the minimum effect size/,
    );
  });

  it('the same bias is a leak on significance alone (minEffect 0)', async () => {
    const outcome = await runTimingTest(plan(21, [0, 40], { minRounds: 400, maxRounds: 1000 }));
    expect(outcome.verdict).toBe('leak');
  });

  it('still calls a difference above the floor a leak, early when it is clear', async () => {
    const outcome = await runTimingTest(plan(22, [0, 250], { minEffect: MIN_EFFECT }));
    expect(outcome.verdict).toBe('leak');
    expect(outcome.stoppedEarly).toBe(true);
    expect(describeComparison(outcome.comparisons[0] ?? ({} as never))).toMatch(
      /: leak \(stopped early\): .*effect 0\.\d+ × p10 \d+ µs/,
    );
  });

  it('catches a delay of the bound it reports (floor included) most of the time', async () => {
    const reference = await runTimingTest(plan(23, [0, 0], floored));
    const bound = reference.comparisons[0]?.detectable?.delay ?? Infinity;
    expect(reference.comparisons[0]?.detectable?.test).toBe('floor');
    let caught = 0;
    for (let seed = 200; seed < 230; seed += 1) {
      const outcome = await runTimingTest(plan(seed, [0, bound], floored));
      if (outcome.verdict === 'leak') caught += 1;
    }
    expect(caught / 30).toBeGreaterThanOrEqual(0.7);
  });
});

describe('detectableDelay', () => {
  it('shrinks with N like 1/√N', () => {
    const random = new SeededRandom(11);
    const draw = sampler(random, 40, 0);
    const pooled = Array.from({ length: 2000 }, draw);
    const small = detectableDelay(pooled, 100).delay;
    const large = detectableDelay(pooled, 400).delay;
    expect(small / large).toBeGreaterThan(1.7);
    expect(small / large).toBeLessThan(2.3);
    // Without a tail the raw test is as good as any: (5 + 1.28) · 40 · √(2/400) ≈ 17.8 µs.
    expect(large).toBeGreaterThan(14);
    expect(large).toBeLessThan(22);
  });
});
