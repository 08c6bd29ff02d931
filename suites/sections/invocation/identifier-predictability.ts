/**
 * How many unpredictable bits samples of task and event IDs can still hold (#invocation: at
 * least 128 bits from a CSPRNG), after the predictor battery (suites/framework/predictability.ts)
 * has marked the positions it can guess from earlier IDs. A CSPRNG bit is never guessed beyond
 * chance, so a conformant ID keeps its 128 random positions unmarked, whatever else it carries
 * (a fixed text, a time field, a counter beside them), except with the printed false-positive
 * probability. A sample whose capacity minus its marked positions is below 128 is evidence of a
 * MUST failure: a counter or a clock took the place of random bits.
 *
 * What it cannot see: output that merely looks random to whoever does not know the scheme (a
 * digest of a clock and a counter, a non-cryptographic PRNG such as Math.random). No sample-size
 * makes those visible without modelling the generator itself.
 */
import type { Caller } from '../../../harness/driver/index.ts';
import { expectThat } from '../../framework/expect.ts';
import { runPredictorBattery, type PredictionTest } from '../../framework/predictability.ts';
import { decodeIdentifiers } from './identifier-bits.ts';

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
}

export interface BatteryJudgement {
  readonly tests: number;
  /** Every test's size summed, plus the chance that dropping shared characters dropped a random one. */
  readonly falsePositiveBound: number;
  readonly samples: readonly SampleJudgement[];
  /** Samples too small or too uniform in length to decode. */
  readonly skipped: readonly string[];
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
      ...(sample.instants === undefined
        ? {}
        : { instants: bits.kept.map((index) => sample.instants?.[index] ?? 0) }),
    })),
    BATTERY_ALPHA,
  );
  const judged = usable.map(({ sample, bits }, index) => {
    const predictable = battery.samples[index]?.predictable ?? [];
    return {
      label: sample.label,
      identifiers: bits.rows.length,
      encoding: bits.encoding,
      capacityBits: bits.capacityBits,
      predictable,
      remainingBits: bits.capacityBits - predictable.length,
    };
  });
  return {
    tests: battery.tests,
    falsePositiveBound:
      battery.falsePositiveBound + usable.reduce((sum, { bits }) => sum + bits.sharedTextBound, 0),
    samples: judged,
    skipped: decoded.filter(({ bits }) => bits === undefined).map(({ sample }) => sample.label),
  };
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
  for (const label of judgement.skipped) lines.push(`${label}: too few IDs of one length to test`);
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

/**
 * Runs the battery on the samples, notes its summary (sizes, encodings, false-positive bound) in
 * the caller's transcript, and requires every sample to keep REQUIRED_BITS unmarked bits.
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
  }
}
