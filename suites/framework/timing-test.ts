/**
 * A dudect-style timing comparison (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant
 * time?", DATE 2017): measurements of two or more classes of request, taken in a random order
 * round after round so that drift and load spikes fall on every class alike, a few warm-up
 * rounds thrown away, then Welch's t-test on the raw samples and on samples cropped at several
 * percentiles of the pooled measurements (cropping removes the long right tail a shared machine
 * adds, which would otherwise swamp a small difference). The test stops early on clear evidence
 * and otherwise when its budget of rounds is spent.
 *
 * What it can say, per pair of classes:
 * - `leak`: some test's |t| reached LEAK_T at the end, or CLEAR_T at an interim look (the higher
 *   bar pays for looking repeatedly);
 * - `no-evidence`: every |t| stayed under EVIDENCE_T, and the report gives the smallest constant
 *   delay of one class that this N would have caught (about 90 % of the time): "no leak above X";
 * - `inconclusive`: in between, or too few samples to say anything.
 *
 * Pure: the measurements come from the `measure` callback and the order from `order`, so the
 * case supplies the network and the seeded random source, and unit tests supply synthetic data.
 *
 * Welch's statistic is computed here, not by a package: the one well-kept implementation on npm
 * (@stdlib/stats-ttest2) brings about 300 packages for one formula, and dudect needs only the
 * statistic (it compares |t| with fixed thresholds, no p-values).
 */

/** |t| at or above this at the end of the budget: a leak. dudect's "probably not constant time" is 4.5. */
export const LEAK_T = 5;
/** |t| at or above this at an interim look stops the test early (dudect's "definitely" is 10). */
export const CLEAR_T = 10;
/** Every |t| below this at the end: no evidence of a difference. */
export const EVIDENCE_T = 3;
/** How far above LEAK_T the expected |t| must be for a ~90 % chance of reaching it (z at 0.9). */
const POWER_Z = 1.2816;
/** Fewer samples per class than this (after cropping) and a test is not computed. */
export const MIN_SAMPLES = 10;

/**
 * The minimum effect size, as a fraction of the fast round trip: a test's difference counts as a
 * leak only when it is also at least MIN_EFFECT × the round trip's scale (`scaleOf`, the pooled
 * 10th percentile). At a large N Welch's |t| makes any systematic difference "significant", also
 * the measurement's own (the classes' requests differ by a few characters, a lookup that misses
 * may cost a few µs more than one that hits, in the gateway or in the servers on the way): on a
 * correct gateway such a difference was 18 µs of a 380 µs round trip (4.7 %), enough for |t| ≥ 5
 * in 10 of 102 runs (issue 22). The floor is relative so that it carries to other machines and
 * loads. Calibration: docs/timing.md, "Minimum effect size".
 */
export const MIN_EFFECT = 0.1;

/** The crops: each keeps the samples below this percentile of the pooled samples. */
export const CROP_PERCENTILES = [0.5, 0.75, 0.9, 0.99] as const;

export interface Welch {
  readonly t: number;
  readonly meanA: number;
  readonly meanB: number;
  readonly varA: number;
  readonly varB: number;
  readonly nA: number;
  readonly nB: number;
}

function meanAndVariance(values: readonly number[]): { mean: number; variance: number } {
  // Welford: stable for microsecond values around a millisecond.
  let mean = 0;
  let m2 = 0;
  values.forEach((value, index) => {
    const delta = value - mean;
    mean += delta / (index + 1);
    m2 += delta * (value - mean);
  });
  return { mean, variance: values.length > 1 ? m2 / (values.length - 1) : 0 };
}

/**
 * Welch's t statistic of two samples (unequal variances): the difference of the means over
 * sqrt(varA/nA + varB/nB); 0 when both samples are constant and equal, ±Infinity when they are
 * constant and differ.
 */
export function welch(a: readonly number[], b: readonly number[]): Welch {
  if (a.length < 2 || b.length < 2)
    throw new RangeError('Welch’s test needs two samples of at least 2 values');
  const x = meanAndVariance(a);
  const y = meanAndVariance(b);
  const diff = x.mean - y.mean;
  const se = Math.sqrt(x.variance / a.length + y.variance / b.length);
  const t = se === 0 ? (diff === 0 ? 0 : Math.sign(diff) * Infinity) : diff / se;
  return { t, meanA: x.mean, meanB: y.mean, varA: x.variance, varB: y.variance, nA: a.length, nB: b.length };
}

