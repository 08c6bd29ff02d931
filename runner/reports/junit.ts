/**
 * junit.xml for CI servers: first a <testsuite name="profiles"> with one <testcase> per claimed
 * profile (classname "profiles", name = profile ID), then one <testsuite> per spec section, one
 * <testcase> per case (classname = section anchor, name = case ID). Validated against
 * xsd/third-party/junit.xsd.
 *
 * A profile's testcase carries its verdict: failed → <failure>, INCOMPLETE and a NOT ASSESSED
 * that fails the run → <error>, each with the main reason as its message; a NOT ASSESSED profile
 * a partial run left out → <skipped>. Its <system-out> gives the passed / failed / cantTell /
 * inapplicable counts and the cases that did not pass with their reasons (PARTIAL PASS when the
 * run was partial). Every testsuite's <properties> carry the run's verdict (PARTIAL for a
 * partial run, never plain PASSED), the selection, the fixtures mode and the preflight
 * findings; the profiles suite adds each profile's verdict and counts.
 *
 * Case outcomes map onto JUnit's three non-pass states so a CI dashboard counts what blocks a
 * profile: failed → <failure>; cantTell → <error> (the case could not reach a verdict);
 * inapplicable and untested → <skipped> with the reason. A flaky case is an <error> (our rule:
 * flaky is never a pass) with a Surefire <flakyFailure> naming the attempt that failed. A case
 * the baseline expects to fail is <skipped message="baseline: REASON"/> (it does not fail the
 * run); a baseline entry whose case passes now is a <failure> saying to remove it.
 *
 * A run that judged a caller (docs/caller.md) adds a <testsuite name="assessments"> with one
 * testcase per judged assessment (never called a profile), then one "caller:<section>" suite per
 * caller section; a caller case maps onto JUnit by the same function as a gateway case.
 */
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { RunResult } from '../run-result.ts';
import type { CallerCaseResult } from '../../suites/caller/framework/run-caller-case.ts';
import { ASSESSMENT_LABEL } from '../../suites/registry/assessments.ts';
import type { AssessmentVerdict } from '../assessment-verdicts.ts';
import {
  profileStatements,
  type ClaimedProfileStatement,
  type ProfileStatement,
} from './conformance-report.ts';
import {
  attemptTranscripts,
  caseHeader,
  caseWarnings,
  failureDetails,
  isCallerCase,
  lastAttempt,
  skipMessage,
  type ReportedCase,
} from './case-story.ts';
import type { ReportContext } from './report-context.ts';
import type { ReportFile } from './report-file.ts';
import { SPEC_URL } from './spec-links.ts';
import {
  excusedBy,
  FIXTURE_MODES,
  outcomeCountsText,
  outcomeTotals,
  profileSummary,
  profileVerdictWord,
  runVerdictWord,
  selectionText,
  staleBaselineMessage,
} from './verdict-words.ts';
import { xmlAttribute, xmlText } from './xml-text.ts';
import { serversText } from '../server-stack.ts';

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function caseMs(result: Pick<CaseResult, 'attempts'>): number {
  return result.attempts.reduce((total, attempt) => total + attempt.durationMs, 0);
}

function element(name: string, attributes: Readonly<Record<string, string>>, body?: string): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}='${xmlAttribute(value)}'`)
    .join('');
  return body === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${body}</${name}>`;
}

/** JUnit's four states; the tallies count these, not outcomes. */
type JunitState = 'passed' | 'failure' | 'error' | 'skipped';

interface Verdict {
  readonly state: JunitState;
  /** The <failure>/<error>/<skipped> child that says why (none for a pass). */
  readonly element?: string;
}

/**
 * How a case shows in JUnit, a gateway case or a caller case alike: its outcome, unless the
 * baseline expects it to fail or is stale about it (the baseline lists gateway cases only).
 */
