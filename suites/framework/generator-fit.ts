/**
 * The predictor battery's whole-identifier predictor: does each identifier fit V8's Math.random
 * (v8-math-random.ts)? A gateway that fills an identifier with floor(Math.random() · 2^b) draws
 * (bytes, base64url digits, hex digits) writes 144 bits that obey the model's 16 parity checks
 * whenever the draws come from one refill of V8's cache (about 47 of 64 identifiers for 18
 * draws); then the state, and every identifier after it, is known.
 *
 * The null it is scored against is the requirement's: each identifier holds at least
 * `nullRandomBits` CSPRNG bits, the other bits being anything independent of them. A window of
 * the identifier then satisfies all checks with probability 2^-(rank of the checks on its random
 * bits), at most (1 + A) · 2^-checks where A counts the nonzero combinations of the checks that
 * fit in the window's possibly non-random bits (computed from the checks' weight distribution).
 * Summed over every window an identifier offers (every start, both draw orders, every draw
 * width), that bounds the chance q that a CSPRNG identifier fits anywhere; identifiers are
 * independent, so the number that fit is at most Binomial(identifiers, q) — exact tails.
 */
import { binomialUpperTail, criticalCount } from './binomial-tail.ts';
import {
  checksSatisfied,
  drawModel,
  drawOf,
  recoverState,
  windowOf,
  xorshiftStep,
  xorshiftStepBack,
  type DrawModel,
  type DrawOrder,
  type XorShiftState,
} from './v8-math-random.ts';

/** Draw widths tried: bytes (floor(r·256)), base64 digits (floor(r·64)), hex digits (floor(r·16)). */
const models = (): readonly DrawModel[] => [drawModel(8, 18), drawModel(6, 24), drawModel(4, 36)];
const ORDERS: readonly DrawOrder[] = ['cache', 'stream'];

export const GENERATOR_NAME =
  "xorshift128+ as V8's Math.random (Node, Chrome, Deno): draws of 8, 6 or 4 bits";

export interface GeneratorMatch {
  /** Row index in the sample. */
  readonly row: number;
  readonly drawBits: number;
  readonly draws: number;
  readonly order: DrawOrder;
  /** First window bit in the row. */
  readonly start: number;
  readonly checks: number;
  /** The state of the window's last draw in V8's hand-out order. */
  readonly state?: XorShiftState;
  /** The draws V8 hands out next from the same cache, as the model predicts them. */
  readonly nextDraws: readonly number[];
}

export interface GeneratorTest {
  readonly sample: string;
  readonly generator: string;
  readonly trials: number;
  /** Identifiers fitting the generator somewhere. */
  readonly hits: number;
  /** Bound on the chance that one identifier of the null fits somewhere. */
  readonly nullProbability: number;
  readonly critical: number;
  /** P(hits ≥ critical) under the null: this test's share of the false-positive bound. */
  readonly size: number;
  readonly pValue: number;
  readonly matches: readonly GeneratorMatch[];
}

/** The bound q for one row of `width` bits, or undefined when the test cannot apply. */
export function fitProbabilityBound(width: number, nullRandomBits: number): number | undefined {
  let q = 0;
  for (const model of models()) {
    const starts = width - model.width + 1;
    if (starts <= 0) continue;
    const loose = Math.min(model.width, Math.max(0, width - nullRandomBits));
    const perWindow = Math.min(
      1,
      (1 + (model.lowWeightCounts[loose] ?? Infinity)) * 2 ** -model.checks.length,
    );
    q += starts * ORDERS.length * perWindow;
  }
  return q === 0 ? undefined : Math.min(1, q);
}

/** Where a row fits a model fully, if anywhere. */
function fitOf(bits: readonly number[], row: number): GeneratorMatch | undefined {
  for (const model of models()) {
    for (let start = 0; start + model.width <= bits.length; start++) {
      for (const order of ORDERS) {
        const window = windowOf(bits, start, model, order);
        const checks = checksSatisfied(window, model);
        if (checks < model.checks.length) continue;
        const state = recoverState(window, model);
        return {
          row,
          drawBits: model.drawBits,
          draws: model.draws,
          order,
          start,
          checks,
          ...(state === undefined ? {} : { state }),
          nextDraws: state === undefined ? [] : nextDraws(state, model, order),
        };
      }
    }
  }
  return undefined;
}

/** The draws after the window: earlier states in cache order, later ones in stream order. */
function nextDraws(last: XorShiftState, model: DrawModel, order: DrawOrder): number[] {
  let state = last;
  if (order === 'stream') for (let k = 1; k < model.draws; k++) state = xorshiftStep(state);
  return Array.from({ length: model.draws }, () => {
    state = order === 'cache' ? xorshiftStepBack(state) : xorshiftStep(state);
    return drawOf(state, model.drawBits);
  });
}

/**
 * Scores a sample at level `alpha` (the battery's per-test share); undefined when no window fits
 * its rows or the null leaves the test no power (q = 1).
 */
export function runGeneratorTest(
  sample: string,
  rows: readonly (readonly number[])[],
  nullRandomBits: number,
  alpha: number,
): GeneratorTest | undefined {
  const q = fitProbabilityBound(rows[0]?.length ?? 0, nullRandomBits);
  if (q === undefined || q >= 1) return undefined;
  const matches = rows.flatMap((bits, row) => fitOf(bits, row) ?? []);
  const critical = criticalCount(rows.length, q, alpha);
  return {
    sample,
    generator: GENERATOR_NAME,
    trials: rows.length,
    hits: matches.length,
    nullProbability: q,
    critical,
    size: binomialUpperTail(rows.length, critical, q),
    pValue: binomialUpperTail(rows.length, matches.length, q),
    matches,
  };
}
