/**
 * How many unpredictable bits samples of task and event IDs can still hold (#invocation: at
 * least 128 bits from a CSPRNG), after the predictor battery (suites/framework/predictability.ts)
 * has marked the positions it can guess from earlier IDs. A CSPRNG bit is never guessed beyond
 * chance, so a conformant ID keeps its 128 random positions unmarked, whatever else it carries
 * (a fixed text, a time field, a counter beside them), except with the printed false-positive
 * probability. A sample whose capacity minus its marked positions is below 128 is evidence of a
 * MUST failure: a counter or a clock took the place of random bits.
 *
 * The battery also asks, identifier by identifier, whether its bits fit V8's Math.random
 * (suites/framework/generator-fit.ts): a sample where more fit than chance allows is a MUST
 * failure whose next output the printed state predicts. Fewer than MINIMUM_IDENTIFIERS IDs of one
 * length decide nothing: the case cannot tell.
 *
 * What it cannot see: output that merely looks random to whoever does not know the scheme (a
 * digest of a clock and a counter, a PRNG other than the one modelled). Recomputing one
 * implementation's derivation would test that implementation, not the requirement.
 */
import type { Caller } from '../../../harness/driver/index.ts';
import { expectThat } from '../../framework/expect.ts';
import type { GeneratorTest } from '../../framework/generator-fit.ts';
import { runPredictorBattery, type PredictionTest } from '../../framework/predictability.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { decodeIdentifiers, MINIMUM_IDENTIFIERS, mostCommonLength } from './identifier-bits.ts';

/** The floor #invocation sets. */
export const REQUIRED_BITS = 128;
/** Family-wise bound on calling any CSPRNG bit of any sample predictable, per run of the case. */
export const BATTERY_ALPHA = 1e-6;

export interface IdentifierSample {
  readonly label: string;
  /** In an order that does not depend on the IDs' values (send order, then revision). */
  readonly ids: readonly string[];
  /** Creation instants in milliseconds, when the sample has them (task IDs). */
  readonly instants?: readonly number[];
}

export interface SampleJudgement {
  readonly label: string;
  readonly identifiers: number;
  readonly encoding: string;
  readonly capacityBits: number;
  readonly predictable: readonly PredictionTest[];
  /** Capacity less the predictable positions: the most bits the sample's IDs can hold. */
  readonly remainingBits: number;
  /** Whether its IDs fit V8's Math.random, when the test applies to their width and encoding. */
  readonly generator?: GeneratorTest;
  /** The decoded IDs, in row order, for naming the ones that fit the generator. */
  readonly ids: readonly string[];
}

/** A sample the battery could not decode, and why. */
export interface SkippedSample {
  readonly label: string;
  readonly identifiers: number;
  /** The largest group of IDs of one length. */
  readonly sameLength: number;
  readonly reason: string;
}

export interface BatteryJudgement {
  readonly tests: number;
  /** Every test's size summed, plus the chance that dropping shared characters dropped a random one. */
  readonly falsePositiveBound: number;
  readonly samples: readonly SampleJudgement[];
  /** Samples too small, too mixed in length or too uniform to decode. */
  readonly skipped: readonly SkippedSample[];
}

export function judgeIdentifierSamples(samples: readonly IdentifierSample[]): BatteryJudgement {
  const decoded = samples.map((sample) => ({ sample, bits: decodeIdentifiers(sample.ids) }));
  const usable = decoded.flatMap(({ sample, bits }) => (bits === undefined ? [] : [{ sample, bits }]));
  const battery = runPredictorBattery(
    usable.map(({ sample, bits }) => ({
      label: sample.label,
      rows: bits.rows,
      bias: bits.bias,
      wordEnds: bits.wordEnds,
      nullRandomBits: REQUIRED_BITS,
      ...(sample.instants === undefined
        ? {}
        : { instants: bits.kept.map((index) => sample.instants?.[index] ?? 0) }),
    })),
    BATTERY_ALPHA,
  );
  const judged = usable.map(({ sample, bits }, index) => {
    const verdict = battery.samples[index];
    const predictable = verdict?.predictable ?? [];
    return {
      label: sample.label,
      identifiers: bits.rows.length,
      encoding: bits.encoding,
      capacityBits: bits.capacityBits,
      predictable,
      remainingBits: bits.capacityBits - predictable.length,
      ...(verdict?.generator === undefined ? {} : { generator: verdict.generator }),
      ids: bits.kept.map((kept) => sample.ids[kept] ?? ''),
    };
  });
  return {
    tests: battery.tests,
    falsePositiveBound:
      battery.falsePositiveBound + usable.reduce((sum, { bits }) => sum + bits.sharedTextBound, 0),
    samples: judged,
    skipped: decoded.filter(({ bits }) => bits === undefined).map(({ sample }) => skippedSample(sample)),
  };
}

function skippedSample(sample: IdentifierSample): SkippedSample {
  const sameLength = mostCommonLength(sample.ids).length;
  const reason =
    sameLength < MINIMUM_IDENTIFIERS
      ? `${String(sample.ids.length)} IDs, at most ${String(sameLength)} of one length; the battery needs ${String(MINIMUM_IDENTIFIERS)} of one length`
      : `${String(sameLength)} IDs of one length, but no varying characters a bit could be read from`;
  return { label: sample.label, identifiers: sample.ids.length, sameLength, reason };
}