function caseVerdict(result: ReportedCase, run: RunResult, context: ReportContext): Verdict {
  const details = [...caseHeader(result, context), ...failureDetails(result)].join('\n');
  const violation = lastAttempt(result)?.violation;
  const baseline = excusedBy(run, result);
  if (baseline !== undefined) {
    return {
      state: 'skipped',
      element: element('skipped', { type: 'baseline', message: `baseline: ${baseline}` }, xmlText(details)),
    };
  }
  if (run.staleBaseline.includes(result.case.id)) {
    return {
      state: 'failure',
      element: element('failure', {
        type: 'StaleBaseline',
        message: staleBaselineMessage(run, result.case.id),
      }),
    };
  }
  switch (result.outcome) {
    case 'passed':
      return { state: 'passed' };
    case 'failed':
      return {
        state: 'failure',
        element: element(
          'failure',
          {
            type: violation === undefined ? 'NoVerdict' : 'RequirementViolation',
            message: violation?.message ?? result.reason ?? 'failed',
          },
          xmlText(details),
        ),
      };
    case 'cantTell':
      return {
        state: 'error',
        element: element(
          'error',
          { type: result.flaky ? 'flaky' : 'cantTell', message: result.reason ?? 'could not tell' },
          xmlText(details),
        ),
      };
    case 'inapplicable':
    case 'untested':
      return {
        state: 'skipped',
        element: element('skipped', { type: result.outcome, message: skipMessage(result) }),
      };
  }
}

/** The case's <testcase>; a caller case's classname is "caller:<section>", as its testsuite. */
function testcase(result: ReportedCase, verdict: Verdict): string {
  const children: string[] = [];
  if (verdict.element !== undefined) children.push(verdict.element);
  if (result.flaky) {
    const failedAttempt = result.attempts.find((attempt) => attempt.outcome !== 'passed');
    children.push(
      element('flakyFailure', {
        type: failedAttempt?.violation === undefined ? 'NoVerdict' : 'RequirementViolation',
        message: failedAttempt?.reason ?? 'failed',
      }),
    );
  }
  // Transcripts of passed cases stay in transcripts/ (junit.xml is read by humans in CI UIs).
  if (result.outcome !== 'passed' && result.attempts.length > 0) {
    children.push(element('system-out', {}, xmlText(attemptTranscripts(result))));
  }
  const warnings = caseWarnings(result);
  if (warnings.length > 0) {
    const text = warnings.map((finding) => `warning: ${finding.requirement}: ${finding.message}`).join('\n');
    children.push(element('system-err', {}, xmlText(text)));
  }
  const classname = isCallerCase(result) ? `caller:${result.case.section}` : result.case.section;
  const attributes = { classname, name: result.case.id, time: seconds(caseMs(result)) };
  return testcaseElement(attributes, children);
}

function testcaseElement(attributes: Readonly<Record<string, string>>, children: readonly string[]): string {
  return children.length === 0
    ? `    ${element('testcase', attributes)}`
    : `    ${element('testcase', attributes, `\n      ${children.join('\n      ')}\n    `)}`;
}

const PROFILE_ELEMENTS = {
  failed: { state: 'failure', name: 'failure', type: 'ProfileFailed' },
  undecided: { state: 'error', name: 'error', type: 'ProfileUndecided' },
  skipped: { state: 'skipped', name: 'skipped', type: 'ProfileNotSelected' },
} as const;

/** A claimed profile as a testcase: its verdict, main reason, counts and the cases that did not pass. */
function profileTestcase(
  profile: ClaimedProfileStatement,
  run: RunResult,
): { verdict: Verdict; xml: string } {
  const summary = profileSummary(profile, run);
  const children: string[] = [];
  let verdict: Verdict = { state: 'passed' };
  if (summary.state !== 'passed') {
    const kind = PROFILE_ELEMENTS[summary.state];
    const child = element(kind.name, { type: kind.type, message: summary.message });
    verdict = { state: kind.state, element: child };
    children.push(child);
  }
  const text = [`${profile.title}: ${summary.message}`, ...summary.details].join('\n');
  children.push(element('system-out', {}, xmlText(text)));
  return {
    verdict,
    xml: testcaseElement({ classname: 'profiles', name: profile.id, time: seconds(0) }, children),
  };
}

