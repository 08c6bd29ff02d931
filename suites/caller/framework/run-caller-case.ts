/**
 * Runs one caller case to a result, the way run-case.ts runs a gateway case: the case's seed,
 * its evidence scope (a pass needs a decided check and nothing it left behind may reject), a time
 * limit, and everything it started stopped before the verdict is written. A failed first attempt
 * is run once more alone: failing then passing is flaky (cantTell), never a silent pass.
 */
import { AttemptEvidence, withEvidence } from '../../framework/evidence.ts';
import { attemptSeed, verdictOf, type AttemptReport } from '../../framework/run-case.ts';
import { caseSeed } from '../../framework/seeded-random.ts';
import { withTimeLimit } from '../../framework/time-limit.ts';
import type { Outcome } from '../../framework/outcome.ts';
import type { CallerCase } from './caller-case.ts';
import { CallerCaseScope, type CallerEnvironment } from './caller-context.ts';
import { CALLER_INTERFACE_TITLES } from './caller-under-test.ts';

export interface CallerCaseResult {
  readonly case: CallerCase;
  readonly outcome: Outcome;
  readonly seed: number;
  readonly flaky: boolean;
  readonly reason?: string;
  readonly attempts: readonly AttemptReport[];
}

export interface RunCallerCaseOptions {
  readonly environment: CallerEnvironment;
  readonly runSeed: number;
  readonly defaultTimeoutMs: number;
  /** Re-run a failed case once to tell flaky from failing (default true). */
  readonly rerunFailures?: boolean;
}

type Verdict = Pick<AttemptReport, 'outcome' | 'violation' | 'reason'>;

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A run to its end is a pass only on evidence, with nothing it started failing unseen. */
function judgedPass(evidence: AttemptEvidence): Verdict {
  const [left] = evidence.leftBehind;
  if (left !== undefined) {
    const verdict = verdictOf(left);
    return { ...verdict, reason: `the case left a promise unawaited that rejected: ${verdict.reason}` };
  }
  if (evidence.checks === 0) {
    return {
      outcome: 'cantTell',
      reason: 'decided no check: the case ran to its end without one check holding against the caller',
    };
  }
  return { outcome: 'passed' };
}

async function runAttempt(
  testCase: CallerCase,
  attempt: number,
  options: RunCallerCaseOptions,
): Promise<AttemptReport> {
  const seed = attemptSeed(options.runSeed, testCase.id, attempt);
  const scope = new CallerCaseScope(options.environment, testCase.id, seed);
  scope.transcript.note(
    `${testCase.id} attempt ${String(attempt)}, seed ${String(seed)}; caller interface: ${CALLER_INTERFACE_TITLES[options.environment.declaration.kind]}`,
  );
  const evidence = new AttemptEvidence((reason) => {
    process.stderr.write(`${testCase.id}: a promise it left unawaited rejected late: ${describe(reason)}\n`);
  });
  const started = performance.now();
  let verdict: Verdict;
  try {
    await withEvidence(evidence, () =>
      withTimeLimit(
        testCase.run(scope.context),
        testCase.timeoutMs ?? options.defaultTimeoutMs,
        testCase.id,
        evidence,
      ),
    );
    verdict = { outcome: 'passed' };
  } catch (error) {
    verdict = verdictOf(error);
  } finally {
    await scope.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    evidence.close();
  }
  if (verdict.outcome === 'passed') verdict = judgedPass(evidence);
  const { outcome, violation, reason } = verdict;
  scope.transcript.note(
    `evidence: ${String(evidence.checks)} check(s) held${evidence.requirements.length === 0 ? '' : ` (${evidence.requirements.join(', ')})`}`,
  );
  if (reason !== undefined) scope.transcript.note(`verdict: ${outcome}: ${reason}`);
  return {
    attempt,
    seed,
    outcome,
    durationMs: performance.now() - started,
    ...(violation === undefined ? {} : { violation }),
    ...(reason === undefined ? {} : { reason }),
    warnings: [],
    checks: evidence.checks,
    decided: evidence.requirements,
    transcript: scope.transcript.toJSON(),
    transcriptText: scope.transcript.toText(),
  };
}

function resultOf(testCase: CallerCase, seed: number, attempts: AttemptReport[]): CallerCaseResult {
  const [first, second] = attempts;
  if (first === undefined) throw new Error('a caller case result needs an attempt');
  if (second?.outcome === 'passed') {
    return {
      case: testCase,
      outcome: 'cantTell',
      seed,
      flaky: true,
      reason: `flaky: failed, then passed when re-run (first attempt: ${first.reason ?? 'failed'})`,
      attempts,
    };
  }
  const last = second ?? first;
  return {
    case: testCase,
    outcome: last.outcome,
    seed,
    flaky: false,
    ...(last.reason === undefined ? {} : { reason: last.reason }),
    attempts,
  };
}

export async function runCallerCase(
  testCase: CallerCase,
  options: RunCallerCaseOptions,
): Promise<CallerCaseResult> {
  const seed = caseSeed(options.runSeed, testCase.id);
  const applicability = testCase.interfaces[options.environment.declaration.kind];
  if (applicability !== true) {
    // Said per case, never run: what the case needs the declared interface does not carry.
    return {
      case: testCase,
      outcome: 'inapplicable',
      seed,
      flaky: false,
      reason: `not applicable to the ${CALLER_INTERFACE_TITLES[options.environment.declaration.kind]}: ${applicability.inapplicable}`,
      attempts: [],
    };
  }
  const first = await runAttempt(testCase, 1, options);
  if (first.outcome !== 'failed' || options.rerunFailures === false) return resultOf(testCase, seed, [first]);
  return resultOf(testCase, seed, [first, await runAttempt(testCase, 2, options)]);
}
