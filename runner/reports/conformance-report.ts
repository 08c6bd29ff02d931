/**
 * conformance.json: the run's conformance statement as data, the one file the interop matrix
 * reads (fixtures/schemas/conformance-report.schema.json). The run's verdict (PARTIAL when it
 * selected fewer cases than the suites hold), what was selected, the fixtures mode and the
 * preflight findings; per claimed profile the verdict with its main reason, counts per level and
 * the cases that did not pass with a one-line reason each (an unclaimed profile is only "not
 * claimed"); then every case that failed or could not be decided with its requirements, every
 * attempt's violation or reason, expected vs received and where its transcript is.
 */
import { callerStatementOf, type CallerStatement } from './caller-statement.ts';
import type { FixtureProvisioning } from '../../harness/sut/sut-config.ts';
import { LEVELS, type Level, type Outcome } from '../../suites/framework/outcome.ts';
import type { Scenario } from '../../suites/framework/budget.ts';
import type { PreflightFinding } from '../../suites/framework/preflight.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { OutcomeCounts, ProfileVerdict, ProfileVerdictName } from '../profile-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import {
  caseWarnings,
  citedRequirements,
  didNotPass,
  lastAttempt,
  transcriptPath,
  type CitedRequirement,
} from './case-story.ts';
import type { ReportContext, SuiteIdentity } from './report-context.ts';
import type { ReportFile } from './report-file.ts';
import { SPEC_TITLE, SPEC_URL, specAnchorUrl } from './spec-links.ts';
import {
  caseNotes,
  excusedBy,
  runVerdict,
  type CaseNote,
  type RunSelection,
  type RunVerdict,
} from './verdict-words.ts';
import type { RunServers } from '../server-stack.ts';

/** Bumped when a reader of an older file would misread a newer one. */
export const CONFORMANCE_FORMAT = 'agentconf-conformance/2';

export interface ClaimedProfileStatement {
  readonly id: ProfileId;
  readonly title: string;
  readonly claimed: true;
  readonly verdict: ProfileVerdictName;
  /** The main reason for failed, incomplete and not-assessed, in one line. */
  readonly reason?: string;
  readonly counts: Readonly<Record<Level, OutcomeCounts>>;
  /** Passed cases that carry SHOULD-level warnings. */
  readonly warnings: number;
  /** Failing cases excused by the baseline. */
  readonly expectedFailures: number;
  /** The cases that failed the profile, MUST first. */
  readonly failingCases: readonly string[];
  /** The cases that left it undecided. */
  readonly undecidedCases: readonly string[];
  /** Testable MUST requirements of it that no case counted toward it decided (absent when none). */
  readonly undecidedRequirements?: readonly string[];
  /** Testable MUST requirements of it the suite has no case of this profile for yet (profile-gaps.json). */
  readonly knownGaps?: readonly string[];
  /** Preflight findings that fail the claim. */
  readonly blockers: readonly string[];
  /** Every case of it that did not pass (or counts against it), with its reason. */
  readonly notPassed: readonly CaseNote[];
}

/** An unclaimed profile: its cases were not run for it, so it has no counts. */
export interface UnclaimedProfileStatement {
  readonly id: ProfileId;
  readonly title: string;
  readonly claimed: false;
  readonly verdict: 'not-claimed';
}

export type ProfileStatement = ClaimedProfileStatement | UnclaimedProfileStatement;

export interface CaseWarning {
  readonly case: string;
  readonly requirement: string;
  readonly message: string;
}

export interface AttemptStatement {
  readonly attempt: number;
  readonly seed: number;
  readonly outcome: Outcome;
  readonly durationMs: number;
  /** Checks that held against the SUT's answers (suites/framework/evidence.ts); a pass has one at least. */
  readonly checks: number;
  readonly violation?: { readonly requirement: string; readonly expected: string; readonly received: string };
  readonly reason?: string;
}

export interface CaseFailure {
  readonly case: string;
  readonly section: string;
  readonly level: Level;
  /** failed or cantTell (a flaky case is cantTell with flaky true). */
  readonly outcome: Outcome;
  readonly flaky: boolean;
  readonly seed: number;
  readonly profiles: readonly ProfileId[];
  readonly statement: string;
  readonly requirements: readonly CitedRequirement[];
  /** The last attempt's violation. */
  readonly violation?: { readonly requirement: string; readonly expected: string; readonly received: string };
  readonly reason?: string;
  /** Listed in the baseline with this reason: an expected failure, not counted against its profiles. */
  readonly baseline?: string;
  /** Every attempt, first to last, with its own violation or reason. */
  readonly attempts: readonly AttemptStatement[];
  readonly specUrl: string;
  /** Relative to the run directory. */
  readonly transcript: string;
}

/** One adversarial case: its scenario family, how many iterations it ran, how it ended. */
export interface ScenarioStatement {
  readonly case: string;
  readonly scenario: Scenario;
  readonly outcome: Outcome;
  /** Iterations of the last attempt; absent when the case ran none (e.g. inapplicable). */
  readonly iterations?: number;
  readonly durationMs: number;
}

