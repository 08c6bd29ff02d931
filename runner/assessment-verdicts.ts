/**
 * The verdict per assessment of a caller under test (suites/registry/assessments.ts), with the
 * profile verdicts' words and rules (profile-verdicts.ts): PASSED only when every testable MUST
 * requirement the registry assigns to the assessment was decided by a MUST caller case counted
 * toward it, and no such case failed. A MUST case that could not be decided makes it INCOMPLETE.
 * An assessment is never a spec profile: every report labels it so (ASSESSMENT_LABEL).
 */
import type { CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import { mustFirst, type Level } from '../suites/framework/outcome.ts';
import { ASSESSMENT_IDS, ASSESSMENT_TITLES, type AssessmentId } from '../suites/registry/assessments.ts';
import type { Registry } from '../suites/registry/registry.ts';
import { undecidedRequirements, type OutcomeCounts } from './profile-verdicts.ts';

/** not-run: the SUT declares no caller, or the selection ran none of its cases. */
export type AssessmentVerdictName = 'passed' | 'failed' | 'incomplete' | 'not-assessed' | 'not-run';

export interface AssessmentVerdict {
  readonly assessment: AssessmentId;
  readonly title: string;
  /** Always true: the reports say this is not a spec profile. */
  readonly notASpecProfile: true;
  readonly verdict: AssessmentVerdictName;
  readonly counts: Readonly<Record<Level, OutcomeCounts>>;
  readonly failingCases: readonly string[];
  readonly undecidedCases: readonly string[];
  /** Testable MUSTs of the assessment no case decided (absent when none). */
  readonly undecidedRequirements?: readonly string[];
  readonly reason?: string;
}

/** Per assessment, its testable MUST requirements, in registry order. */
export function assessmentMusts(registry: Registry): ReadonlyMap<AssessmentId, readonly string[]> {
  return new Map(
    ASSESSMENT_IDS.map((assessment) => [
      assessment,
      registry.requirements
        .filter(
          (entry) =>
            entry.level === 'MUST' &&
            entry.testability.kind !== 'not-testable' &&
            entry.assessments.includes(assessment),
        )
        .map((entry) => entry.id),
    ]),
  );
}

function zeroCounts(): OutcomeCounts {
  return { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
}

export interface AssessmentOptions {
  /** The assessments the run judged (the SUT declares a caller); the others are not-run. */
  readonly run: ReadonlySet<AssessmentId>;
  readonly mustDecide: ReadonlyMap<AssessmentId, readonly string[]>;
  readonly strict?: boolean;
  /** The selection left cases out: a requirement no selected case cites is not held against it. */
  readonly partial?: boolean;
  /** Why an assessment left out of `run` was not run, when not for want of a caller under test. */
  readonly notRunReasons?: Readonly<Partial<Record<AssessmentId, string>>>;
}

export function assessmentVerdicts(
  results: readonly CallerCaseResult[],
  options: AssessmentOptions,
): AssessmentVerdict[] {
  return ASSESSMENT_IDS.map((assessment) => {
    const counts: Record<Level, OutcomeCounts> = {
      MUST: zeroCounts(),
      SHOULD: zeroCounts(),
      MAY: zeroCounts(),
    };
    const mine = results.filter((result) => result.case.assessments.includes(assessment));
    for (const result of mine) counts[result.case.level][result.outcome] += 1;
    const counted = mine.filter(
      (result) => result.case.level === 'MUST' || (options.strict === true && result.case.level === 'SHOULD'),
    );
    const failing = mustFirst(counted.filter((result) => result.outcome === 'failed'));
    const undecided = mustFirst(counted.filter((result) => result.outcome === 'cantTell'));
    const base = {
      assessment,
      title: ASSESSMENT_TITLES[assessment],
      notASpecProfile: true as const,
      counts,
      failingCases: failing.map((result) => result.case.id),
      undecidedCases: undecided.map((result) => result.case.id),
    };
    if (!options.run.has(assessment)) {
      return {
        ...base,
        verdict: 'not-run',
        reason: options.notRunReasons?.[assessment] ?? 'the SUT file declares no caller under test',
      };
    }
    const requirements = undecidedRequirements(
      // The profile rule reads only level, requirements and outcome.
      mine.map((result) => ({ ...result, case: { ...result.case, profiles: [] } })) as never,
      options.mustDecide.get(assessment) ?? [],
      options.partial === true,
    );
    const decidedMust = counts.MUST.passed + counts.MUST.failed + counts.MUST.cantTell;
    const undecidedRequirementsField =
      requirements.length === 0 ? {} : { undecidedRequirements: requirements };
    if (failing.length > 0) {
      return {
        ...base,
        ...undecidedRequirementsField,
        verdict: 'failed',
        reason: `${String(failing.length)} case(s) failed: ${failing.map((r) => r.case.id).join(', ')}`,
      };
    }
    if (undecided.length > 0) {
      const [first] = undecided;
      return {
        ...base,
        ...undecidedRequirementsField,
        verdict: 'incomplete',
        reason: `${String(undecided.length)} case(s) could not be decided${first?.reason === undefined ? '' : ` (${first.case.id}: ${first.reason.split('\n')[0] ?? ''})`}`,
      };
    }
    if (decidedMust === 0) {
      return { ...base, verdict: 'not-assessed', reason: 'no MUST case of it was decided' };
    }
    if (requirements.length > 0) {
      return {
        ...base,
        undecidedRequirements: requirements,
        verdict: 'incomplete',
        reason: `${String(requirements.length)} MUST requirement(s) no case decided: ${requirements.join(', ')}`,
      };
    }
    return { ...base, verdict: 'passed' };
  });
}

/** Whether every assessment the run judged passed (none judged: true). */
export function assessmentsPassed(verdicts: readonly AssessmentVerdict[]): boolean {
  return verdicts.every((verdict) => verdict.verdict === 'not-run' || verdict.verdict === 'passed');
}
