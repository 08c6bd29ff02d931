/**
 * junit.xml for CI servers: one <testsuite> per spec section, one <testcase> per case
 * (classname = section anchor, name = case ID). Validated against xsd/third-party/junit.xsd.
 *
 * Outcomes map onto JUnit's three non-pass states so a CI dashboard counts what blocks a
 * profile: failed → <failure>; cantTell → <error> (the case could not reach a verdict);
 * inapplicable and untested → <skipped> with the reason. A flaky case is an <error> (our rule:
 * flaky is never a pass) with a Surefire <flakyFailure> naming the attempt that failed.
 */
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { RunResult } from '../run-result.ts';
import {
  attemptTranscripts,
  caseHeader,
  caseWarnings,
  failureDetails,
  lastAttempt,
} from './case-story.ts';
import type { ReportContext } from './report-context.ts';
import type { ReportFile } from './report-file.ts';
import { SPEC_URL } from './spec-links.ts';
import { xmlAttribute, xmlText } from './xml-text.ts';

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function caseMs(result: CaseResult): number {
  return result.attempts.reduce((total, attempt) => total + attempt.durationMs, 0);
}

function element(name: string, attributes: Readonly<Record<string, string>>, body?: string): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}='${xmlAttribute(value)}'`)
    .join('');
  return body === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${body}</${name}>`;
}

/** The <failure>/<error>/<skipped> child that says why the case did not pass (none for a pass). */
function verdictElement(result: CaseResult, context: ReportContext): string | undefined {
  const details = [...caseHeader(result, context), ...failureDetails(result)].join('\n');
  const violation = lastAttempt(result)?.violation;
  switch (result.outcome) {
    case 'passed':
      return undefined;
    case 'failed':
      return element(
        'failure',
        {
          type: violation === undefined ? 'NoVerdict' : 'RequirementViolation',
          message: violation?.message ?? result.reason ?? 'failed',
        },
        xmlText(details),
      );
    case 'cantTell':
      return element(
        'error',
        { type: result.flaky ? 'flaky' : 'cantTell', message: result.reason ?? 'could not tell' },
        xmlText(details),
      );
    case 'inapplicable':
    case 'untested':
      return element('skipped', {
        type: result.outcome,
        message: `${result.outcome}: ${result.reason ?? 'not run'}`,
      });
  }
}

function testcase(result: CaseResult, context: ReportContext): string {
  const children: string[] = [];
  const verdict = verdictElement(result, context);
  if (verdict !== undefined) children.push(verdict);
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
  const attributes = { classname: result.case.section, name: result.case.id, time: seconds(caseMs(result)) };
  return children.length === 0
    ? `    ${element('testcase', attributes)}`
    : `    ${element('testcase', attributes, `\n      ${children.join('\n      ')}\n    `)}`;
}

function runProperties(result: RunResult, context: ReportContext): string {
  const properties: [string, string][] = [
    ['sut.name', result.subject.name],
    ...(result.subject.version === undefined ? [] : [['sut.version', result.subject.version] as [string, string]]),
    ...(result.subject.homepage === undefined ? [] : [['sut.homepage', result.subject.homepage] as [string, string]]),
    ['sut.gateway-jid', result.subject.gatewayJid],
    ['sut.claimed-profiles', result.subject.profiles.join(' ')],
    ['suite.version', `${context.suite.name} ${context.suite.version}`],
    ['spec.revision', result.specRevision],
    ['spec.url', SPEC_URL],
    ['run.id', result.runId],
    ['run.seed', String(result.seed)],
    ['run.strict', String(result.strict)],
    ['run.provider', result.provider],
  ];
  return properties.map(([name, value]) => `      ${element('property', { name, value })}`).join('\n');
}

interface Tally {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

function tally(results: readonly CaseResult[]): Tally {
  return {
    tests: results.length,
    failures: results.filter((r) => r.outcome === 'failed').length,
    errors: results.filter((r) => r.outcome === 'cantTell').length,
    skipped: results.filter((r) => r.outcome === 'inapplicable' || r.outcome === 'untested').length,
    ms: results.reduce((total, r) => total + caseMs(r), 0),
  };
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

export function junitXml(result: RunResult, context: ReportContext): string {
  const suites = [...bySection(result.cases)].map(([section, results], index) => {
    const counts = tally(results);
    const attributes = {
      name: section,
      tests: String(counts.tests),
      failures: String(counts.failures),
      errors: String(counts.errors),
      skipped: String(counts.skipped),
      time: seconds(counts.ms),
      timestamp: result.startedAt,
      id: String(index),
      package: context.suite.name,
    };
    const body = [
      '',
      `    <properties>\n${runProperties(result, context)}\n    </properties>`,
      ...results.map((caseResult) => testcase(caseResult, context)),
      '  ',
    ].join('\n');
    return `  ${element('testsuite', attributes, body)}`;
  });
  const all = tally(result.cases);
  const subject = `${result.subject.name}${result.subject.version === undefined ? '' : ` ${result.subject.version}`}`;
  const root = element(
    'testsuites',
    {
      name: `${context.suite.name} ${context.suite.version}: ${subject}`,
      tests: String(all.tests),
      failures: String(all.failures),
      errors: String(all.errors),
      time: seconds(result.durationMs),
    },
    `\n${suites.join('\n')}\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}

export function junitReport(result: RunResult, context: ReportContext): ReportFile {
  return { path: 'junit.xml', content: junitXml(result, context) };
}