function runProperties(result: RunResult, context: ReportContext): [string, string][] {
  return [
    ['sut.name', result.subject.name],
    ...(result.subject.version === undefined
      ? []
      : [['sut.version', result.subject.version] as [string, string]]),
    ...(result.subject.homepage === undefined
      ? []
      : [['sut.homepage', result.subject.homepage] as [string, string]]),
    ['sut.gateway-jid', result.subject.gatewayJid],
    ['sut.claimed-profiles', result.subject.profiles.join(' ')],
    ['suite.version', `${context.suite.name} ${context.suite.version}`],
    ['spec.revision', result.specRevision],
    ['spec.url', SPEC_URL],
    ['run.id', result.runId],
    ['run.seed', String(result.seed)],
    ['run.strict', String(result.strict)],
    ['run.provider', result.provider],
    ['run.servers', serversText(result.servers)],
    ['run.verdict', runVerdictWord(result)],
    ['run.partial', String(result.partial)],
    ['run.selection', selectionText(result)],
    ['run.fixtures', `${result.fixtures}: ${FIXTURE_MODES[result.fixtures]}`],
    ...result.preflight.map((finding): [string, string] => [
      `preflight.${finding.profile}`,
      `${finding.kind}: ${finding.message}`,
    ]),
    ...(result.staleBaseline.length === 0
      ? []
      : [['baseline.stale', result.staleBaseline.join(' ')] as [string, string]]),
    ...(result.unknownBaseline.length === 0
      ? []
      : [['baseline.unknown', result.unknownBaseline.join(' ')] as [string, string]]),
  ];
}

/** Each profile's verdict with its main reason, and a claimed one's counts. */
function profileProperties(profiles: readonly ProfileStatement[], partial: boolean): [string, string][] {
  return profiles.flatMap((profile): [string, string][] => {
    const word = profileVerdictWord(profile.verdict, partial);
    if (!profile.claimed) return [[`profile.${profile.id}`, word]];
    return [
      [`profile.${profile.id}`, profile.reason === undefined ? word : `${word}: ${profile.reason}`],
      [`profile.${profile.id}.counts`, outcomeCountsText(outcomeTotals(profile.counts))],
    ];
  });
}

function propertiesElement(properties: readonly [string, string][]): string {
  const lines = properties.map(([name, value]) => `      ${element('property', { name, value })}`);
  return `    <properties>\n${lines.join('\n')}\n    </properties>`;
}

