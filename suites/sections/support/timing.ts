/**
 * The timing cases' shell around suites/framework/timing-test.ts: each sample is one IQ round
 * trip of a caller, timed from the transcript's own clock (the request recorded as it is
 * written to the socket, the reply as it is read), so a `--rate` pause before the send and the
 * case's own bookkeeping after it are not part of the sample. The thousands of probes do not go
 * into the case's transcript (it would hold megabytes of identical errors): the first answer of
 * each class does, everything else that arrived meanwhile is copied back, and the result is a
 * note with the figures.
 *
 * How a verdict maps to the requirement's level (docs/timing.md):
 * - leak: MUST → RequirementViolation; SHOULD → a warning on the passing case;
 * - inconclusive: MUST → CannotTell (nothing was decided); SHOULD → passes with the figures in
 *   a note, since a SHOULD is not failed on evidence below the bar;
 * - no evidence: passes, stating the smallest delay the run could have seen ("no leak detectable
 *   above X µs at N"), never a bare "constant time".
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { Transcript } from '../../../harness/driver/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import type { Level } from '../../framework/outcome.ts';
import {
  CLEAR_T,
  LEAK_T,
  describeComparison,
  runTimingTest,
  type TimingOutcome,
} from '../../framework/timing-test.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export interface TimedClass {
  /** E.g. "hidden vault@agents.example". */
  readonly label: string;
  readonly send: () => Promise<IqExchange>;
  /** Judges the first answer of the class (throws a verdict); later ones must be the same kind. */
  readonly check: (exchange: IqExchange) => void;
}

/** A case's rounds (each round: one request of every class) by default and under --deep. */
export interface TimingBudget {
  readonly rounds: number;
  readonly deepRounds: number;
}

/** Rounds measured and dropped before the samples count (connections warm, JIT, caches). */
const WARMUP_ROUNDS = 8;

/**
 * The longest one measurement may take (default, --deep). A quiet machine finishes its rounds well
 * inside (about 0.3 s and 11 s); a loaded one measures fewer rounds and says so, so that the six
 * measurements stay within about 30 s (default) and 2 minutes (--deep) whatever the load.
 */
const TIME_CAP_MS = { normal: 5_000, deep: 20_000 } as const;

/** The time limit of a timing case: two measurements at the deep cap, and the rest. */
export const TIMING_CASE_TIMEOUT_MS = 2 * TIME_CAP_MS.deep + 60_000;

/** What kind of answer an exchange is, for spotting an answer that changes during the run. */
function answerKind(exchange: IqExchange): string {
  return exchange.parsed.type === 'error'
    ? `error ${exchange.parsed.error.type} ${exchange.parsed.error.condition}`
    : 'result';
}

/** One round trip, timed by the transcript's clock, recorded in a scratch transcript. */
async function timedExchange(
  caller: Caller,
  send: () => Promise<IqExchange>,
): Promise<{ readonly exchange: IqExchange; readonly micros: number; readonly scratch: Transcript }> {
  const main = caller.transcript;
  const scratch = new Transcript(main.title);
  caller.useTranscript(scratch);
  let exchange: IqExchange;
  try {
    exchange = await send();
  } catch (error) {
    // A request that got no proper answer is evidence: all of it goes into the case transcript.
    copyInto(main, scratch, () => false);
    throw error;
  } finally {
    caller.useTranscript(main);
  }
  const sent = scratch.entries.find(
    (entry) => entry.direction === 'sent' && entry.xml === exchange.requestXml,
  );
  const received = scratch.entries.find(
    (entry) => entry.direction === 'received' && entry.xml === exchange.reply.xml,
  );
  if (sent === undefined || received === undefined)
    throw new Error('a timed request or its reply is missing from the scratch transcript');
  return { exchange, micros: (received.atMs - sent.atMs) * 1000, scratch };
}

function copyInto(target: Transcript, from: Transcript, skip: (xml: string | undefined) => boolean): void {
  for (const { seq: _seq, atMs: _atMs, ...record } of from.entries) {
    if (!skip(record.xml)) target.record(record);
  }
}

