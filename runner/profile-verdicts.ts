/**
 * The verdict per conformance profile, from case results. A verdict is a claim about someone
 * else's software, so a claimed profile PASSes only on evidence: every one of its MUST cases
 * was decided and passed (a case is inapplicable only for a feature the profile leaves
 * optional and the SUT does not advertise). A MUST case that could not be decided (a missing
 * fixture or precondition, a blocked case, a flaky one) makes the profile INCOMPLETE, which
 * fails the run as surely as a failure does, but says "we could not tell" instead of "it is
 * broken". Under --strict every SHOULD finding, a warning on a passing case included, counts
 * like a MUST. A case listed in the SUT's baseline (expected failures) does not count against
 * its profile while it still fails; once it passes the baseline is stale and the run fails.
 *
 * Passing cases are not enough either: every testable MUST requirement of the profile must have
 * been decided (passed or failed) by a case counted toward it. One that no such case decided —
 * its cases could not run, or none was written for this profile — makes the profile INCOMPLETE
 * naming it; the suite's known gaps (suites/registry/profile-gaps.json) are shown instead.
 */
import { PROFILE_IDS, PROFILE_TITLES, type ProfileId } from '../protocol/profiles.ts';
import { mustFirst, type Level, type Outcome } from '../suites/framework/outcome.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';

export type OutcomeCounts = Record<Outcome, number>;

/**
 * - passed: claimed, every MUST case decided and passed (every SHOULD too under --strict);
 * - failed: a blocking case failed, or the SUT lacks a feature the claim requires;
 * - incomplete: nothing failed, but a blocking case could not be decided;
 * - not-assessed: claimed, but no MUST case of it was decided (none selected, or all inapplicable);
 * - not-claimed: the SUT does not claim it; its cases were not run.
 */
export type ProfileVerdictName = 'passed' | 'failed' | 'incomplete' | 'not-assessed' | 'not-claimed';

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
  /** IDs of the cases that failed the profile, MUST cases first. */
  readonly failingCases: readonly string[];
  /** IDs of the blocking cases that could not be decided. */
  readonly undecidedCases: readonly string[];
  /** Testable MUST requirements of the profile no case counted toward it decided (absent when none). */
  readonly undecidedRequirements?: readonly string[];
  /** Its testable MUSTs the suite has no case of this profile for yet (absent when none). */
  readonly knownGaps?: readonly string[];
  /** Preflight findings against the claim (a required feature the SUT does not advertise). */
  readonly blockers: readonly string[];
  /** The main reason for any verdict but passed and not-claimed, in one line. */
  readonly reason?: string;
}

export interface Baseline {
  /** Case ID → why it is expected to fail. */
  readonly expectedFailures: ReadonlyMap<string, string>;
}

export interface ProfileBlocker {
  readonly profile: ProfileId;
  readonly message: string;
}

export interface VerdictOptions {
  readonly claimed: ReadonlySet<ProfileId>;
  readonly strict: boolean;
  readonly baseline?: Baseline;
  /** What the preflight found missing for each claimed profile. */
  readonly blockers?: readonly ProfileBlocker[];
  /**
   * Per profile, the testable MUST requirements a case counted toward it must decide (the
   * registry's, less the wire checks and the known gaps); absent, only cases are judged.
   */
  readonly mustDecide?: ReadonlyMap<ProfileId, readonly string[]>;
  /** Per profile, its known gaps (suites/registry/profile-gaps.json), shown beside the verdict. */
  readonly knownGaps?: ReadonlyMap<ProfileId, readonly string[]>;
  /**
   * The selection left cases out (--grep, --profile): a requirement with no selected case is
   * then not held against the profile (a partial run is labelled as such).
   */
  readonly partial?: boolean;
}

/**
 * The requirements of `required` that no MUST case of `profileResults` decided. One whose every
 * citing case was inapplicable (an optional feature the SUT does not advertise) is not held
 * against the profile; one no selected case cites is, unless the run is partial.
 */
export function undecidedRequirements(
  profileResults: readonly CaseResult[],
  required: readonly string[],
  partial: boolean,
): string[] {
  return required.filter((requirement) => {
    const citing = profileResults.filter(
      (result) =>
        result.case.level === 'MUST' && (result.case.requirements as readonly string[]).includes(requirement),
    );
    if (citing.some((result) => result.outcome === 'passed' || result.outcome === 'failed')) return false;
    if (citing.length === 0) return !partial;
    return !citing.every((result) => result.outcome === 'inapplicable');
  });
}