/** The p-quantile (0 < p ≤ 1) of sorted values, by the nearest-rank method. */
export function quantileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('no values');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export interface TestResult {
  /** `raw`, or `p50` for the samples below the pooled 50th percentile. */
  readonly test: string;
  /** The crop's cut-off in the samples' unit; absent for the raw test. */
  readonly cutoff?: number;
  /** Absent when a class kept fewer than MIN_SAMPLES samples below the cut-off. */
  readonly welch?: Welch;
}

/** The median of unsorted values (NaN for none). */
function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** MAD × 1.4826 estimates a normal distribution's standard deviation, unmoved by the long tail. */
const MAD_TO_SD = 1.4826;

/** The robust standard deviation of one class: its median absolute deviation × 1.4826. */
function robustSd(values: readonly number[]): number {
  const centre = median(values);
  return MAD_TO_SD * median(values.map((value) => Math.abs(value - centre)));
}

/**
 * The spread of a comparison's samples: the mean of the two classes' robust standard deviations
 * over the raw samples, each class on its own (so a real difference between them does not widen
 * it), unmoved by the few long stalls of a loaded machine. It sizes the error of the difference of
 * medians (floorDelay); 0 below MIN_SAMPLES per class.
 */
export function noiseOf(a: readonly number[], b: readonly number[]): number {
  if (a.length < MIN_SAMPLES || b.length < MIN_SAMPLES) return 0;
  return (robustSd(a) + robustSd(b)) / 2;
}

/** The quantile of the pooled samples the floor is relative to (scaleOf). */
export const SCALE_QUANTILE = 0.1;

/**
 * The scale of the round trip the floor is relative to: the fast round trip, the 10th percentile
 * of both classes' samples. A gateway's bias and a real leak are work on one path, which a loaded
 * machine slows like the rest of the work; the median also holds the time a request waits for a
 * core (40 times the idle round trip beside a CPU hog at load 20), which is nobody's work, and a
 * floor relative to it would hide a 5 ms leak there.
 */
export function scaleOf(a: readonly number[], b: readonly number[]): number {
  if (a.length < MIN_SAMPLES || b.length < MIN_SAMPLES) return 0;
  return quantileSorted(
    [...a, ...b].sort((x, y) => x - y),
    SCALE_QUANTILE,
  );
}

/** The difference of the two classes' medians (raw samples), in the samples' unit. */
export function medianShift(a: readonly number[], b: readonly number[]): number {
  return Math.abs(median(a) - median(b));
}

/**
 * The size of a test's difference, as a fraction of the scale: the larger of the test's difference
 * of means and the classes' difference of medians. A crop shrinks the difference of means of a
 * constant delay (the slow class loses more samples above the cut-off), the median does not; the
 * raw mean keeps a difference that lives in the tail. Infinity over a zero scale.
 */
export function effectOf(welch: Welch, shift: number, scale: number): number {
  const difference = Math.max(Math.abs(welch.meanA - welch.meanB), shift);
  if (scale > 0) return difference / scale;
  return difference === 0 ? 0 : Infinity;
}

/** The standard error of a median over that of a mean, for normal samples (√(π/2)). */
const MEDIAN_SE_FACTOR = 1.2533;

/**
 * The smallest constant delay whose observed difference of medians reaches the floor about 90 %
 * of the time at `n` samples per class: the floor plus z₀.₉ standard errors of that difference,
 * scaled up because the delay raises the pooled median, and the floor with it, by half its size.
 */
export function floorDelay(floor: number, noise: number, n: number, minEffect: number): number {
  if (floor <= 0 || n < 1) return floor;
  return (floor + POWER_Z * MEDIAN_SE_FACTOR * noise * Math.sqrt(2 / n)) / (1 - minEffect / 2);
}

function cropped(values: readonly number[], cutoff: number): number[] {
  return values.filter((value) => value < cutoff);
}