/**
 * Runs the timing test over `classes` (all sent by `caller`) for at most `maxRounds` rounds and
 * compares the pairs given; the figures go into the transcript. The case takes the rounds from
 * its budget and records what ran.
 */
export async function measureTiming(
  context: CaseContext,
  caller: Caller,
  classes: readonly TimedClass[],
  comparisons: readonly (readonly [number, number])[],
  maxRounds: number,
): Promise<TimingOutcome> {
  const firstKinds = new Map<number, string>();
  const transcript = caller.transcript;
  const capMs = context.budget.deep ? TIME_CAP_MS.deep : TIME_CAP_MS.normal;
  const startedAt = performance.now();
  const outcome = await runTimingTest({
    outOfTime: () => performance.now() - startedAt > capMs,
    classes: classes.map((timed) => timed.label),
    comparisons,
    warmupRounds: WARMUP_ROUNDS,
    maxRounds,
    minRounds: Math.min(maxRounds, 32),
    checkEvery: Math.max(16, Math.floor(maxRounds / 32)),
    order: (indices) => context.random.shuffle(indices),
    measure: async (index) => {
      const timed = classes[index];
      if (timed === undefined) throw new Error(`no class ${String(index)}`);
      const { exchange, micros, scratch } = await timedExchange(caller, timed.send);
      const kind = answerKind(exchange);
      const first = firstKinds.get(index);
      if (first === undefined) {
        // The first answer of each class stays in the transcript, and is judged in full.
        copyInto(transcript, scratch, () => false);
        firstKinds.set(index, kind);
        timed.check(exchange);
      } else {
        copyInto(transcript, scratch, (xml) => xml === exchange.requestXml || xml === exchange.reply.xml);
        if (kind !== first) {
          transcript.record({ kind: 'stanza', direction: 'sent', jid: caller.jid, xml: exchange.requestXml });
          transcript.record({
            kind: 'stanza',
            direction: 'received',
            jid: caller.jid,
            xml: exchange.reply.xml,
          });
          timed.check(exchange);
          throw new CannotTell(
            `${timed.label}: the answer changed during the measurement (${first}, then ${kind}), so the timings compare different answers`,
          );
        }
      }
      return micros;
    },
  });
  transcript.note(
    `timing: ${String(outcome.rounds)} rounds of ${String(classes.length)} classes after ${String(WARMUP_ROUNDS)} warm-up rounds (budget ${String(maxRounds)}${outcome.stoppedEarly ? `, stopped early at |t| ≥ ${String(CLEAR_T)}` : ''}${outcome.outOfTime ? `, stopped at the ${String(capMs / 1000)} s time cap` : ''})`,
  );
  for (const comparison of outcome.comparisons) {
    transcript.note(`timing: ${describeComparison(comparison)}`);
  }
  return outcome;
}

/** Turns the outcome into the case's verdict at the requirement's level (module comment). */
export function judgeTiming(
  context: CaseContext,
  caller: Caller,
  requirement: RequirementId,
  level: Level,
  outcome: TimingOutcome,
): void {
  const lines = outcome.comparisons.map((comparison) => describeComparison(comparison));
  const leaks = outcome.comparisons.filter((comparison) => comparison.verdict === 'leak');
  if (leaks.length > 0) {
    const received = leaks.map((comparison) => describeComparison(comparison)).join('\n');
    if (level === 'MUST') {
      throw new RequirementViolation(
        requirement,
        `answers that take the same time (Welch's |t| below ${String(LEAK_T)} on the raw and cropped samples)`,
        received,
        `${requirement}: the answers differ in timing: ${received}`,
      );
    }
    context.warn(requirement, `the answers differ in timing: ${received}`);
    return;
  }
  const undecided = outcome.comparisons.filter((comparison) => comparison.verdict === 'inconclusive');
  if (undecided.length > 0 && level === 'MUST') {
    throw new CannotTell(`the timing test could not decide: ${lines.join('\n')}`);
  }
  caller.transcript.note(
    undecided.length > 0
      ? `timing: inconclusive at a SHOULD: passes without a finding (no |t| reached ${String(LEAK_T)})`
      : 'timing: no leak detectable at this N (the bound above is what the run could have seen)',
  );
}
