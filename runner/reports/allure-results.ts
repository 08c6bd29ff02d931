/**
 * allure-results/: one Allure result file per case, written with allure-js-commons' own
 * ReporterRuntime (framework-free: it is what the framework adapters drive) into an in-memory
 * writer, so the files are exactly what Allure's readers expect and this stays a pure function.
 *
 * Labels: suite = spec section, feature = each profile the case counts toward, story = its
 * primary requirement, severity from the level (MUST critical, SHOULD normal, MAY minor). Links:
 * the spec anchor. Parameters: the case seed and the run seed (excluded from Allure's history
 * key, so history follows a case across runs with different seeds). Attachments: every
 * attempt's transcript. Status: passed, failed (requirement violated or no verdict), broken
 * (cantTell; flaky ones flagged as flaky), skipped (inapplicable, untested) with the reason. A
 * case the baseline expects to fail is skipped with "baseline: REASON" (tag baselined); a
 * baseline entry whose case passes now is failed, saying to remove it. Every result of a
 * partial run is tagged PARTIAL.
 *
 * One more result per claimed profile (suite "profiles", feature = the profile): failed for
 * FAIL, broken for INCOMPLETE and for a NOT ASSESSED that fails the run, skipped for one a
 * partial run left out, its message the verdict with its main reason, its description the
 * passed / failed / cantTell / inapplicable counts and the cases that did not pass. The
 * environment gives the run's verdict (PARTIAL, never PASSED, for a partial run), the
 * selection, the fixtures mode and the preflight findings.
 *
 * Caller cases (docs/caller.md) are results like gateway cases, with suite "caller:<section>",
 * feature = each assessment the case counts toward and the tag "assessment, not a spec profile";
 * each judged assessment gets one result (suite "assessments") as a claimed profile does.
 */
import {
  ContentType,
  LabelName,
  LinkType,
  Severity,
  Stage,
  Status,
  type Label,
  type StatusDetails,
} from 'allure-js-commons';
import { InMemoryWriter, ReporterRuntime, stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';
import type { Level } from '../../suites/framework/outcome.ts';
import { ASSESSMENT_LABEL } from '../../suites/registry/assessments.ts';
import type { AssessmentVerdict } from '../assessment-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import {
  caseHeader,
  caseWarnings,
  failureDetails,
  isCallerCase,
  lastAttempt,
  skipMessage,
  type ReportedCase,
} from './case-story.ts';
import { profileStatements, type ClaimedProfileStatement } from './conformance-report.ts';
import type { ReportContext } from './report-context.ts';
import type { ReportFile } from './report-file.ts';
import { specAnchorUrl } from './spec-links.ts';
import {
  excusedBy,
  FIXTURE_MODES,
  outcomeCountsText,
  profileSummary,
  runVerdictWord,
  selectionText,
  staleBaselineMessage,
} from './verdict-words.ts';
import { serversText } from '../server-stack.ts';

export const ALLURE_RESULTS_DIR = 'allure-results';

const SEVERITY: Readonly<Record<Level, Severity>> = {
  MUST: Severity.CRITICAL,
  SHOULD: Severity.NORMAL,
  MAY: Severity.MINOR,
};

/** Allure's readers take statusDetails.flaky; allure-js-commons' type does not list it. */
type Details = StatusDetails & { flaky?: boolean };

function status(result: ReportedCase, run: RunResult): Status {
  if (excusedBy(run, result) !== undefined) return Status.SKIPPED;
  if (run.staleBaseline.includes(result.case.id)) return Status.FAILED;
  switch (result.outcome) {
    case 'passed':
      return Status.PASSED;
    case 'failed':
      return Status.FAILED;
    case 'cantTell':
      return Status.BROKEN;
    case 'inapplicable':
    case 'untested':
      return Status.SKIPPED;
  }
}

function statusDetails(result: ReportedCase, run: RunResult, context: ReportContext): Details {
  const violation = lastAttempt(result)?.violation;
  const warnings = caseWarnings(result).map(
    (finding) => `warning: ${finding.requirement}: ${finding.message}`,
  );
  if (run.staleBaseline.includes(result.case.id)) {
    return { message: [staleBaselineMessage(run, result.case.id), ...warnings].join('\n') };
  }
  if (result.outcome === 'passed') return warnings.length === 0 ? {} : { message: warnings.join('\n') };
  if (result.outcome === 'inapplicable' || result.outcome === 'untested') {
    return { message: skipMessage(result) };
  }
  const baseline = excusedBy(run, result);
  return {
    message:
      baseline === undefined
        ? (violation?.message ?? result.reason ?? result.outcome)
        : `baseline: ${baseline}`,
    trace: [...caseHeader(result, context), ...failureDetails(result)].join('\n'),
    ...(violation === undefined ? {} : { expected: violation.expected, actual: violation.received }),
    ...(result.flaky ? { flaky: true } : {}),
  };
}

/** Where a case sits in Allure's tree: its section, a caller case's under "caller:". */
function suiteOf(result: ReportedCase): string {
  return isCallerCase(result) ? `caller:${result.case.section}` : result.case.section;
}

