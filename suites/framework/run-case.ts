/**
 * Runs one case to a result. Decides applicability first (unclaimed profile → untested,
 * unadvertised feature → inapplicable, a declared system tool missing → cantTell), then runs attempts: a failed first attempt is re-run
 * alone once, and a case that fails and then passes is reported as flaky with outcome
 * cantTell — never as a silent pass (a correct gateway passes every time). An adversarial case
 * (one with a scenario, timing aside) that found a violation is not re-run: its counterexample
 * stands, replayable from the printed seed.
 */
import type { Transcript, TranscriptJson } from '../../harness/driver/index.ts';
import type { AttemptBudget } from './budget.ts';
import type { ConformanceCase } from './case.ts';
import { missingTool, withDeclaredTools } from './case-tools.ts';
import { AttemptEvidence, withEvidence } from './evidence.ts';
import type { CaseAttemptIdentity, CaseContext, SutFacts } from './context.ts';
import type { Outcome } from './outcome.ts';
import { PROFILE_REQUIRED_FEATURES } from './preflight.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import { caseSeed } from './seeded-random.ts';
import { withTimeLimit } from './time-limit.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import { CannotTell, NotApplicable, RequirementViolation } from './verdicts.ts';

export interface Finding {
  readonly requirement: string;
  readonly message: string;
}

export interface AttemptReport {
  /** 1 for the first attempt; a re-run is a fresh try with its own seed (see attemptSeed). */
  readonly attempt: number;
  readonly seed: number;
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
  /** Iterations the attempt ran, for a case that took a budget (budget.ts). */
  readonly iterations?: number;
  /**
   * Checks that held against what the SUT answered (evidence.ts), one per verifier call; a
   * passed attempt has at least one. The run's wire checks are not among them.
   */
  readonly checks: number;
  /** The requirements those checks decided, in first-decided order. */
  readonly decided: readonly RequirementId[];
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
  /** The attempt's budget, read after the run for the iteration count it recorded. */
  readonly budget?: AttemptBudget;
  /**
   * Checks on everything the SUT sent during the attempt (e.g. schema validity), run after the
   * case's own assertions passed; throws a verdict like a case does.
   */
  verify?(): Promise<void>;
  /** Settles what the attempt created and closes its callers; never rejects. */
  dispose(): Promise<void>;
  /**
   * After dispose: what it could not remove, in words. A case that passed then cannot tell (the
   * cases after it would not start from a known state); any other outcome keeps its own reason.
   */
  leftover?(): string | undefined;
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
    attempt: CaseAttemptIdentity,
  ) => CaseAttempt;
  /** Re-run a failed case once to tell flaky from failing (default true). */
  readonly rerunFailures?: boolean;
  /** Claimed profiles the preflight found lacking a required feature, with the finding. */
  readonly blockers?: ReadonlyMap<ProfileId, string>;
  /**
   * A promise the case left unawaited rejected after its attempt's report was written (the
   * runner turns a pass into that outcome); without it such a rejection is written to stderr.
   */
  readonly lateRejection?: (caseId: string, reason: unknown) => void;
}

