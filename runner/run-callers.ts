/**
 * Runs the caller suites (suites/caller/) against a caller under test on a started federation,
 * one case at a time in suite order, each with its own caller session against the fake target
 * (docs/caller.md), and judges the assessments from the results.
 */
import type { Federation } from '../harness/federation/server-provider.ts';
import type { CallerDeclaration, SutTimeouts } from '../harness/sut/sut-config.ts';
import type { CallerCase, CallerSuite } from '../suites/caller/framework/caller-case.ts';
import type { CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import {
  CALLER_INTERFACE_TITLES,
  INTERFACE_ASSESSMENTS,
} from '../suites/caller/framework/caller-under-test.ts';
import { ASSESSMENT_IDS, type AssessmentId } from '../suites/registry/assessments.ts';
import type { Registry } from '../suites/registry/registry.ts';
import { assessmentMusts, assessmentVerdicts, type AssessmentVerdict } from './assessment-verdicts.ts';

export interface CallerRunProgress {
  sectionStarted(section: string, title: string, cases: number): void;
  caseFinished(result: CallerCaseResult): void;
  sectionFinished(section: string, results: readonly CallerCaseResult[]): void;
}

export interface RunCallersOptions {
  readonly federation: Federation;
  readonly declaration: CallerDeclaration;
  readonly timeouts: SutTimeouts;
  /** The account a gateway's call-out tool is invoked as (the SUT file's adminJid). */
  readonly gatewayCallerJid?: string;
  readonly suites: readonly CallerSuite[];
  /** --grep patterns: a case runs when its ID contains one (none: every case). */
  readonly grep?: readonly string[];
  readonly seed: number;
  readonly strict: boolean;
  readonly registry: Registry;
  readonly progress: CallerRunProgress;
  /** Stops between cases once a reason is given (Ctrl-C, the run's time limit). */
  readonly stopReason?: () => string | undefined;
}

export interface CallerRunResult {
  readonly cases: readonly CallerCaseResult[];
  readonly assessments: readonly AssessmentVerdict[];
  /** Fewer caller cases ran than the suites hold. */
  readonly partial: boolean;
}

export function selectCallerCases(
  suites: readonly CallerSuite[],
  grep: readonly string[] = [],
): CallerSuite[] {
  const selected = (testCase: CallerCase): boolean =>
    grep.length === 0 || grep.some((pattern) => testCase.id.includes(pattern));
  return suites
    .map((suite) => ({ ...suite, cases: suite.cases.filter(selected) }))
    .filter((suite) => suite.cases.length > 0);
}

/** The per-case limit when a case names none: the SUT's task timeout and twice its reply timeout. */
export function callerCaseTimeoutMs(timeouts: SutTimeouts): number {
  return (timeouts.taskSeconds + 2 * timeouts.replySeconds + timeouts.startupSeconds) * 1000;
}

function notRun(testCase: CallerCase, reason: string): CallerCaseResult {
  return {
    case: testCase,
    outcome: 'cantTell',
    seed: 0,
    flaky: false,
    reason: `not run: ${reason}`,
    attempts: [],
  };
}

export async function runCallers(options: RunCallersOptions): Promise<CallerRunResult> {
  const selected = selectCallerCases(options.suites, options.grep);
  // Imported here: the caller harness brings the MCP SDK (some 270 modules), which a run whose
  // SUT declares no caller never needs, and every run's start would load.
  const { runCallerCase } = await import('../suites/caller/framework/run-caller-case.ts');
  const environment = {
    federation: options.federation,
    declaration: options.declaration,
    timeouts: options.timeouts,
    ...(options.gatewayCallerJid === undefined ? {} : { gatewayCallerJid: options.gatewayCallerJid }),
  };
  const results: CallerCaseResult[] = [];
  for (const suite of selected) {
    options.progress.sectionStarted(suite.section, suite.title, suite.cases.length);
    const sectionResults: CallerCaseResult[] = [];
    for (const testCase of suite.cases) {
      const stop = options.stopReason?.();
      const result =
        stop === undefined
          ? await runCallerCase(testCase, {
              environment,
              runSeed: options.seed,
              defaultTimeoutMs: callerCaseTimeoutMs(options.timeouts),
            })
          : notRun(testCase, stop);
      sectionResults.push(result);
      options.progress.caseFinished(result);
    }
    options.progress.sectionFinished(suite.section, sectionResults);
    results.push(...sectionResults);
  }
  const total = options.suites.reduce((sum, suite) => sum + suite.cases.length, 0);
  const partial = results.length < total;
  const mustDecide = assessmentMusts(options.registry);
  const kind = options.declaration.kind;
  const applies = INTERFACE_ASSESSMENTS[kind];
  // An assessment is judged when it applies to the caller's interface and a selected case counts
  // toward it or the registry gives it a MUST.
  const run = new Set<AssessmentId>(
    [...mustDecide]
      .filter(
        ([assessment, musts]) =>
          applies.includes(assessment) &&
          (results.some((result) => result.case.assessments.includes(assessment)) ||
            (!partial && musts.length > 0)),
      )
      .map(([assessment]) => assessment),
  );
  const notRunReasons = Object.fromEntries(
    ASSESSMENT_IDS.filter((assessment) => !applies.includes(assessment)).map((assessment) => [
      assessment,
      `the caller under test is driven through the ${CALLER_INTERFACE_TITLES[kind]}, which this assessment does not judge (docs/caller.md)`,
    ]),
  );
  return {
    cases: results,
    assessments: assessmentVerdicts(results, {
      run,
      mustDecide,
      strict: options.strict,
      partial,
      notRunReasons,
    }),
    partial,
  };
}