/** Bits as counted: whole for a power-of-two alphabet, to a tenth for another radix. */
function bits(count: number): string {
  return Number.isInteger(count) ? String(count) : count.toFixed(1);
}

/** One line per sample for the transcript, and the battery's size. */
export function describeBattery(judgement: BatteryJudgement): string {
  const lines = judgement.samples.map(
    (sample) =>
      `${sample.label}: ${String(sample.identifiers)} IDs, ${sample.encoding}; ${String(sample.predictable.length)} predictable positions, at most ${bits(sample.remainingBits)} of ${bits(sample.capacityBits)} bits left`,
  );
  for (const sample of judgement.samples) {
    const test = sample.generator;
    if (test === undefined) continue;
    lines.push(
      `${sample.label}: ${String(test.hits)} of ${String(test.trials)} IDs fit ${test.generator} (at most ${test.nullProbability.toExponential(2)} each by chance; fails from ${String(test.critical)})`,
    );
  }
  for (const skipped of judgement.skipped) lines.push(`${skipped.label}: not tested, ${skipped.reason}`);
  lines.push(
    `${String(judgement.tests)} predictor tests at family-wise level ${BATTERY_ALPHA.toExponential(0)}: false-positive probability for CSPRNG IDs at most ${judgement.falsePositiveBound.toExponential(2)}`,
  );
  return lines.join('\n');
}

/** The predictable positions of a failing sample, most telling first, for the failure message. */
export function describePredictable(sample: SampleJudgement, shown = 12): string {
  const tests = [...sample.predictable].sort((a, b) => a.pValue - b.pValue);
  const lines = tests.slice(0, shown).map((test) => {
    const window = test.windowEnd === undefined ? '' : ` (window to bit ${String(test.windowEnd)})`;
    return `bit ${String(test.position)}: ${test.predictor}${window} guessed ${String(test.correct)} of ${String(test.trials)} (chance p ${test.pValue.toExponential(1)})`;
  });
  if (tests.length > shown) lines.push(`… and ${String(tests.length - shown)} more`);
  return lines.join('\n');
}

/** The IDs that fit the generator, with the checks they satisfy and what the model predicts next. */
export function describeGeneratorFit(sample: SampleJudgement, shown = 6): string {
  const test = sample.generator;
  if (test === undefined) return '';
  const lines = test.matches.slice(0, shown).map((match) => {
    const id = sample.ids[match.row] ?? '';
    const where = `bits ${String(match.start)}..${String(match.start + match.draws * match.drawBits - 1)} as ${String(match.draws)} draws of ${String(match.drawBits)} bits in ${match.order === 'cache' ? "V8's cache order" : 'state order'}`;
    const state =
      match.state === undefined
        ? ''
        : `; state s0=${match.state.s0.toString(16)} s1=${match.state.s1.toString(16)}, next draws from the same cache: ${match.nextDraws.map((draw) => draw.toString(16).padStart(Math.ceil(match.drawBits / 4), '0')).join(' ')}`;
    return `${id}: ${where} satisfy all ${String(match.checks)} parity checks${state}`;
  });
  if (test.matches.length > shown) lines.push(`… and ${String(test.matches.length - shown)} more`);
  return lines.join('\n');
}

/**
 * Runs the battery on the samples, notes its summary (sizes, encodings, false-positive bound) in
 * the caller's transcript, and requires every sample to keep REQUIRED_BITS unmarked bits and not
 * to fit V8's Math.random beyond chance. A sample too small to decode makes the case cantTell
 * once the others have passed: the battery never passes on IDs it did not test.
 */
export function expectUnpredictableBits(caller: Caller, samples: readonly IdentifierSample[]): void {
  const judgement = judgeIdentifierSamples(samples);
  caller.transcript.note(`identifier predictor battery:\n${describeBattery(judgement)}`);
  for (const sample of judgement.samples) {
    expectThat(
      `${sample.label} (${String(sample.identifiers)}, ${sample.encoding}): ${String(sample.predictable.length)} of ${bits(sample.capacityBits)} bit positions guessed from earlier IDs beyond chance, at most ${bits(sample.remainingBits)} bits left\n${describePredictable(sample)}`,
      'invocation.identifier-unpredictability',
      `at least ${String(REQUIRED_BITS)} bit positions no predictor guesses beyond chance (false-positive probability for CSPRNG IDs at most ${judgement.falsePositiveBound.toExponential(2)} over ${String(judgement.tests)} tests)`,
      sample.remainingBits >= REQUIRED_BITS,
    );
    const test = sample.generator;
    if (test !== undefined) {
      expectThat(
        `${String(test.hits)} of ${String(test.trials)} ${sample.label} fit ${test.generator} (chance p ${test.pValue.toExponential(1)})\n${describeGeneratorFit(sample)}`,
        'invocation.identifier-unpredictability',
        `fewer than ${String(test.critical)} IDs fitting the generator's parity checks, as CSPRNG IDs do (each with probability at most ${test.nullProbability.toExponential(2)}; false-positive probability of the battery at most ${judgement.falsePositiveBound.toExponential(2)})`,
        test.hits < test.critical,
      );
    }
  }
  if (judgement.skipped.length > 0) {
    throw new CannotTell(
      `identifier predictor battery: ${judgement.skipped.map((skipped) => `${skipped.label}: ${skipped.reason}`).join('; ')}`,
    );
  }
}