/** Why the case does not run against this SUT, or undefined when it does. */
export function applicability(
  testCase: ConformanceCase,
  sut: SutFacts,
  blockers: ReadonlyMap<ProfileId, string> = new Map(),
): { readonly outcome: 'untested' | 'inapplicable' | 'cantTell'; readonly reason: string } | undefined {
  const claimed = testCase.profiles.filter((profile) => sut.profiles.has(profile));
  if (claimed.length === 0) {
    return { outcome: 'untested', reason: `the SUT claims none of: ${testCase.profiles.join(', ')}` };
  }
  // Blocked only when every claimed profile it counts toward is: the preflight finding is the
  // one failure to report, and this case would only repeat it.
  const blocker = claimed.every((profile) => blockers.has(profile))
    ? claimed.map((profile) => blockers.get(profile)).find((message) => message !== undefined)
    : undefined;
  if (blocker !== undefined) return { outcome: 'cantTell', reason: `blocked by the preflight: ${blocker}` };
  const missing = (testCase.features ?? []).filter((feature) => !sut.features.has(feature));
  if (missing.length === 0) return missingTool(testCase, sut);
  const required = missing.filter((feature) =>
    claimed.some((profile) => PROFILE_REQUIRED_FEATURES[profile].gateway?.includes(feature) === true),
  );
  if (required.length > 0) {
    return {
      outcome: 'cantTell',
      reason: `the SUT claims a profile that requires ${required.join(', ')}, which it does not advertise`,
    };
  }
  return { outcome: 'inapplicable', reason: `the SUT does not advertise ${missing.join(', ')}` };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * The seed of one attempt. The first attempt uses the case seed (what --seed replays); a re-run
 * mixes in the attempt number, so its request IDs, ledger keys and generated names are its own
 * and it cannot meet the first attempt's task, replay or registration.
 */
export function attemptSeed(runSeed: number, caseId: string, attempt: number): number {
  return attempt === 1
    ? caseSeed(runSeed, caseId)
    : caseSeed(runSeed, `${caseId}#attempt-${String(attempt)}`);
}

/** How an error thrown (or left behind) by a case ends its attempt. */
export function verdictOf(
  error: unknown,
): Pick<AttemptReport, 'outcome' | 'violation' | 'reason'> & { reason: string } {
  if (error instanceof RequirementViolation) {
    return {
      outcome: 'failed',
      violation: {
        requirement: error.requirement,
        expected: error.expected,
        received: error.received,
        message: error.message,
      },
      reason: error.message,
    };
  }
  if (error instanceof CannotTell) return { outcome: 'cantTell', reason: error.message };
  if (error instanceof NotApplicable) return { outcome: 'inapplicable', reason: error.message };
  // A reply or event never received, a disconnect, a malformed reply: the SUT did not let the
  // case reach a verdict (the case's own time limit is a CannotTell: time-limit.ts).
  return { outcome: 'failed', reason: describeError(error) };
}

/**
 * An unhandled rejection surfaces once the microtasks after it ran: one turn of the event loop
 * after the attempt's callers closed, everything the case left pending has settled or surfaced.
 */
function afterPendingRejections(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

/**
 * A pass must rest on evidence, and nothing the case started may have failed unseen: a
 * rejection it left behind is its verdict, and an attempt that decided no check cannot tell.
 */
function judgedPass(evidence: AttemptEvidence): Pick<AttemptReport, 'outcome' | 'violation' | 'reason'> {
  const [left] = evidence.leftBehind;
  if (evidence.leftBehind.length > 0) {
    const verdict = verdictOf(left);
    return { ...verdict, reason: `the case left a promise unawaited that rejected: ${verdict.reason}` };
  }
  if (evidence.checks === 0) {
    return {
      outcome: 'cantTell',
      reason:
        'decided no check: the case ran to its end without one verifier holding against an answer from the SUT (an empty listing or a skipped loop proves nothing)',
    };
  }
  return { outcome: 'passed' };
}

async function runAttempt(
  testCase: ConformanceCase,
  attemptNumber: number,
  options: RunCaseOptions,
): Promise<AttemptReport> {
  const seed = attemptSeed(options.runSeed, testCase.id, attemptNumber);
  const warnings: Finding[] = [];
  const attempt = options.prepare(testCase, seed, (finding) => warnings.push(finding), {
    number: attemptNumber,
    caseSeed: caseSeed(options.runSeed, testCase.id),
  });
  const evidence = new AttemptEvidence((reason) => {
    if (options.lateRejection !== undefined) options.lateRejection(testCase.id, reason);
    else
      process.stderr.write(
        `${testCase.id}: a promise it left unawaited rejected late: ${describeError(reason)}\n`,
      );
  });
  const started = performance.now();
  let verdict: Pick<AttemptReport, 'outcome' | 'violation' | 'reason'>;
  try {
    await withEvidence(evidence, () =>
      withTimeLimit(
        testCase.run(withDeclaredTools(testCase, attempt.context)),
        testCase.timeoutMs ?? options.defaultTimeoutMs,
        testCase.id,
        evidence,
      ),
    );
    await attempt.verify?.();
    verdict = { outcome: 'passed' };
  } catch (error) {
    verdict = verdictOf(error);
  } finally {
    await attempt.dispose();
    await afterPendingRejections();
    evidence.close();
  }
  if (verdict.outcome === 'passed') verdict = judgedPass(evidence);
  const leftover = attempt.leftover?.();
  if (leftover !== undefined && verdict.outcome === 'passed') {
    verdict = { outcome: 'cantTell', reason: `passed its checks, but ${leftover}` };
  }
  const { outcome, violation, reason } = verdict;
  for (const left of evidence.leftBehind) {
    attempt.transcript.note(`left behind: a promise the case did not await rejected: ${describeError(left)}`);
  }
  attempt.transcript.note(
    `evidence: ${String(evidence.checks)} check(s) held${evidence.requirements.length === 0 ? '' : ` (${evidence.requirements.join(', ')})`}`,
  );
  if (reason !== undefined) attempt.transcript.note(`verdict: ${outcome}: ${reason}`);
  return {
    attempt: attemptNumber,
    seed,
    outcome,
    durationMs: performance.now() - started,
    ...(violation === undefined ? {} : { violation }),
    ...(reason === undefined ? {} : { reason }),
    warnings,
    ...(attempt.budget?.recorded === undefined ? {} : { iterations: attempt.budget.recorded }),
    checks: evidence.checks,
    decided: evidence.requirements,
    transcript: attempt.transcript.toJSON(),
    transcriptText: attempt.transcript.toText(),
  };
}

export async function runCase(testCase: ConformanceCase, options: RunCaseOptions): Promise<CaseResult> {
  const seed = caseSeed(options.runSeed, testCase.id);
  const skipped = applicability(testCase, options.sut, options.blockers);
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
  const first = await runAttempt(testCase, 1, options);
  // A searched-for counterexample (a race history, a kill point, a generated input that broke a
  // rule) is evidence as it stands: a correct gateway produces none in any schedule, so a pass on
  // a re-run would only hide a bug that shows in some schedules. Timing verdicts are statistical
  // and keep the re-run.
  const counterexample =
    first.violation !== undefined && testCase.scenario !== undefined && testCase.scenario !== 'timing';
  if (first.outcome !== 'failed' || counterexample || options.rerunFailures === false) {
    return {
      case: testCase,
      outcome: first.outcome,
      seed,
      flaky: false,
      ...(first.reason === undefined ? {} : { reason: first.reason }),
      attempts: [first],
    };
  }
  const second = await runAttempt(testCase, 2, options);
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