export interface ConformanceReport {
  readonly format: typeof CONFORMANCE_FORMAT;
  readonly runId: string;
  readonly runDate: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly strict: boolean;
  /** Run with --deep (larger adversarial budgets). */
  readonly deep: boolean;
  readonly provider: string;
  /**
   * Which implementation served each server role (a: example.com, b: the gateway's home, the
   * hostile peer): a verdict holds for the gateway on these servers. Absent in reports written
   * before the stack was recorded (all Prosody).
   */
  readonly servers?: RunServers;
  readonly suite: SuiteIdentity;
  readonly spec: { readonly title: string; readonly revision: string; readonly url: string };
  readonly subject: {
    readonly name: string;
    readonly version?: string;
    readonly homepage?: string;
    readonly gatewayJid: string;
    readonly claimedProfiles: readonly ProfileId[];
    readonly features: readonly string[];
  };
  /** Every claimed profile passed (of the selection, when partial) and the baseline is current (the run's exit status). */
  readonly passed: boolean;
  /** passed, failed, or partial: passed, but only a selection of the cases ran (not a conformance verdict). */
  readonly verdict: RunVerdict;
  /** Fewer cases ran than the suites hold. */
  readonly partial: boolean;
  /** Why the run was interrupted (SIGINT), when it was: no conformance verdict. */
  readonly interrupted?: string;
  /** The pace the run kept to the gateway's documented rate, when it kept one. */
  readonly pace?: { readonly perSecond: number; readonly burst: number; readonly source: string };
  readonly selection: RunSelection;
  /** How the SUT's fixtures were provided (docs/sut.md). */
  readonly fixtures: FixtureProvisioning;
  /** With "admin-iq": the operator checklist, each item with whether the SUT file confirms it. */
  readonly fixtureChecklist?: readonly {
    readonly id: string;
    readonly text: string;
    readonly confirmed: boolean;
  }[];
  /** What the preflight found against the claims, before any case ran. */
  readonly preflight: readonly PreflightFinding[];
  readonly profiles: readonly ProfileStatement[];
  readonly totals: Readonly<Record<Outcome, number>> & { readonly cases: number; readonly flaky: number };
  readonly warnings: readonly CaseWarning[];
  readonly failures: readonly CaseFailure[];
  /** Every case of an adversarial scenario family that was selected, in run order. */
  readonly scenarios: readonly ScenarioStatement[];
  readonly staleBaseline: readonly string[];
  readonly unknownBaseline: readonly string[];
  /** The run's other report files, relative to the run directory. */
  readonly reports: Readonly<Record<string, string>>;
  /** The caller under test and its assessments (not spec profiles), when the run judged one. */
  readonly caller?: CallerStatement;
}

export const REPORT_FILES = {
  result: 'result.json',
  statement: 'conformance.md',
  junit: 'junit.xml',
  earl: 'earl.jsonld',
  allureResults: 'allure-results',
  allureReport: 'allure-report/index.html',
  transcripts: 'transcripts',
} as const;

function violationOf(
  violation:
    { readonly requirement: string; readonly expected: string; readonly received: string } | undefined,
) {
  return violation === undefined
    ? {}
    : {
        violation: {
          requirement: violation.requirement,
          expected: violation.expected,
          received: violation.received,
        },
      };
}

function caseFailure(result: CaseResult, run: RunResult, context: ReportContext): CaseFailure {
  const baseline = excusedBy(run, result);
  return {
    case: result.case.id,
    section: result.case.section,
    level: result.case.level,
    outcome: result.outcome,
    flaky: result.flaky,
    seed: result.seed,
    profiles: result.case.profiles,
    statement: result.case.statement,
    requirements: citedRequirements(result, context),
    ...violationOf(lastAttempt(result)?.violation),
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    ...(baseline === undefined ? {} : { baseline }),
    attempts: result.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      seed: attempt.seed,
      outcome: attempt.outcome,
      durationMs: Math.round(attempt.durationMs),
      checks: attempt.checks,
      ...violationOf(attempt.violation),
      ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
    })),
    specUrl: specAnchorUrl(result.case.section),
    transcript: transcriptPath(result.case.id),
  };
}

function profileStatement(verdict: ProfileVerdict, run: RunResult): ProfileStatement {
  if (!verdict.claimed)
    return { id: verdict.profile, title: verdict.title, claimed: false, verdict: 'not-claimed' };
  return {
    id: verdict.profile,
    title: verdict.title,
    claimed: true,
    verdict: verdict.verdict,
    ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    counts: Object.fromEntries(LEVELS.map((level) => [level, { ...verdict.counts[level] }])) as Record<
      Level,
      OutcomeCounts
    >,
    warnings: verdict.warnings,
    expectedFailures: verdict.expectedFailures,
    failingCases: verdict.failingCases,
    undecidedCases: verdict.undecidedCases,
    ...(verdict.undecidedRequirements === undefined
      ? {}
      : { undecidedRequirements: verdict.undecidedRequirements }),
    ...(verdict.knownGaps === undefined ? {} : { knownGaps: verdict.knownGaps }),
    blockers: verdict.blockers,
    notPassed: caseNotes(run, verdict),
  };
}

