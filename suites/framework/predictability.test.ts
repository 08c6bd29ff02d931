// The predictor battery: CSPRNG bits are never called predictable (and the printed bound on that
// is the sum of the tests' exact sizes, at most alpha), while a counter in the low bytes and a
// millisecond clock in the high bytes are, position by position. Samples come from SHA-256 in
// counter mode over a fixed seed, so every run sees the same bits.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runPredictorBattery, type BitSample } from './predictability.ts';

/** CSPRNG-quality bytes, replayable from the seed (a hash DRBG). */
function hashBytes(seed: string, index: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let block = 0; block * 32 < length; block++) {
    createHash('sha256')
      .update(`${seed}:${String(index)}:${String(block)}`)
      .digest()
      .copy(out, block * 32);
  }
  return out;
}

function bitsOf(bytes: Buffer): number[] {
  return [...bytes].flatMap((byte) => Array.from({ length: 8 }, (_, bit) => (byte >> (7 - bit)) & 1));
}

function sample(label: string, ids: readonly Buffer[], instants?: readonly number[]): BitSample {
  const width = (ids[0]?.length ?? 0) * 8;
  return {
    label,
    rows: ids.map(bitsOf),
    bias: Array.from({ length: width }, () => 0),
    wordEnds: Array.from({ length: width / 8 }, (_, index) => (index + 1) * 8),
    ...(instants === undefined ? {} : { instants }),
  };
}

const START_MS = 1_764_000_000_000;

describe('predictor battery', () => {
  it('calls no CSPRNG bit predictable and bounds that chance by alpha (seeds csprng-0..9)', () => {
    for (let run = 0; run < 10; run++) {
      const seed = `csprng-${String(run)}`;
      const ids = Array.from({ length: 64 }, (_, index) => hashBytes(seed, index, 18));
      const instants = ids.map((_, index) => START_MS + index * 7);
      const result = runPredictorBattery([sample('tasks', ids, instants)], 1e-6);
      expect(result.samples[0]?.predictable).toEqual([]);
      expect(result.falsePositiveBound).toBeLessThanOrEqual(1e-6);
      expect(result.falsePositiveBound).toBeGreaterThan(1e-7);
      expect(result.tests).toBeGreaterThan(144 * 2);
    }
  });

  it('keeps the computed bound honest: at a loose level, CSPRNG samples trip it no more often than it says', () => {
    // 16-bit IDs, 40 per sample, a bound of about 0.15 (0.10 of the samples trip it: Bonferroni is
    // conservative): a predictor that peeked at the bit it guesses would trip nearly every
    // sample. A quarter of 300 samples is five standard deviations above a true rate of 0.15.
    let tripped = 0;
    let bound = 0;
    for (let run = 0; run < 300; run++) {
      const ids = Array.from({ length: 40 }, (_, index) => hashBytes(`loose-${String(run)}`, index, 2));
      const result = runPredictorBattery(
        [
          sample(
            'ids',
            ids,
            ids.map((_, i) => START_MS + 3 * i),
          ),
        ],
        0.2,
      );
      bound = result.falsePositiveBound;
      if ((result.samples[0]?.predictable.length ?? 0) > 0) tripped++;
    }
    expect(bound).toBeLessThanOrEqual(0.2);
    expect(tripped / 300).toBeLessThan(0.25);
  });

  it('marks the counter in the low four bytes (seed counter)', () => {
    let counter = 1_000;
    const ids = Array.from({ length: 64 }, (_, index) => {
      const id = hashBytes('counter', index, 18);
      counter += 1 + (index % 4);
      id.writeUInt32BE(counter, 14);
      return id;
    });
    const predictable = runPredictorBattery([sample('tasks', ids)], 1e-6).samples[0]?.predictable ?? [];
    const positions = predictable.map((test) => test.position);
    expect(positions.every((position) => position >= 112)).toBe(true);
    expect(positions.length).toBeGreaterThan(16);
    expect(predictable.some((test) => test.predictor === 'step')).toBe(true);
  });

  it('marks a millisecond clock in the high six bytes, from the creation instants too (seed clock)', () => {
    let now = START_MS;
    const instants: number[] = [];
    const ids = Array.from({ length: 64 }, (_, index) => {
      // Irregular gaps of up to 255 ms: the step predictor misses some, the clock does not.
      now += hashBytes('gaps', index, 1)[0] ?? 0;
      instants.push(now);
      const id = hashBytes('clock', index, 18);
      id.writeUIntBE(now, 0, 6);
      return id;
    });
    const predictable =
      runPredictorBattery([sample('tasks', ids, instants)], 1e-6).samples[0]?.predictable ?? [];
    const positions = predictable.map((test) => test.position);
    expect(positions.every((position) => position < 48)).toBe(true);
    expect(positions.length).toBeGreaterThan(30);
    expect(predictable.some((test) => test.predictor === 'clock')).toBe(true);
  });

  it('counts the Math.random predictor as one test of the family, for rows of 144 uniform bits (seed family)', () => {
    const ids = Array.from({ length: 64 }, (_, index) => hashBytes('family', index, 18));
    const wide = runPredictorBattery([sample('tasks', ids)], 1e-6);
    const narrow = runPredictorBattery(
      [
        sample(
          'tasks',
          ids.map((id) => id.subarray(0, 16)),
        ),
      ],
      1e-6,
    );
    const generator = wide.samples[0]?.generator;
    expect(generator?.trials).toBe(64);
    expect(generator?.hits).toBe(0);
    expect(generator?.size).toBeGreaterThan(0);
    expect(wide.falsePositiveBound).toBeGreaterThanOrEqual(generator?.size ?? Infinity);
    expect(wide.falsePositiveBound).toBeLessThanOrEqual(1e-6);
    // 128-bit rows leave 16 byte draws, which any 128-bit state fits: no test, none counted.
    expect(narrow.samples[0]?.generator).toBeUndefined();
    // The same rows read with a slight bias (another radix): the same position tests, no generator test.
    const biased = runPredictorBattery(
      [{ ...sample('tasks', ids), bias: Array.from({ length: 144 }, () => 2 ** -20) }],
      1e-6,
    );
    expect(biased.samples[0]?.generator).toBeUndefined();
    expect(wide.tests - biased.tests).toBe(1);
  });

  it('tests nothing in a sample too small to predict from', () => {
    const result = runPredictorBattery([sample('two', [hashBytes('s', 0, 4), hashBytes('s', 1, 4)])], 1e-6);
    expect(result.tests).toBe(0);
    expect(result.falsePositiveBound).toBe(0);
    expect(result.samples[0]?.predictable).toEqual([]);
  });
});
