/**
 * The verdict per conformance profile, from case results. A claimed profile passes when none
 * of its applicable MUST cases failed or could not be decided; SHOULD cases count the same way
 * only under --strict (otherwise their failures are warnings). A case listed in the SUT's
 * baseline (expected failures) does not fail its profile while it still fails; once it passes,
 * the baseline is stale and the run fails, so baselines shrink as gateways improve.
 */
import { PROFILE_IDS, PROFILE_TITLES, type ProfileId } from '../protocol/profiles.ts';
import type { Level, Outcome } from '../suites/framework/outcome.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';

export type OutcomeCounts = Record<Outcome, number>;

/** 'no-cases': claimed, but no MUST case of it ran to a verdict (e.g. a --grep subset). */
export type ProfileVerdictName = 'passed' | 'failed' | 'no-cases' | 'not-claimed';

export interface ProfileVerdict {
  readonly profile: ProfileId;
  readonly title: string;
  readonly claimed: boolean;
  readonly verdict: ProfileVerdictName;
  readonly counts: Readonly<Record<Level, OutcomeCounts>>;
  /** Passed cases that carry SHOULD-level warnings. */
  readonly warnings: number;
  /** Failing cases excused by the baseline. */
  readonly expectedFailures: number;
  /** IDs of the cases that decided a failed verdict. */
  readonly failingCases: readonly string[];
}

export interface Baseline {
  /** Case ID → why it is expected to fail. */
  readonly expectedFailures: ReadonlyMap<string, string>;
}

export interface VerdictOptions {
  readonly claimed: ReadonlySet<ProfileId>;
  readonly strict: boolean;
  readonly baseline?: Baseline;
}

function zeroCounts(): OutcomeCounts {
  return { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
}

/** Whether a result counts against its profiles (before the baseline is applied). */
export function isBlocking(result: CaseResult, strict: boolean): boolean {
  const undecided = result.outcome === 'failed' || result.outcome === 'cantTell';
  if (!undecided) return false;
  return result.case.level === 'MUST' || (strict && result.case.level === 'SHOULD');
}

/** Baseline entries whose case now passes: the run fails until they are removed. */
export function staleBaselineEntries(
  results: readonly CaseResult[],
  baseline: Baseline | undefined,
): string[] {
  if (baseline === undefined) return [];
  return results
    .filter((result) => baseline.expectedFailures.has(result.case.id) && result.outcome === 'passed')
    .map((result) => result.case.id);
}

/** Baseline entries that name no case of the suites (typos, removed cases), selected or not. */
export function unknownBaselineEntries(caseIds: readonly string[], baseline: Baseline | undefined): string[] {
  if (baseline === undefined) return [];
  const known = new Set(caseIds);
  return [...baseline.expectedFailures.keys()].filter((id) => !known.has(id));
}

export function profileVerdicts(results: readonly CaseResult[], options: VerdictOptions): ProfileVerdict[] {
  return PROFILE_IDS.map((profile) => {
    const counts: Record<Level, OutcomeCounts> = {
      MUST: zeroCounts(),
      SHOULD: zeroCounts(),
      MAY: zeroCounts(),
    };
    let warnings = 0;
    let expectedFailures = 0;
    const failingCases: string[] = [];
    for (const result of results) {
      if (!result.case.profiles.includes(profile)) continue;
      counts[result.case.level][result.outcome] += 1;
      if (result.outcome === 'passed' && result.attempts.some((attempt) => attempt.warnings.length > 0)) {
        warnings += 1;
      }
      if (!isBlocking(result, options.strict)) continue;
      if (options.baseline?.expectedFailures.has(result.case.id) === true) expectedFailures += 1;
      else failingCases.push(result.case.id);
    }
    const claimed = options.claimed.has(profile);
    const decidedMust = counts.MUST.passed + counts.MUST.failed + counts.MUST.cantTell;
    const verdict: ProfileVerdictName = !claimed
      ? 'not-claimed'
      : failingCases.length > 0
        ? 'failed'
        : decidedMust === 0
          ? 'no-cases'
          : 'passed';
    return {
      profile,
      title: PROFILE_TITLES[profile],
      claimed,
      verdict,
      counts,
      warnings,
      expectedFailures,
      failingCases,
    };
  });
}