interface Tally {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

function tally(verdicts: readonly Verdict[], ms: number): Tally {
  const count = (state: JunitState): number => verdicts.filter((verdict) => verdict.state === state).length;
  return {
    tests: verdicts.length,
    failures: count('failure'),
    errors: count('error'),
    skipped: count('skipped'),
    ms,
  };
}

function suiteElement(
  name: string,
  counts: Tally,
  index: number,
  result: RunResult,
  context: ReportContext,
  body: readonly string[],
): string {
  const attributes = {
    name,
    tests: String(counts.tests),
    failures: String(counts.failures),
    errors: String(counts.errors),
    skipped: String(counts.skipped),
    time: seconds(counts.ms),
    timestamp: result.startedAt,
    id: String(index),
    package: context.suite.name,
  };
  return `  ${element('testsuite', attributes, ['', ...body, '  '].join('\n'))}`;
}

/** Sections in the order the run met them (the spec's order). */
function bySection(cases: readonly CaseResult[]): Map<string, CaseResult[]> {
  const sections = new Map<string, CaseResult[]>();
  for (const result of cases) {
    const list = sections.get(result.case.section) ?? [];
    list.push(result);
    sections.set(result.case.section, list);
  }
  return sections;
}

const ASSESSMENT_ELEMENTS: Readonly<
  Record<Exclude<AssessmentVerdict['verdict'], 'passed' | 'not-run'>, { state: JunitState; name: string }>
> = {
  failed: { state: 'failure', name: 'failure' },
  incomplete: { state: 'error', name: 'error' },
  'not-assessed': { state: 'error', name: 'error' },
};

/** A judged assessment as a testcase (classname "assessments"), labelled as not a spec profile. */
function assessmentTestcase(assessment: AssessmentVerdict): { verdict: Verdict; xml: string } {
  const children: string[] = [];
  let verdict: Verdict = { state: 'passed' };
  if (assessment.verdict !== 'passed' && assessment.verdict !== 'not-run') {
    const kind = ASSESSMENT_ELEMENTS[assessment.verdict];
    const child = element(kind.name, {
      type: `Assessment-${assessment.verdict}`,
      message: assessment.reason ?? assessment.verdict,
    });
    verdict = { state: kind.state, element: child };
    children.push(child);
  }
  const text = [
    `${assessment.title} (${ASSESSMENT_LABEL}): ${assessment.verdict}${assessment.reason === undefined ? '' : `: ${assessment.reason}`}`,
    `MUST: ${outcomeCountsText(assessment.counts.MUST)}`,
    `SHOULD: ${outcomeCountsText(assessment.counts.SHOULD)}`,
  ].join('\n');
  children.push(element('system-out', {}, xmlText(text)));
  return {
    verdict,
    xml: testcaseElement(
      { classname: 'assessments', name: assessment.assessment, time: seconds(0) },
      children,
    ),
  };
}

/** The "assessments" testsuite and one "caller:<section>" testsuite per caller section run. */
function callerSuites(
  result: RunResult,
  context: ReportContext,
  firstIndex: number,
): { suites: string[]; verdicts: Verdict[] } {
  const judged = (result.assessments ?? []).filter((assessment) => assessment.verdict !== 'not-run');
  if (judged.length === 0 && (result.callerCases ?? []).length === 0) return { suites: [], verdicts: [] };
  const properties = runProperties(result, context);
  const assessments = judged.map(assessmentTestcase);
  const suites = [
    suiteElement(
      'assessments',
      tally(
        assessments.map((assessment) => assessment.verdict),
        0,
      ),
      firstIndex,
      result,
      context,
      [
        propertiesElement([
          ...properties,
          ...judged.map((assessment): [string, string] => [
            `assessment.${assessment.assessment}`,
            `${assessment.verdict} (${ASSESSMENT_LABEL})`,
          ]),
        ]),
        ...assessments.map((assessment) => assessment.xml),
      ],
    ),
  ];
  const verdicts = assessments.map((assessment) => assessment.verdict);
  const sections = new Map<string, CallerCaseResult[]>();
  for (const caseResult of result.callerCases ?? []) {
    sections.set(caseResult.case.section, [...(sections.get(caseResult.case.section) ?? []), caseResult]);
  }
  for (const [section, results] of sections) {
    const judgedCases = results.map((caseResult) => ({
      caseResult,
      verdict: caseVerdict(caseResult, result, context),
    }));
    verdicts.push(...judgedCases.map(({ verdict }) => verdict));
    const ms = results.reduce((total, caseResult) => total + caseMs(caseResult), 0);
    suites.push(
      suiteElement(
        `caller:${section}`,
        tally(
          judgedCases.map(({ verdict }) => verdict),
          ms,
        ),
        firstIndex + suites.length,
        result,
        context,
        [
          propertiesElement(properties),
          ...judgedCases.map(({ caseResult, verdict }) => testcase(caseResult, verdict)),
        ],
      ),
    );
  }
  return { suites, verdicts };
}

export function junitXml(result: RunResult, context: ReportContext): string {
  const properties = runProperties(result, context);
  const statements = profileStatements(result);
  const profiles = statements
    .filter((profile): profile is ClaimedProfileStatement => profile.claimed)
    .map((profile) => profileTestcase(profile, result));
  const suites = [
    suiteElement(
      'profiles',
      tally(
        profiles.map((profile) => profile.verdict),
        0,
      ),
      0,
      result,
      context,
      [
        propertiesElement([...properties, ...profileProperties(statements, result.partial)]),
        ...profiles.map((profile) => profile.xml),
      ],
    ),
  ];
  const all: Verdict[] = profiles.map((profile) => profile.verdict);
  for (const [section, results] of bySection(result.cases)) {
    const judged = results.map((caseResult) => ({
      caseResult,
      verdict: caseVerdict(caseResult, result, context),
    }));
    const verdicts = judged.map(({ verdict }) => verdict);
    all.push(...verdicts);
    const ms = results.reduce((total, caseResult) => total + caseMs(caseResult), 0);
    suites.push(
      suiteElement(section, tally(verdicts, ms), suites.length, result, context, [
        propertiesElement(properties),
        ...judged.map(({ caseResult, verdict }) => testcase(caseResult, verdict)),
      ]),
    );
  }
  const callers = callerSuites(result, context, suites.length);
  suites.push(...callers.suites);
  all.push(...callers.verdicts);
  const totals = tally(all, 0);
  const subject = `${result.subject.name}${result.subject.version === undefined ? '' : ` ${result.subject.version}`}`;
  const root = element(
    'testsuites',
    {
      name: `${context.suite.name} ${context.suite.version}: ${subject}`,
      tests: String(totals.tests),
      failures: String(totals.failures),
      errors: String(totals.errors),
      time: seconds(result.durationMs),
    },
    `\n${suites.join('\n')}\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}

export function junitReport(result: RunResult, context: ReportContext): ReportFile {
  return { path: 'junit.xml', content: junitXml(result, context) };
}
