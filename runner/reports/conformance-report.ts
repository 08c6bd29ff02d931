/**
 * conformance.json: the run's conformance statement as data, the one file the interop matrix
 * reads (fixtures/schemas/conformance-report.schema.json). Per profile: claimed or not, the
 * verdict, counts per level, warnings; then every case that did not pass with its requirements,
 * expected vs received and where its transcript is.
 */
import { LEVELS, type Level, type Outcome } from '../../suites/framework/outcome.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { OutcomeCounts, ProfileVerdictName } from '../profile-verdicts.ts';
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

/** Bumped when a reader of an older file would misread a newer one. */
export const CONFORMANCE_FORMAT = 'agentconf-conformance/1';

export interface ProfileStatement {
  readonly id: ProfileId;
  readonly title: string;
  readonly claimed: boolean;
  readonly verdict: ProfileVerdictName;
  readonly counts: Readonly<Record<Level, OutcomeCounts>>;
  /** Passed cases that carry SHOULD-level warnings. */
  readonly warnings: number;
  readonly expectedFailures: number;
  readonly failingCases: readonly string[];
}

export interface CaseWarning {
  readonly case: string;
  readonly requirement: string;
  readonly message: string;
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
  readonly violation?: { readonly requirement: string; readonly expected: string; readonly received: string };
  readonly reason?: string;
  readonly attempts: number;
  readonly specUrl: string;
  /** Relative to the run directory. */
  readonly transcript: string;
}

export interface ConformanceReport {
  readonly format: typeof CONFORMANCE_FORMAT;
  readonly runId: string;
  readonly runDate: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly strict: boolean;
  readonly provider: string;
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
  /** Every claimed profile passed and the baseline is current (the run's exit status). */
  readonly passed: boolean;
  readonly profiles: readonly ProfileStatement[];
  readonly totals: Readonly<Record<Outcome, number>> & { readonly cases: number; readonly flaky: number };
  readonly warnings: readonly CaseWarning[];
  readonly failures: readonly CaseFailure[];
  readonly staleBaseline: readonly string[];
  readonly unknownBaseline: readonly string[];
  /** The run's other report files, relative to the run directory. */
  readonly reports: Readonly<Record<string, string>>;
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

function caseFailure(result: CaseResult, context: ReportContext): CaseFailure {
  const violation = lastAttempt(result)?.violation;
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
    ...(violation === undefined
      ? {}
      : {
          violation: {
            requirement: violation.requirement,
            expected: violation.expected,
            received: violation.received,
          },
        }),
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    attempts: result.attempts.length,
    specUrl: specAnchorUrl(result.case.section),
    transcript: transcriptPath(result.case.id),
  };
}

export interface ConformanceReportOptions {
  /** The Allure HTML report was generated into allure-report/. */
  readonly allureReport?: boolean;
}

export function conformanceReport(
  result: RunResult,
  context: ReportContext,
  options: ConformanceReportOptions = {},
): ConformanceReport {
  const count = (outcome: Outcome): number => result.cases.filter((c) => c.outcome === outcome).length;
  const { subject } = result;
  return {
    format: CONFORMANCE_FORMAT,
    runId: result.runId,
    runDate: result.startedAt,
    durationMs: Math.round(result.durationMs),
    seed: result.seed,
    strict: result.strict,
    provider: result.provider,
    suite: context.suite,
    spec: { title: SPEC_TITLE, revision: result.specRevision, url: SPEC_URL },
    subject: {
      name: subject.name,
      ...(subject.version === undefined ? {} : { version: subject.version }),
      ...(subject.homepage === undefined ? {} : { homepage: subject.homepage }),
      gatewayJid: subject.gatewayJid,
      claimedProfiles: subject.profiles,
      features: subject.features,
    },
    passed: result.passed,
    profiles: result.profiles.map((verdict) => ({
      id: verdict.profile,
      title: verdict.title,
      claimed: verdict.claimed,
      verdict: verdict.verdict,
      counts: Object.fromEntries(LEVELS.map((level) => [level, { ...verdict.counts[level] }])) as Record<
        Level,
        OutcomeCounts
      >,
      warnings: verdict.warnings,
      expectedFailures: verdict.expectedFailures,
      failingCases: verdict.failingCases,
    })),
    totals: {
      cases: result.cases.length,
      passed: count('passed'),
      failed: count('failed'),
      cantTell: count('cantTell'),
      inapplicable: count('inapplicable'),
      untested: count('untested'),
      flaky: result.cases.filter((c) => c.flaky).length,
    },
    warnings: result.cases.flatMap((caseResult) =>
      caseWarnings(caseResult).map((finding) => ({
        case: caseResult.case.id,
        requirement: finding.requirement,
        message: finding.message,
      })),
    ),
    failures: result.cases.filter(didNotPass).map((caseResult) => caseFailure(caseResult, context)),
    staleBaseline: result.staleBaseline,
    unknownBaseline: result.unknownBaseline,
    reports: {
      result: REPORT_FILES.result,
      statement: REPORT_FILES.statement,
      junit: REPORT_FILES.junit,
      earl: REPORT_FILES.earl,
      allureResults: REPORT_FILES.allureResults,
      transcripts: REPORT_FILES.transcripts,
      ...(options.allureReport === true ? { allureReport: REPORT_FILES.allureReport } : {}),
    },
  };
}

export function conformanceJsonFile(report: ConformanceReport): ReportFile {
  return { path: 'conformance.json', content: `${JSON.stringify(report, null, 2)}\n` };
}
