/**
 * Which bit positions of a sample of identifiers can be predicted from the identifiers before
 * them: a predictor battery in the manner of NIST SP 800-90B §6.3.7–6.3.10 (MultiMCW, Lag and
 * the like), scored with an exact binomial tail instead of the estimators' confidence bounds.
 *
 * For every bit position, fixed predictors guess the bit of identifier i from identifiers
 * 0..i−1 (and, for the clock predictor, from the creation instants). If the bit is CSPRNG output
 * it is independent of everything a predictor sees, so each guess is right with probability
 * 1/2 (1/2 + bias when the decoding leaves a known bias) whatever came before, and the number of
 * right guesses is exactly Binomial(trials, 1/2) — a bound that holds whatever the other
 * positions hold (a time prefix, a counter, a fixed text). A position is *predictable* when a
 * predictor's count reaches its critical value at level alpha / (number of tests)
 * (Bonferroni), so the probability that any CSPRNG bit of any sample is called predictable is at
 * most the sum of the tests' sizes, which `falsePositiveBound` gives exactly (≤ alpha).
 *
 * The predictors, each a classic test in predictor form:
 * - `majority`: the more frequent value so far (NIST SP 800-22 §2.1 frequency, per position;
 *   SP 800-90B MultiMCW) — a stuck or biased bit;
 * - `repeat`: the previous identifier's bit (SP 800-22 §2.3 runs, one-sided; SP 800-90B Lag) — a
 *   slowly changing field, the high bits of a clock or a counter;
 * - `step`: the window of bits from this position down to a word end, extrapolated by its last
 *   increment — a counter or a clock anywhere in the identifier, in any byte window;
 * - `clock`: the same window advanced by the milliseconds between the two creation instants —
 *   a millisecond time field (UUIDv7-like), also when identifiers are created irregularly;
 * - and one whole-identifier predictor per sample (generator-fit.ts): whether identifiers fit
 *   V8's Math.random, a linear generator whose next output follows from one identifier. It
 *   counts as one more test of the family, with its own exact size.
 *
 * The order of the rows must not depend on the identifiers' values (send order, revision order),
 * or a predictor could learn from the order instead of the bits.
 */
import { binomialUpperTail, criticalCount } from './binomial-tail.ts';
import { fitProbabilityBound, runGeneratorTest, type GeneratorTest } from './generator-fit.ts';

/** Arithmetic windows span at most this many bits: exact in a double, and wide enough for a 48-bit clock. */
export const WINDOW_BITS = 48;

/** A decoded sample: one row of bits per identifier, most significant first. */
export interface BitSample {
  readonly label: string;
  readonly rows: readonly (readonly number[])[];
  /** Per position: a bound on |P(bit = 1) − 1/2| for a uniform identifier under this decoding. */
  readonly bias: readonly number[];
  /** Positions (exclusive ends) where an arithmetic window may end: digit and byte boundaries. */
  readonly wordEnds: readonly number[];
  /** Creation instants in milliseconds, one per row; the clock predictor needs them. */
  readonly instants?: readonly number[];
  /**
   * For the whole-identifier predictor: the fewest CSPRNG bits a row holds under the null, the
   * others being anything independent of them (default: every bit is CSPRNG).
   */
  readonly nullRandomBits?: number;
}

export type PredictorKind = 'majority' | 'repeat' | 'step' | 'clock';

export interface PredictionTest {
  readonly sample: string;
  readonly position: number;
  readonly predictor: PredictorKind;
  /** For step and clock: where the arithmetic window ends. */
  readonly windowEnd?: number;
  readonly trials: number;
  readonly correct: number;
  /** The count from which this test calls the position predictable. */
  readonly critical: number;
  /** P(correct ≥ critical) for a CSPRNG bit: this test's share of the false-positive bound. */
  readonly size: number;
  readonly pValue: number;
}

export interface SampleVerdict {
  readonly label: string;
  readonly identifiers: number;
  readonly positions: number;
  /** The most telling test of each predictable position, by position. */
  readonly predictable: readonly PredictionTest[];
  /** The whole-identifier predictor, when it applies (uniform bits, wide enough rows). */
  readonly generator?: GeneratorTest;
}

export interface BatteryResult {
  readonly alpha: number;
  readonly tests: number;
  /** Sum of every test's size: the probability that any CSPRNG bit is called predictable. */
  readonly falsePositiveBound: number;
  readonly samples: readonly SampleVerdict[];
}

interface Guess {
  readonly predictor: PredictorKind;
  readonly windowEnd?: number;
  /** The guesses for rows `first`.., in order. */
  readonly first: number;
  readonly guess: (row: number) => number;
}

