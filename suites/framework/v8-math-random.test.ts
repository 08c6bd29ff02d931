// The model of V8's Math.random is proven on this process's own Math.random: from one window of
// 18 byte draws that fits the parity checks, the state is recovered and the next two hundred
// values (across cache refills) are predicted to all 52 bits. The checks' count and weights are
// what the battery's false-positive bound rests on; their rate on CSPRNG windows is measured.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CACHE_SIZE,
  checksSatisfied,
  drawModel,
  recoverState,
  V8MathRandomReplica,
  windowOf,
  xorshiftStep,
  xorshiftStepBack,
} from './v8-math-random.ts';

const bitsOf = (values: readonly number[], width: number): number[] =>
  values.flatMap((value) => Array.from({ length: width }, (_, bit) => (value >> (width - 1 - bit)) & 1));

describe("V8's Math.random as a linear generator", () => {
  it('recovers the state of this process from 18 byte draws and predicts the next 200 values', () => {
    const drawn = Array.from({ length: 2 * CACHE_SIZE }, () => Math.random());
    const model = drawModel(8, 18);
    const bits = bitsOf(
      drawn.map((value) => Math.floor(value * 256)),
      8,
    );
    const fitting = drawn
      .slice(0, CACHE_SIZE + 1)
      .map((_, start) => start)
      .filter(
        (start) => checksSatisfied(windowOf(bits, start * 8, model, 'cache'), model) === model.checks.length,
      );
    // One refill holds 64 − 17 windows; a window straddling a refill fits only by chance.
    expect(fitting.length).toBeGreaterThanOrEqual(CACHE_SIZE - 17);
    const first = fitting[0] ?? 0;
    const state = recoverState(windowOf(bits, first * 8, model, 'cache'), model);
    if (state === undefined) throw new Error('the 8×18 model determines the state');
    // The window's last draw left `remaining` entries in its cache: try each phase; one predicts all.
    const later = drawn.slice(first + 18);
    const future = Array.from({ length: 200 }, () => Math.random());
    const matching = Array.from({ length: CACHE_SIZE }, (_, remaining) => remaining).filter((remaining) => {
      const replica = new V8MathRandomReplica(state, remaining + 1);
      replica.nextMantissa(); // the window's last draw itself
      return [...later, ...future].every((value) => replica.nextMantissa() === Math.floor(value * 2 ** 52));
    });
    expect(matching).toHaveLength(1);
  });

  it('steps the state back exactly', () => {
    const state = { s0: 0x0123456789abcdefn, s1: 0xfedcba9876543210n };
    expect(xorshiftStepBack(xorshiftStep(state))).toEqual(state);
    expect(xorshiftStep(xorshiftStepBack(state))).toEqual(state);
  });

  it('gives 16 independent checks for 144 drawn bits, none of weight below 28', () => {
    for (const [drawBits, draws, lightest] of [
      [8, 18, 28],
      [6, 24, 47],
      [4, 36, 46],
    ] as const) {
      const model = drawModel(drawBits, draws);
      expect(model.checks).toHaveLength(16);
      expect(model.solution.every((tag) => tag !== undefined)).toBe(true);
      expect(model.lowWeightCounts[lightest - 1]).toBe(0);
      expect(model.lowWeightCounts[lightest]).toBeGreaterThan(0);
      expect(model.lowWeightCounts[model.width]).toBe(2 ** 16 - 1);
    }
  });

  it('lets CSPRNG windows satisfy k checks at rate 2^-k (8 checks of 17 byte draws, seed fit-rate)', () => {
    // 12 800 windows of 136 hash-DRBG bits: 50 expected to fit, four standard deviations either side.
    const model = drawModel(8, 17);
    expect(model.checks).toHaveLength(8);
    let fits = 0;
    for (let index = 0; index < 12_800; index++) {
      const bytes = createHash('sha256')
        .update(`fit-rate:${String(index)}`)
        .digest()
        .subarray(0, 17);
      const window = windowOf(bitsOf([...bytes], 8), 0, model, 'cache');
      if (checksSatisfied(window, model) === model.checks.length) fits++;
    }
    expect(fits).toBeGreaterThan(21);
    expect(fits).toBeLessThan(79);
  });
});