/** Every profile's statement, as conformance.json carries it (JUnit and Allure tell the same). */
export function profileStatements(run: RunResult): ProfileStatement[] {
  return run.profiles.map((verdict) => profileStatement(verdict, run));
}

export interface ConformanceReportOptions {
  /** The Allure HTML report was generated into allure-report/. */
  readonly allureReport?: boolean;
}

function subjectOf(subject: RunResult['subject']): ConformanceReport['subject'] {
  return {
    name: subject.name,
    ...(subject.version === undefined ? {} : { version: subject.version }),
    ...(subject.homepage === undefined ? {} : { homepage: subject.homepage }),
    gatewayJid: subject.gatewayJid,
    claimedProfiles: subject.profiles,
    features: subject.features,
  };
}

function totalsOf(result: RunResult): ConformanceReport['totals'] {
  const count = (outcome: Outcome): number => result.cases.filter((c) => c.outcome === outcome).length;
  return {
    cases: result.cases.length,
    passed: count('passed'),
    failed: count('failed'),
    cantTell: count('cantTell'),
    inapplicable: count('inapplicable'),
    untested: count('untested'),
    flaky: result.cases.filter((c) => c.flaky).length,
  };
}

/** Every case's SHOULD-level findings, with the case that met them. */
function warningsOf(result: RunResult): ConformanceReport['warnings'] {
  return result.cases.flatMap((caseResult) =>
    caseWarnings(caseResult).map((finding) => ({
      case: caseResult.case.id,
      requirement: finding.requirement,
      message: finding.message,
    })),
  );
}

/** The other files of the run, relative to the statement. */
function reportsOf(options: ConformanceReportOptions): ConformanceReport['reports'] {
  return {
    result: REPORT_FILES.result,
    statement: REPORT_FILES.statement,
    junit: REPORT_FILES.junit,
    earl: REPORT_FILES.earl,
    allureResults: REPORT_FILES.allureResults,
    transcripts: REPORT_FILES.transcripts,
    ...(options.allureReport === true ? { allureReport: REPORT_FILES.allureReport } : {}),
  };
}

export function conformanceReport(
  result: RunResult,
  context: ReportContext,
  options: ConformanceReportOptions = {},
): ConformanceReport {
  return {
    format: CONFORMANCE_FORMAT,
    runId: result.runId,
    runDate: result.startedAt,
    durationMs: Math.round(result.durationMs),
    seed: result.seed,
    strict: result.strict,
    deep: result.deep,
    provider: result.provider,
    servers: result.servers,
    suite: context.suite,
    spec: { title: SPEC_TITLE, revision: result.specRevision, url: SPEC_URL },
    subject: subjectOf(result.subject),
    passed: result.passed,
    verdict: runVerdict(result),
    partial: result.partial,
    ...(result.interrupted === undefined ? {} : { interrupted: result.interrupted }),
    ...(result.pace === undefined ? {} : { pace: { ...result.pace } }),
    selection: {
      grep: result.selection.grep,
      profiles: result.selection.profiles,
      selectedCases: result.selection.selectedCases,
      totalCases: result.selection.totalCases,
    },
    fixtures: result.fixtures,
    ...(result.fixtureChecklist === undefined
      ? {}
      : { fixtureChecklist: result.fixtureChecklist.map((item) => ({ ...item })) }),
    preflight: result.preflight.map((finding) => ({
      profile: finding.profile,
      kind: finding.kind,
      message: finding.message,
    })),
    profiles: profileStatements(result),
    totals: totalsOf(result),
    warnings: warningsOf(result),
    failures: result.cases.filter(didNotPass).map((caseResult) => caseFailure(caseResult, result, context)),
    scenarios: scenarioStatements(result),
    staleBaseline: result.staleBaseline,
    unknownBaseline: result.unknownBaseline,
    reports: reportsOf(options),
    ...callerPart(result, context),
  };
}

function callerPart(result: RunResult, context: ReportContext): { caller?: CallerStatement } {
  const caller = callerStatementOf(result, context);
  return caller === undefined ? {} : { caller };
}

function scenarioStatements(run: RunResult): ScenarioStatement[] {
  return run.cases.flatMap((caseResult) => {
    const { scenario } = caseResult.case;
    if (scenario === undefined) return [];
    const last = lastAttempt(caseResult);
    return [
      {
        case: caseResult.case.id,
        scenario,
        outcome: caseResult.outcome,
        ...(last?.iterations === undefined ? {} : { iterations: last.iterations }),
        durationMs: Math.round(caseResult.attempts.reduce((sum, attempt) => sum + attempt.durationMs, 0)),
      },
    ];
  });
}

export function conformanceJsonFile(report: ConformanceReport): ReportFile {
  return { path: 'conformance.json', content: `${JSON.stringify(report, null, 2)}\n` };
}