/** Welch's test on the raw samples and on each crop (cut-offs from the pooled samples). */
export function welchTests(
  a: readonly number[],
  b: readonly number[],
  percentiles: readonly number[] = CROP_PERCENTILES,
): TestResult[] {
  const results: TestResult[] = [];
  if (a.length >= MIN_SAMPLES && b.length >= MIN_SAMPLES) results.push({ test: 'raw', welch: welch(a, b) });
  else results.push({ test: 'raw' });
  const pooled = [...a, ...b].sort((x, y) => x - y);
  for (const p of percentiles) {
    const test = `p${String(Math.round(p * 100))}`;
    if (pooled.length === 0) {
      results.push({ test });
      continue;
    }
    const cutoff = quantileSorted(pooled, p);
    const [keptA, keptB] = [cropped(a, cutoff), cropped(b, cutoff)];
    results.push(
      keptA.length >= MIN_SAMPLES && keptB.length >= MIN_SAMPLES
        ? { test, cutoff, welch: welch(keptA, keptB) }
        : { test, cutoff },
    );
  }
  return results;
}

/** The test with the largest |t| (the first on a tie), or undefined when none could be computed. */
export function strongest(
  results: readonly TestResult[],
): (TestResult & { readonly welch: Welch }) | undefined {
  let best: (TestResult & { readonly welch: Welch }) | undefined;
  for (const result of results) {
    if (result.welch === undefined) continue;
    if (best === undefined || Math.abs(result.welch.t) > Math.abs(best.welch.t))
      best = { ...result, welch: result.welch };
  }
  return best;
}

/**
 * The expected Welch |t| of one test if class B were class A's distribution delayed by `delay`:
 * both classes drawn from `reference` (the pooled samples, sorted), `n` samples each, the crop's
 * cut-off taken from the pooled, partly shifted samples as the real test takes it.
 */
function expectedT(
  reference: readonly number[],
  n: number,
  percentile: number | undefined,
  delay: number,
): number {
  let keptA: readonly number[] = reference;
  let keptB: number[] = reference.map((value) => value + delay);
  if (percentile !== undefined) {
    const cutoff = quantileSorted(mergeSorted(reference, keptB), percentile);
    keptA = cropped(reference, cutoff);
    keptB = cropped(keptB, cutoff);
  }
  if (keptA.length < 2 || keptB.length < 2) return 0;
  const x = meanAndVariance(keptA);
  const y = meanAndVariance(keptB);
  const fractionA = keptA.length / reference.length;
  const fractionB = keptB.length / reference.length;
  const se = Math.sqrt(x.variance / (n * fractionA) + y.variance / (n * fractionB));
  return se === 0 ? Infinity : Math.abs(y.mean - x.mean) / se;
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const merged: number[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const x = a[i];
    const y = b[j];
    if (x !== undefined && (y === undefined || x <= y)) {
      merged.push(x);
      i += 1;
    } else if (y !== undefined) {
      merged.push(y);
      j += 1;
    } else {
      return merged;
    }
  }
}

/**
 * The smallest constant delay of one class that some test (raw or a crop) would flag as a leak
 * (expected |t| ≥ LEAK_T + z₀.₉, so caught about 90 % of the time) with `n` samples per class,
 * if both classes were distributed like `pooled`; found by bisection to 1 % (or 0.01 unit).
 * This is the "X" of "no leak detectable above X": an estimate from the very samples measured.
 */
export function detectableDelay(
  pooled: readonly number[],
  n: number,
  percentiles: readonly number[] = CROP_PERCENTILES,
): { readonly delay: number; readonly test: string } {
  const sorted = pooled.toSorted((x, y) => x - y);
  const needed = LEAK_T + POWER_Z;
  const tests: (number | undefined)[] = [undefined, ...percentiles];
  let best = { delay: Infinity, test: 'raw' };
  const spread = (sorted.at(-1) ?? 0) - (sorted[0] ?? 0);
  for (const percentile of tests) {
    const name = percentile === undefined ? 'raw' : `p${String(Math.round(percentile * 100))}`;
    let high = Math.max(1, spread);
    // A delay longer than the whole spread is caught by any test worth its name; give up beyond.
    while (expectedT(sorted, n, percentile, high) < needed) {
      high *= 2;
      if (high > 1e3 * Math.max(1, spread)) break;
    }
    if (expectedT(sorted, n, percentile, high) < needed) continue;
    let low = 0;
    while (high - low > Math.max(0.01, high * 0.01)) {
      const middle = (low + high) / 2;
      if (expectedT(sorted, n, percentile, middle) >= needed) high = middle;
      else low = middle;
    }
    if (high < best.delay) best = { delay: high, test: name };
  }
  return best;
}