/** The profiles a gateway case counts toward, or a caller case's assessments, said to be none. */
function featureLabels(result: ReportedCase): Label[] {
  if (!isCallerCase(result)) {
    return result.case.profiles.map((profile) => ({ name: LabelName.FEATURE, value: profile }));
  }
  return [
    ...result.case.assessments.map((assessment) => ({ name: LabelName.FEATURE, value: assessment })),
    { name: LabelName.TAG, value: ASSESSMENT_LABEL },
  ];
}

function labels(result: ReportedCase, run: RunResult): Label[] {
  const { case: testCase } = result;
  const subject = subjectText(run);
  return [
    { name: LabelName.PARENT_SUITE, value: subject },
    { name: LabelName.SUITE, value: suiteOf(result) },
    ...featureLabels(result),
    { name: LabelName.STORY, value: testCase.requirements[0] },
    { name: LabelName.SEVERITY, value: SEVERITY[testCase.level] },
    { name: LabelName.TAG, value: testCase.level },
    ...(result.flaky ? [{ name: LabelName.TAG, value: 'flaky' }] : []),
    ...(excusedBy(run, result) === undefined ? [] : [{ name: LabelName.TAG, value: 'baselined' }]),
    ...(run.staleBaseline.includes(result.case.id) ? [{ name: LabelName.TAG, value: 'stale baseline' }] : []),
    ...runLabels(run),
  ];
}

function runLabels(run: RunResult): Label[] {
  return [
    ...(run.partial ? [{ name: LabelName.TAG, value: 'PARTIAL' }] : []),
    { name: LabelName.FRAMEWORK, value: 'agentconf' },
  ];
}

const PROFILE_STATUS = {
  passed: Status.PASSED,
  failed: Status.FAILED,
  undecided: Status.BROKEN,
  skipped: Status.SKIPPED,
} as const;

/** A claimed profile as one result: its verdict, main reason, counts and the cases that did not pass. */
function writeProfileResult(
  runtime: ReporterRuntime,
  profile: ClaimedProfileStatement,
  run: RunResult,
): void {
  const summary = profileSummary(profile, run);
  writeSummaryResult(runtime, run, {
    name: `${profile.title}: ${summary.word}`,
    fullName: `profile:${profile.id}`,
    suite: 'profiles',
    feature: profile.id,
    tag: summary.word,
    description: summary.details.join('\n'),
    status: PROFILE_STATUS[summary.state],
    message: summary.message,
  });
}

const ASSESSMENT_STATUS: Readonly<Record<Exclude<AssessmentVerdict['verdict'], 'not-run'>, Status>> = {
  passed: Status.PASSED,
  failed: Status.FAILED,
  incomplete: Status.BROKEN,
  'not-assessed': Status.BROKEN,
};

/** A judged assessment as one result, like a claimed profile, labelled as not a spec profile. */
function writeAssessmentResult(
  runtime: ReporterRuntime,
  assessment: AssessmentVerdict & { readonly verdict: keyof typeof ASSESSMENT_STATUS },
  run: RunResult,
): void {
  const word = assessment.verdict.toUpperCase();
  const description = [
    `MUST: ${outcomeCountsText(assessment.counts.MUST)}`,
    `SHOULD: ${outcomeCountsText(assessment.counts.SHOULD)}`,
    ...assessment.failingCases.map((id) => `failed: ${id}`),
    ...assessment.undecidedCases.map((id) => `undecided: ${id}`),
    ...(assessment.undecidedRequirements ?? []).map((id) => `no case decided: ${id}`),
  ].join('\n');
  writeSummaryResult(runtime, run, {
    name: `${assessment.title}: ${word}`,
    fullName: `assessment:${assessment.assessment}`,
    suite: 'assessments',
    feature: assessment.assessment,
    tag: ASSESSMENT_LABEL,
    description,
    status: ASSESSMENT_STATUS[assessment.verdict],
    message: `${assessment.title} (${ASSESSMENT_LABEL}): ${word}${assessment.reason === undefined ? '' : `: ${assessment.reason}`}`,
  });
}

/** What one run-level result (a claimed profile, a judged assessment) shows. */
interface SummaryResult {
  readonly name: string;
  readonly fullName: string;
  readonly suite: 'profiles' | 'assessments';
  readonly feature: string;
  readonly tag: string;
  readonly description: string;
  readonly status: Status;
  readonly message: string;
}

/** One finished result under the subject, stamped at the run's start. */
function writeSummaryResult(runtime: ReporterRuntime, run: RunResult, summary: SummaryResult): void {
  const start = Date.parse(run.startedAt);
  const uuid = runtime.startTest({
    name: summary.name,
    fullName: summary.fullName,
    titlePath: [summary.suite],
    description: summary.description,
    labels: [
      { name: LabelName.PARENT_SUITE, value: subjectText(run) },
      { name: LabelName.SUITE, value: summary.suite },
      { name: LabelName.FEATURE, value: summary.feature },
      { name: LabelName.TAG, value: summary.tag },
      ...runLabels(run),
    ],
    start,
  });
  runtime.updateTest(uuid, (test) => {
    test.status = summary.status;
    test.statusDetails = { message: summary.message, trace: summary.description };
    test.stage = Stage.FINISHED;
  });
  runtime.stopTest(uuid, { stop: start });
  runtime.writeTest(uuid);
}

