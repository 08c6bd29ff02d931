/**
 * From the case results of one direction to the verdict of each interop scenario. A scenario
 * passes only on evidence: at least one of its cases passed and none failed or could not tell.
 * A failed scenario names the side that broke which requirement ("target B:
 * list-agents.visibility-filter"); one that cannot be decided is cantTell, never a pass. Only MUST
 * cases decide, as in a run's profile verdicts: a SHOULD or MAY case that failed or could not
 * tell is a warning on the scenario, never its failure (the spec allows what it only recommends).
 */
import type { CaseResult } from '../../suites/framework/run-case.ts';
import { judgesScenario, type InteropScenario } from '../../suites/interop/scenarios.ts';
import type { GatewayToolCallerDeclaration, SutConfig } from '../../harness/sut/sut-config.ts';

export type ScenarioOutcome = 'passed' | 'failed' | 'cantTell';

export interface ScenarioFailure {
  /** "target B", "caller A". */
  readonly side: string;
  readonly requirement: string;
  readonly caseId: string;
  readonly message: string;
}

export interface ScenarioVerdict {
  readonly id: string;
  readonly title: string;
  readonly outcome: ScenarioOutcome;
  readonly reason: string;
  readonly failures: readonly ScenarioFailure[];
  /** The cases that judged it, with their outcomes. */
  readonly cases: readonly { readonly id: string; readonly outcome: string }[];
  /** Recommendations (SHOULD) not met: reported, never a failure ("target B: <requirement> (SHOULD): …"). */
  readonly warnings?: readonly string[];
}

/** The verdict with its warnings attached, and named at the end of its reason. */
export function withWarnings(verdict: ScenarioVerdict, warnings: readonly string[]): ScenarioVerdict {
  if (warnings.length === 0) return verdict;
  return { ...verdict, reason: `${verdict.reason}; not met: ${warnings.join('; ')}`, warnings };
}

/** The requirement a case result is about: the one its last attempt found violated, else its first. */
function requirementOf(result: CaseResult): string {
  return result.attempts.at(-1)?.violation?.requirement ?? result.case.requirements[0];
}

function failureOf(result: CaseResult, side: string): ScenarioFailure {
  const message = result.reason ?? result.attempts.at(-1)?.reason ?? 'failed';
  return { side, requirement: requirementOf(result), caseId: result.case.id, message };
}

/** The verdict of a scenario the suites' cases judge on the target. */
export function judgedBySuites(
  scenario: InteropScenario,
  results: readonly CaseResult[],
  targetSide: string,
): ScenarioVerdict {
  const judging = results.filter((result) => judgesScenario(scenario, result.case));
  const cases = judging.map((result) => ({ id: result.case.id, outcome: result.outcome }));
  const base = { id: scenario.id, title: scenario.title, cases };
  const warnings = judging
    .filter(
      (result) =>
        result.case.level !== 'MUST' && (result.outcome === 'failed' || result.outcome === 'cantTell'),
    )
    .map(
      (result) =>
        `${targetSide}: ${requirementOf(result)} (${result.case.level}, ${result.case.id} ${result.outcome}: ${result.reason ?? 'no reason'})`,
    );
  return withWarnings(
    mustVerdict(
      base,
      judging.filter((result) => result.case.level === 'MUST'),
      targetSide,
    ),
    warnings,
  );
}

function mustVerdict(
  base: Pick<ScenarioVerdict, 'id' | 'title' | 'cases'>,
  judging: readonly CaseResult[],
  targetSide: string,
): ScenarioVerdict {
  const failed = judging.filter((result) => result.outcome === 'failed');
  if (failed.length > 0) {
    const failures = failed.map((result) => failureOf(result, targetSide));
    const named = [...new Set(failures.map((failure) => `${failure.side}: ${failure.requirement}`))];
    return { ...base, outcome: 'failed', reason: named.join('; '), failures };
  }
  const undecided = judging.filter((result) => result.outcome === 'cantTell');
  if (undecided.length > 0) {
    return {
      ...base,
      outcome: 'cantTell',
      reason: `${targetSide}: ${undecided.map((result) => `${result.case.id} (${result.reason ?? 'cantTell'})`).join('; ')}`,
      failures: [],
    };
  }
  const passed = judging.filter((result) => result.outcome === 'passed').length;
  if (passed === 0) {
    return {
      ...base,
      outcome: 'cantTell',
      reason: `no case of this scenario ran against ${targetSide} (${judging.length === 0 ? 'none selected' : 'none applicable to its claimed profiles'}; only MUST cases decide)`,
      failures: [],
    };
  }
  return {
    ...base,
    outcome: 'passed',
    reason: `${String(passed)} case(s) passed against ${targetSide}`,
    failures: [],
  };
}

function callOutOf(config: SutConfig): GatewayToolCallerDeclaration | undefined {
  return config.caller?.kind === 'gateway-tool' ? config.caller : undefined;
}

/**
 * The verdict of a scenario the caller side's call-out drives. Undecided here: the caller
 * gateway either declares no call-out, or this build does not drive one yet; either way nothing
 * was observed, so it cannot pass.
 */
export function judgedThroughCallOut(
  scenario: InteropScenario,
  callerConfig: SutConfig,
  callerSide: string,
): ScenarioVerdict {
  const callOut = callOutOf(callerConfig);
  const reason =
    callOut === undefined
      ? `${callerSide} (${callerConfig.name}) declares no call-out interface ("caller": {"gatewayTool": …}, docs/caller.md), so nothing makes it call the target`
      : `${callerSide} declares ${callOut.tool} at ${callOut.endpoint}, but this build of agentconf interop does not drive this scenario through a call-out yet (docs/interop.md)`;
  return { id: scenario.id, title: scenario.title, outcome: 'cantTell', reason, failures: [], cases: [] };
}