export type TimingVerdict = 'leak' | 'no-evidence' | 'inconclusive';

export interface Comparison {
  /** Labels of the two classes compared, in the order given. */
  readonly labels: readonly [string, string];
  /** Samples per class (after warm-up). */
  readonly n: readonly [number, number];
  readonly tests: readonly TestResult[];
  /** The test with the largest |t|. */
  readonly strongest?: TestResult & { readonly welch: Welch };
  readonly verdict: TimingVerdict;
  /** The classes' robust standard deviation (noiseOf), in the samples' unit. */
  readonly noise: number;
  /** The fast round trip (scaleOf: the pooled 10th percentile), in the samples' unit. */
  readonly scale: number;
  /** MIN_EFFECT × scale: the smallest difference that counts as a leak. */
  readonly floor: number;
  /** The difference of the classes' medians (medianShift). */
  readonly shift: number;
  /**
   * Some test reached the leak bar (or the evidence bar) with a difference of means below the
   * floor: statistically there, too small to be a finding (judged no evidence).
   */
  readonly belowFloor?: boolean;
  /**
   * For no-evidence and inconclusive: the smallest delay of one class that this N would have
   * caught, and never below the floor (a smaller one would not count as a finding).
   */
  readonly detectable?: { readonly delay: number; readonly test: string };
  /** Judged at an interim look that stopped the test (the leak bar was CLEAR_T). */
  readonly stoppedEarly?: boolean;
}

/**
 * Judges one pair of classes; `interim` raises the bar for a leak to CLEAR_T. A test is a finding
 * when its |t| reaches the bar AND its difference reaches the floor (MIN_EFFECT × scale, effectOf):
 * significance alone, at a large N, also flags the measurement's own small biases.
 */
export function compare(
  labels: readonly [string, string],
  a: readonly number[],
  b: readonly number[],
  options: {
    readonly interim?: boolean;
    readonly percentiles?: readonly number[];
    readonly minEffect?: number;
  } = {},
): Comparison {
  const tests = welchTests(a, b, options.percentiles);
  const top = strongest(tests);
  const n = [a.length, b.length] as const;
  const noise = noiseOf(a, b);
  const scale = scaleOf(a, b);
  const shift = a.length > 0 && b.length > 0 ? medianShift(a, b) : 0;
  const minEffect = options.minEffect ?? MIN_EFFECT;
  const floor = minEffect * scale;
  const base = {
    labels,
    n,
    tests,
    noise,
    scale,
    floor,
    shift,
    ...(top === undefined ? {} : { strongest: top }),
  };
  const bar = options.interim === true ? CLEAR_T : LEAK_T;
  const reaching = (threshold: number): (TestResult & { readonly welch: Welch })[] =>
    tests.flatMap((test) =>
      test.welch !== undefined && Math.abs(test.welch.t) >= threshold ? [{ ...test, welch: test.welch }] : [],
    );
  const aboveFloor = (test: { readonly welch: Welch }): boolean =>
    effectOf(test.welch, shift, scale) >= minEffect;
  const findings = reaching(bar).filter(aboveFloor);
  const strongestFinding = strongest(findings);
  if (strongestFinding !== undefined) return { ...base, strongest: strongestFinding, verdict: 'leak' };
  if (options.interim === true) return { ...base, verdict: 'inconclusive' };
  const measured = detectableDelay([...a, ...b], Math.min(a.length, b.length), options.percentiles);
  const floorBound = floorDelay(floor, noise, Math.min(a.length, b.length), minEffect);
  const detectable = measured.delay >= floorBound ? measured : { delay: floorBound, test: 'floor' };
  const significant = reaching(EVIDENCE_T);
  if (top === undefined) return { ...base, verdict: 'inconclusive', detectable };
  if (significant.length === 0) return { ...base, verdict: 'no-evidence', detectable };
  // Evidence of a difference, but every test that shows it differs by less than the floor.
  if (!significant.some(aboveFloor)) return { ...base, verdict: 'no-evidence', belowFloor: true, detectable };
  return { ...base, verdict: 'inconclusive', detectable };
}

