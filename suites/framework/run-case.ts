/**
 * Runs one case to a result. Decides applicability first (unclaimed profile → untested,
 * unadvertised feature → inapplicable), then runs attempts: a failed first attempt is re-run
 * alone once, and a case that fails and then passes is reported as flaky with outcome
 * cantTell — never as a silent pass (a correct gateway passes every time).
 */
import type { Transcript, TranscriptJson } from '../../harness/driver/index.ts';
import type { ConformanceCase } from './case.ts';
import type { CaseContext, SutFacts } from './context.ts';
import type { Outcome } from './outcome.ts';
import { caseSeed } from './seeded-random.ts';
import { CannotTell, NotApplicable, RequirementViolation } from './verdicts.ts';

export interface Finding {
  readonly requirement: string;
  readonly message: string;
}

export interface AttemptReport {
  readonly outcome: Outcome;
  readonly durationMs: number;
  /** Set when the outcome is failed because a requirement was violated. */
  readonly violation?: {
    readonly requirement: string;
    readonly expected: string;
    readonly received: string;
    readonly message: string;
  };
  /** Why the attempt did not pass, in one paragraph (violation summary, error, reason). */
  readonly reason?: string;
  readonly warnings: readonly Finding[];
  readonly transcript: TranscriptJson;
  readonly transcriptText: string;
}

export interface CaseResult {
  readonly case: ConformanceCase;
  readonly outcome: Outcome;
  readonly seed: number;
  readonly flaky: boolean;
  readonly reason?: string;
  /** Every attempt run, first to last (none for untested and inapplicable cases). */
  readonly attempts: readonly AttemptReport[];
}

/** One attempt's private world: a context with fresh callers recording into `transcript`. */
export interface CaseAttempt {
  readonly context: CaseContext;
  readonly transcript: Transcript;
  /**
   * Checks on everything the SUT sent during the attempt (e.g. schema validity), run after the
   * case's own assertions passed; throws a verdict like a case does.
   */
  verify?(): Promise<void>;
  /** Closes the attempt's callers; never rejects. */
  dispose(): Promise<void>;
}

export interface RunCaseOptions {
  readonly sut: SutFacts;
  readonly runSeed: number;
  readonly defaultTimeoutMs: number;
  /** Builds the context of one attempt (the runner connects callers lazily inside it). */
  readonly prepare: (
    testCase: ConformanceCase,
    seed: number,
    warn: (finding: Finding) => void,
  ) => CaseAttempt;
  /** Re-run a failed case once to tell flaky from failing (default true). */
  readonly rerunFailures?: boolean;
}

/** Why the case does not run against this SUT, or undefined when it does. */
export function applicability(
  testCase: ConformanceCase,
  sut: SutFacts,
): { readonly outcome: 'untested' | 'inapplicable'; readonly reason: string } | undefined {
  if (!testCase.profiles.some((profile) => sut.profiles.has(profile))) {
    return { outcome: 'untested', reason: `the SUT claims none of: ${testCase.profiles.join(', ')}` };
  }
  const missing = (testCase.features ?? []).filter((feature) => !sut.features.has(feature));
  if (missing.length > 0) {
    return { outcome: 'inapplicable', reason: `the SUT does not advertise ${missing.join(', ')}` };
  }
  return undefined;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function withTimeout(work: Promise<void>, timeoutMs: number, id: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${id}: no verdict within ${String(timeoutMs)} ms`));
    }, timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => {
    clearTimeout(timer);
  });
}

async function runAttempt(
  testCase: ConformanceCase,
  seed: number,
  options: RunCaseOptions,
): Promise<AttemptReport> {
  const warnings: Finding[] = [];
  const attempt = options.prepare(testCase, seed, (finding) => warnings.push(finding));
  const started = performance.now();
  let outcome: Outcome = 'passed';
  let violation: AttemptReport['violation'];
  let reason: string | undefined;
  try {
    await withTimeout(
      testCase.run(attempt.context),
      testCase.timeoutMs ?? options.defaultTimeoutMs,
      testCase.id,
    );
    await attempt.verify?.();
  } catch (error) {
    if (error instanceof RequirementViolation) {
      outcome = 'failed';
      violation = {
        requirement: error.requirement,
        expected: error.expected,
        received: error.received,
        message: error.message,
      };
      reason = error.message;
    } else if (error instanceof CannotTell) {
      outcome = 'cantTell';
      reason = error.message;
    } else if (error instanceof NotApplicable) {
      outcome = 'inapplicable';
      reason = error.message;
    } else {
      // A timeout, a disconnect, a malformed reply: the SUT did not let the case reach a verdict.
      outcome = 'failed';
      reason = describeError(error);
    }
  } finally {
    await attempt.dispose();
  }
  if (reason !== undefined) attempt.transcript.note(`verdict: ${outcome}: ${reason}`);
  return {
    outcome,
    durationMs: performance.now() - started,
    ...(violation === undefined ? {} : { violation }),
    ...(reason === undefined ? {} : { reason }),
    warnings,
    transcript: attempt.transcript.toJSON(),
    transcriptText: attempt.transcript.toText(),
  };
}

export async function runCase(testCase: ConformanceCase, options: RunCaseOptions): Promise<CaseResult> {
  const seed = caseSeed(options.runSeed, testCase.id);
  const skipped = applicability(testCase, options.sut);
  if (skipped !== undefined) {
    return {
      case: testCase,
      outcome: skipped.outcome,
      seed,
      flaky: false,
      reason: skipped.reason,
      attempts: [],
    };
  }
  const first = await runAttempt(testCase, seed, options);
  if (first.outcome !== 'failed' || options.rerunFailures === false) {
    return {
      case: testCase,
      outcome: first.outcome,
      seed,
      flaky: false,
      ...(first.reason === undefined ? {} : { reason: first.reason }),
      attempts: [first],
    };
  }
  const second = await runAttempt(testCase, seed, options);
  if (second.outcome === 'passed') {
    return {
      case: testCase,
      outcome: 'cantTell',
      seed,
      flaky: true,
      reason: `flaky: failed, then passed when re-run alone (first attempt: ${first.reason ?? 'failed'})`,
      attempts: [first, second],
    };
  }
  return {
    case: testCase,
    outcome: second.outcome,
    seed,
    flaky: false,
    ...(second.reason === undefined ? {} : { reason: second.reason }),
    attempts: [first, second],
  };
}