/** The SUT as the results name it: its name and, when known, its version. */
function subjectText(run: RunResult): string {
  return `${run.subject.name}${run.subject.version === undefined ? '' : ` ${run.subject.version}`}`;
}

function startOf(result: ReportedCase, run: RunResult): number {
  return Date.parse(result.attempts[0]?.transcript.startedAt ?? run.startedAt);
}

/** The run as Allure's environment panel shows it. */
function environmentOf(run: RunResult, context: ReportContext): Record<string, string> {
  return {
    SUT: run.subject.name,
    'SUT version': run.subject.version ?? '-',
    'Gateway JID': run.subject.gatewayJid,
    'Claimed profiles': run.subject.profiles.join(', '),
    Suite: `${context.suite.name} ${context.suite.version}`,
    'Spec revision': run.specRevision,
    'Run seed': String(run.seed),
    'Run ID': run.runId,
    Federation: `${run.provider} (${serversText(run.servers)})`,
    Strict: String(run.strict),
    'Run verdict': runVerdictWord(run),
    Selection: selectionText(run),
    Fixtures: `${run.fixtures}: ${FIXTURE_MODES[run.fixtures]}`,
    Preflight:
      run.preflight.length === 0
        ? 'no finding'
        : run.preflight.map((finding) => `${finding.profile} ${finding.kind}: ${finding.message}`).join('; '),
    ...(run.caller === undefined ? {} : { 'Caller under test': `${run.caller.name} (${run.caller.kind})` }),
  };
}

/** One case as an Allure test: its verdict, labels, spec link, and each attempt's transcript attached. */
function writeCaseResult(
  runtime: ReporterRuntime,
  result: ReportedCase,
  run: RunResult,
  context: ReportContext,
): void {
  const start = startOf(result, run);
  const uuid = runtime.startTest({
    name: result.case.id,
    fullName: result.case.id,
    titlePath: [suiteOf(result)],
    description: result.case.statement,
    labels: labels(result, run),
    links: [
      { name: `#${result.case.section}`, url: specAnchorUrl(result.case.section), type: LinkType.DEFAULT },
    ],
    parameters: [
      { name: 'seed', value: String(result.seed), excluded: true },
      { name: 'run seed', value: String(run.seed), excluded: true },
    ],
    start,
  });
  runtime.updateTest(uuid, (test) => {
    test.status = status(result, run);
    test.statusDetails = statusDetails(result, run, context);
    test.stage = Stage.FINISHED;
  });
  result.attempts.forEach((attempt, index) => {
    runtime.writeAttachment(
      uuid,
      null,
      `transcript, attempt ${String(index + 1)} of ${String(result.attempts.length)}: ${attempt.outcome}`,
      Buffer.from(attempt.transcriptText, 'utf8'),
      { contentType: ContentType.TEXT, fileExtension: '.txt' },
    );
  });
  const durationMs = result.attempts.reduce((total, attempt) => total + attempt.durationMs, 0);
  runtime.stopTest(uuid, { stop: start + Math.round(durationMs) });
  runtime.writeTest(uuid);
}

/** What the in-memory writer collected, as files under allure-results/. */
function filesOf(writer: InMemoryWriter): ReportFile[] {
  const files: ReportFile[] = writer.tests.map((test) => ({
    path: `${ALLURE_RESULTS_DIR}/${test.uuid}-result.json`,
    content: `${JSON.stringify(test)}\n`,
  }));
  for (const [name, content] of Object.entries(writer.attachments)) {
    files.push({ path: `${ALLURE_RESULTS_DIR}/${name}`, content });
  }
  if (writer.envInfo !== undefined) {
    files.push({
      path: `${ALLURE_RESULTS_DIR}/environment.properties`,
      content: stringifyEnvInfo(writer.envInfo),
    });
  }
  return files;
}

export function allureResultFiles(run: RunResult, context: ReportContext): ReportFile[] {
  const writer = new InMemoryWriter();
  const runtime = new ReporterRuntime({ writer, environmentInfo: environmentOf(run, context) });
  for (const profile of profileStatements(run)) {
    if (profile.claimed) writeProfileResult(runtime, profile, run);
  }
  for (const result of run.cases) writeCaseResult(runtime, result, run, context);
  for (const assessment of run.assessments ?? []) {
    const { verdict } = assessment;
    if (verdict !== 'not-run') writeAssessmentResult(runtime, { ...assessment, verdict }, run);
  }
  for (const result of run.callerCases ?? []) writeCaseResult(runtime, result, run, context);
  runtime.writeEnvironmentInfo();
  return filesOf(writer);
}