export interface TimingPlan {
  /** Class labels; `measure` gets the index. */
  readonly classes: readonly string[];
  /** The pairs of class indices to compare. */
  readonly comparisons: readonly (readonly [number, number])[];
  /** Rounds measured and thrown away first (connections, caches, JIT). */
  readonly warmupRounds: number;
  /** Rounds measured at most (each round: one sample of every class, in a random order). */
  readonly maxRounds: number;
  /** No early stop before this many rounds. */
  readonly minRounds: number;
  /** Rounds between interim looks. */
  readonly checkEvery: number;
  readonly percentiles?: readonly number[];
  /** The minimum effect size (default MIN_EFFECT); 0 judges on significance alone. */
  readonly minEffect?: number;
  /** One measurement of a class, in the samples' unit (the cases use microseconds). */
  readonly measure: (classIndex: number) => Promise<number>;
  /** The order of one round's classes (the case's seeded shuffle). */
  readonly order: (classIndices: readonly number[]) => readonly number[];
  /**
   * Asked after every measured round: true ends the measurement with the rounds taken so far (a
   * wall-clock cap, so a slow machine yields a smaller N, reported as such, instead of a timeout).
   */
  readonly outOfTime?: () => boolean;
}

export interface TimingOutcome {
  /** Rounds measured after the warm-up. */
  readonly rounds: number;
  readonly stoppedEarly: boolean;
  /** The time cap ended the measurement before its budget of rounds. */
  readonly outOfTime: boolean;
  readonly comparisons: readonly Comparison[];
  /** The worst verdict of the comparisons: leak, then inconclusive, then no-evidence. */
  readonly verdict: TimingVerdict;
  /** The samples per class, for a report that wants them. */
  readonly samples: readonly (readonly number[])[];
}

const SEVERITY: Readonly<Record<TimingVerdict, number>> = { 'no-evidence': 0, inconclusive: 1, leak: 2 };

export function worstVerdict(verdicts: readonly TimingVerdict[]): TimingVerdict {
  return verdicts.reduce<TimingVerdict>(
    (worst, v) => (SEVERITY[v] > SEVERITY[worst] ? v : worst),
    'no-evidence',
  );
}

function validatePlan(plan: TimingPlan): void {
  for (const [name, value] of [
    ['warmupRounds', plan.warmupRounds],
    ['maxRounds', plan.maxRounds],
    ['minRounds', plan.minRounds],
    ['checkEvery', plan.checkEvery],
  ] as const) {
    if (!Number.isInteger(value) || value < (name === 'warmupRounds' ? 0 : 1))
      throw new RangeError(
        `${name} must be a ${name === 'warmupRounds' ? 'non-negative' : 'positive'} integer`,
      );
  }
  if (plan.classes.length < 2) throw new RangeError('a timing test compares at least two classes');
  for (const pair of plan.comparisons) {
    if (
      pair.some((index) => !Number.isInteger(index) || index < 0 || index >= plan.classes.length) ||
      pair[0] === pair[1]
    )
      throw new RangeError(`comparison ${JSON.stringify(pair)} does not name two classes`);
  }
}