/** Runs every predictor on every position of every sample, at family-wise level `alpha`. */
export function runPredictorBattery(samples: readonly BitSample[], alpha: number): BatteryResult {
  const plans = samples.map((sample) => ({
    sample,
    guesses: sample.rows.length < 3 ? [] : planGuesses(sample),
  }));
  const generatorTests = plans.filter(({ sample }) => generatorApplies(sample)).length;
  const tests = plans.reduce(
    (sum, plan) => sum + plan.guesses.reduce((inner, list) => inner + list.length, 0),
    generatorTests,
  );
  const perTest = tests === 0 ? alpha : alpha / tests;
  const thresholds = new Map<string, { critical: number; size: number }>();
  const thresholdOf = (trials: number, nullP: number): { critical: number; size: number } => {
    const key = `${String(trials)}:${String(nullP)}`;
    let known = thresholds.get(key);
    if (known === undefined) {
      const critical = criticalCount(trials, nullP, perTest);
      known = { critical, size: binomialUpperTail(trials, critical, nullP) };
      thresholds.set(key, known);
    }
    return known;
  };
  let falsePositiveBound = 0;
  const verdicts = plans.map(({ sample, guesses }) => {
    const predictable: PredictionTest[] = [];
    guesses.forEach((list, position) => {
      let best: PredictionTest | undefined;
      const nullP = 0.5 + (sample.bias[position] ?? 0);
      for (const plan of list) {
        const trials = sample.rows.length - plan.first;
        const { critical, size } = thresholdOf(trials, nullP);
        falsePositiveBound += size;
        const correct = rightGuesses(sample, position, plan);
        if (correct < critical) continue;
        const test: PredictionTest = {
          sample: sample.label,
          position,
          predictor: plan.predictor,
          ...(plan.windowEnd === undefined ? {} : { windowEnd: plan.windowEnd }),
          trials,
          correct,
          critical,
          size,
          pValue: binomialUpperTail(trials, correct, nullP),
        };
        if (best === undefined || test.pValue < best.pValue) best = test;
      }
      if (best !== undefined) predictable.push(best);
    });
    const generator = generatorApplies(sample)
      ? runGeneratorTest(sample.label, sample.rows, nullRandomBits(sample), perTest)
      : undefined;
    if (generator !== undefined) falsePositiveBound += generator.size;
    return {
      label: sample.label,
      identifiers: sample.rows.length,
      positions: sample.rows[0]?.length ?? 0,
      predictable,
      ...(generator === undefined ? {} : { generator }),
    };
  });
  return { alpha, tests, falsePositiveBound, samples: verdicts };
}

function nullRandomBits(sample: BitSample): number {
  return sample.nullRandomBits ?? sample.rows[0]?.length ?? 0;
}

/** Uniform bits under the null, enough rows, and a window that leaves the test some power. */
function generatorApplies(sample: BitSample): boolean {
  const width = sample.rows[0]?.length ?? 0;
  if (sample.rows.length < 3 || sample.bias.some((bias) => bias !== 0)) return false;
  const q = fitProbabilityBound(width, nullRandomBits(sample));
  return q !== undefined && q < 1;
}

function rightGuesses(sample: BitSample, position: number, plan: Guess): number {
  let correct = 0;
  for (let row = plan.first; row < sample.rows.length; row++) {
    if (plan.guess(row) === sample.rows[row]?.[position]) correct++;
  }
  return correct;
}

/** Every position's predictors: two per position, and one or two per word end below it. */
function planGuesses(sample: BitSample): Guess[][] {
  const { rows } = sample;
  const width = rows[0]?.length ?? 0;
  const windows = windowValues(sample);
  const instants = sample.instants;
  const plans: Guess[][] = [];
  for (let position = 0; position < width; position++) {
    const bit = (row: number): number => rows[row]?.[position] ?? 0;
    const ones: number[] = [0];
    for (let row = 0; row < rows.length; row++) ones.push((ones[row] ?? 0) + bit(row));
    const list: Guess[] = [
      {
        predictor: 'majority',
        first: 1,
        guess: (row) => {
          const seen = ones[row] ?? 0;
          if (2 * seen === row) return bit(row - 1);
          return 2 * seen > row ? 1 : 0;
        },
      },
      { predictor: 'repeat', first: 1, guess: (row) => bit(row - 1) },
    ];
    for (const [end, values] of windows) {
      const span = end - position;
      if (span < 2 || span > WINDOW_BITS) continue;
      const modulus = 2 ** span;
      const value = (row: number): number => (values[row] ?? 0) % modulus;
      const top = (x: number): number => Math.floor((((x % modulus) + modulus) % modulus) / (modulus / 2));
      list.push({
        predictor: 'step',
        windowEnd: end,
        first: 2,
        guess: (row) => top(2 * value(row - 1) - value(row - 2)),
      });
      if (instants !== undefined) {
        list.push({
          predictor: 'clock',
          windowEnd: end,
          first: 1,
          guess: (row) => top(value(row - 1) + Math.round((instants[row] ?? 0) - (instants[row - 1] ?? 0))),
        });
      }
    }
    plans.push(list);
  }
  return plans;
}

/** Per word end, per row: the integer of the WINDOW_BITS bits before that end. */
function windowValues(sample: BitSample): Map<number, number[]> {
  const windows = new Map<number, number[]>();
  for (const end of new Set(sample.wordEnds)) {
    windows.set(
      end,
      sample.rows.map((row) => {
        let value = 0;
        for (let position = Math.max(0, end - WINDOW_BITS); position < end; position++) {
          value = value * 2 + (row[position] ?? 0);
        }
        return value;
      }),
    );
  }
  return windows;
}