function zeroCounts(): OutcomeCounts {
  return { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
}

function hasWarnings(result: CaseResult): boolean {
  return result.attempts.some((attempt) => attempt.warnings.length > 0);
}

/** Whether the case's level counts toward its profiles' verdicts. */
function counts(result: CaseResult, strict: boolean): boolean {
  return result.case.level === 'MUST' || (strict && result.case.level === 'SHOULD');
}

/**
 * How a result weighs on its profiles before the baseline is applied: 'failure' (a counted
 * case failed, or passed with a warning under --strict), 'undecided' (a counted case could not
 * be decided) or undefined.
 */
export function blockingKind(result: CaseResult, strict: boolean): 'failure' | 'undecided' | undefined {
  if (!counts(result, strict)) return undefined;
  if (result.outcome === 'failed') return 'failure';
  if (result.outcome === 'cantTell') return 'undecided';
  if (result.outcome === 'passed' && strict && hasWarnings(result)) return 'failure';
  return undefined;
}

/** Whether a result counts against its profiles (before the baseline is applied). */
export function isBlocking(result: CaseResult, strict: boolean): boolean {
  return blockingKind(result, strict) !== undefined;
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

function listed(ids: readonly string[], limit = 3): string {
  const shown = ids.slice(0, limit).join(', ');
  return ids.length > limit ? `${shown} and ${String(ids.length - limit)} more` : shown;
}

function mainReason(
  verdict: ProfileVerdictName,
  blockers: readonly string[],
  failing: readonly CaseResult[],
  undecided: readonly CaseResult[],
  profileResults: readonly CaseResult[],
  requirements: readonly string[],
): string | undefined {
  switch (verdict) {
    case 'failed':
      if (blockers.length > 0) return blockers[0];
      return `${String(failing.length)} case(s) failed: ${listed(failing.map((r) => r.case.id))}`;
    case 'incomplete': {
      if (undecided.length === 0 && requirements.length > 0) {
        return `${String(requirements.length)} MUST requirement(s) no case of it decided: ${listed(requirements)}`;
      }
      const first = undecided[0];
      const why =
        first?.reason === undefined ? '' : ` (${first.case.id}: ${first.reason.split('\n')[0] ?? ''})`;
      return `${String(undecided.length)} case(s) could not be decided${why}`;
    }
    case 'not-assessed': {
      const must = profileResults.filter((r) => r.case.level === 'MUST');
      if (must.length === 0) return 'no MUST case of it was selected';
      const first = must.find((r) => r.reason !== undefined);
      return `none of its ${String(must.length)} MUST case(s) could run${first?.reason === undefined ? '' : ` (${first.reason})`}`;
    }
    default:
      return undefined;
  }
}

export function profileVerdicts(results: readonly CaseResult[], options: VerdictOptions): ProfileVerdict[] {
  return PROFILE_IDS.map((profile) => {
    const levelCounts: Record<Level, OutcomeCounts> = {
      MUST: zeroCounts(),
      SHOULD: zeroCounts(),
      MAY: zeroCounts(),
    };
    let warnings = 0;
    let expectedFailures = 0;
    const failing: CaseResult[] = [];
    const undecided: CaseResult[] = [];
    const profileResults = results.filter((result) => result.case.profiles.includes(profile));
    for (const result of profileResults) {
      levelCounts[result.case.level][result.outcome] += 1;
      if (result.outcome === 'passed' && hasWarnings(result)) warnings += 1;
      const kind = blockingKind(result, options.strict);
      if (kind === undefined) continue;
      if (options.baseline?.expectedFailures.has(result.case.id) === true) expectedFailures += 1;
      else if (kind === 'failure') failing.push(result);
      else undecided.push(result);
    }
    const claimed = options.claimed.has(profile);
    const blockers = (options.blockers ?? [])
      .filter((blocker) => blocker.profile === profile)
      .map((blocker) => blocker.message);
    const decidedMust = levelCounts.MUST.passed + levelCounts.MUST.failed + levelCounts.MUST.cantTell;
    const requirements = claimed
      ? undecidedRequirements(
          profileResults,
          options.mustDecide?.get(profile) ?? [],
          options.partial === true,
        )
      : [];
    const verdict: ProfileVerdictName = !claimed
      ? 'not-claimed'
      : blockers.length > 0 || failing.length > 0
        ? 'failed'
        : undecided.length > 0
          ? 'incomplete'
          : decidedMust === 0
            ? 'not-assessed'
            : requirements.length > 0
              ? 'incomplete'
              : 'passed';
    const failingFirst = mustFirst(failing);
    const undecidedFirst = mustFirst(undecided);
    const reason = mainReason(verdict, blockers, failingFirst, undecidedFirst, profileResults, requirements);
    const gaps = claimed ? (options.knownGaps?.get(profile) ?? []) : [];
    return {
      profile,
      title: PROFILE_TITLES[profile],
      claimed,
      verdict,
      counts: levelCounts,
      warnings,
      expectedFailures,
      failingCases: failingFirst.map((result) => result.case.id),
      undecidedCases: undecidedFirst.map((result) => result.case.id),
      blockers,
      ...(requirements.length === 0 ? {} : { undecidedRequirements: requirements }),
      ...(gaps.length === 0 ? {} : { knownGaps: gaps }),
      ...(reason === undefined ? {} : { reason }),
    };
  });
}