/** Measures round after round and judges every comparison (see the module comment). */
export async function runTimingTest(plan: TimingPlan): Promise<TimingOutcome> {
  validatePlan(plan);
  const indices = plan.classes.map((_, index) => index);
  const samples: number[][] = plan.classes.map(() => []);
  const judge = (interim: boolean): Comparison[] =>
    plan.comparisons.map(([i, j]) =>
      compare([plan.classes[i] ?? '', plan.classes[j] ?? ''], samples[i] ?? [], samples[j] ?? [], {
        interim,
        ...(plan.percentiles === undefined ? {} : { percentiles: plan.percentiles }),
        ...(plan.minEffect === undefined ? {} : { minEffect: plan.minEffect }),
      }),
    );
  let rounds = 0;
  let outOfTime = false;
  for (let round = 0; round < plan.warmupRounds + plan.maxRounds; round += 1) {
    const order = plan.order(indices);
    if (order.length !== indices.length || indices.some((index) => !order.includes(index)))
      throw new Error('order() must return every class index once');
    for (const index of order) {
      const value = await plan.measure(index);
      if (round >= plan.warmupRounds) samples[index]?.push(value);
    }
    if (round < plan.warmupRounds) continue;
    rounds += 1;
    if (rounds < plan.maxRounds && rounds >= plan.minRounds && rounds % plan.checkEvery === 0) {
      const interim = judge(true);
      if (interim.some((comparison) => comparison.verdict === 'leak')) {
        const comparisons = interim.map((comparison) => ({ ...comparison, stoppedEarly: true }));
        return { rounds, stoppedEarly: true, outOfTime: false, comparisons, verdict: 'leak', samples };
      }
    }
    if (rounds < plan.maxRounds && plan.outOfTime?.() === true) {
      outOfTime = true;
      break;
    }
  }
  const comparisons = judge(false);
  return {
    rounds,
    stoppedEarly: false,
    outOfTime,
    comparisons,
    verdict: worstVerdict(comparisons.map((comparison) => comparison.verdict)),
    samples,
  };
}

function micros(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

/** One line per comparison, for transcripts and verdicts (samples in microseconds). */
export function describeComparison(comparison: Comparison): string {
  const [first, second] = comparison.labels;
  const n =
    comparison.n[0] === comparison.n[1]
      ? `N = ${String(comparison.n[0])} per class`
      : `N = ${String(comparison.n[0])}/${String(comparison.n[1])}`;
  const top = comparison.strongest;
  const stat =
    top === undefined
      ? 'no test computable'
      : `max |t| = ${Math.abs(top.welch.t).toFixed(1)} (${top.test}${top.cutoff === undefined ? '' : ` < ${micros(top.cutoff)} µs`}: means ${micros(top.welch.meanA)} vs ${micros(top.welch.meanB)} µs, effect ${effectOf(top.welch, comparison.shift, comparison.scale).toFixed(3)} × p10 ${micros(comparison.scale)} µs)`;
  const all = comparison.tests
    .map((test) => `${test.test} ${test.welch === undefined ? '–' : Math.abs(test.welch.t).toFixed(1)}`)
    .join(', ');
  const bound =
    comparison.detectable === undefined
      ? ''
      : Number.isFinite(comparison.detectable.delay)
        ? `; no leak detectable above ${micros(comparison.detectable.delay)} µs at this N (${comparison.detectable.test === 'floor' ? `the minimum effect size, ${String(MIN_EFFECT)} × the fast round trip` : comparison.detectable.test})`
        : '; no delay of any size would be detectable at this N';
  const head =
    comparison.verdict === 'leak'
      ? `leak${comparison.stoppedEarly === true ? ' (stopped early)' : ''}`
      : comparison.belowFloor === true
        ? `no finding: the difference is below the minimum effect size (${micros(comparison.floor)} µs = ${String(MIN_EFFECT)} × the fast round trip)`
        : comparison.verdict === 'no-evidence'
          ? 'no evidence of a difference'
          : `inconclusive (|t| between ${String(EVIDENCE_T)} and ${String(LEAK_T)}, or too few samples)`;
  return `${first} vs ${second}: ${head}: ${stat}, ${n}; |t| per test: ${all}${bound}`;
}

/** Outcomes of several timing tests of one case as one: their comparisons, rounds added up. */
export function mergeOutcomes(outcomes: readonly TimingOutcome[]): TimingOutcome {
  const comparisons = outcomes.flatMap((outcome) => outcome.comparisons);
  return {
    rounds: outcomes.reduce((sum, outcome) => sum + outcome.rounds, 0),
    stoppedEarly: outcomes.some((outcome) => outcome.stoppedEarly),
    outOfTime: outcomes.some((outcome) => outcome.outOfTime),
    comparisons,
    verdict: worstVerdict(comparisons.map((comparison) => comparison.verdict)),
    samples: outcomes.flatMap((outcome) => outcome.samples),
  };
}
