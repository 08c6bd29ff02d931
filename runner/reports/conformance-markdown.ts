/**
 * conformance.md: the conformance statement a person reads. It opens with the run's verdict
 * (PARTIAL when only a selection of the cases ran, saying which: never a plain PASSED), who was
 * tested by which suite against which spec revision with which seed, the fixtures mode and what
 * it implies, and what the preflight found; then one sentence per claimed profile (verdict with
 * its main reason, passed / failed / cantTell / inapplicable per level, warnings, baselined
 * failures) with the cases that did not pass and why, while an unclaimed profile is only "not
 * claimed"; the baseline; then a section per case that did not pass with its requirements,
 * every attempt, expected vs received and its transcript.
 */
import type { Level } from '../../suites/framework/outcome.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { OutcomeCounts } from '../profile-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import { callerStatementLines } from './caller-statement.ts';
import { code, codeBlock, inline, verdictLines } from './markdown-text.ts';
import { attemptTranscripts, didNotPass, requirementLine } from './case-story.ts';
import type { CaseFailure, ConformanceReport, ProfileStatement } from './conformance-report.ts';
import type { ReportFile } from './report-file.ts';
import {
  caseNoteText,
  FIXTURE_MODES,
  profileVerdictWord,
  runVerdictWord,
  selectionText,
} from './verdict-words.ts';
import { serversText } from '../server-stack.ts';

function levelCounts(level: Level, counts: OutcomeCounts): string {
  const total = counts.passed + counts.failed + counts.cantTell + counts.inapplicable;
  if (total === 0) return `${level}: none`;
  return `${level}: ${String(counts.passed)} passed, ${String(counts.failed)} failed, ${String(counts.cantTell)} cantTell, ${String(counts.inapplicable)} inapplicable`;
}

function profileSentence(profile: ProfileStatement, partial: boolean): string {
  const name = `**${inline(profile.title)}** (${code(profile.id)}`;
  if (!profile.claimed) return `- ${name}): not claimed.`;
  const verdict = `**${profileVerdictWord(profile.verdict, partial)}**${profile.reason === undefined ? '' : ` (${inline(profile.reason)})`}`;
  const parts = [levelCounts('MUST', profile.counts.MUST), levelCounts('SHOULD', profile.counts.SHOULD)];
  const may = profile.counts.MAY;
  if (may.passed + may.failed + may.cantTell + may.inapplicable > 0) parts.push(levelCounts('MAY', may));
  if (profile.warnings > 0) parts.push(`${String(profile.warnings)} with warnings`);
  if (profile.expectedFailures > 0) parts.push(`${String(profile.expectedFailures)} baselined failures`);
  const lines = [`- ${name}, claimed): ${verdict} — ${parts.join('; ')}.`];
  for (const note of profile.notPassed) lines.push(`  - ${caseNoteText(note, { id: code, text: inline })}`);
  return lines.join('\n');
}

/** The opening sentence: the run's verdict, and for a partial run what it selected. */
function headline(report: ConformanceReport): string {
  const word = runVerdictWord(report);
  const reasons = report.profiles
    .filter((profile) => profile.claimed && profile.verdict !== 'passed')
    .map((profile) => `${inline(profile.title)} ${profileVerdictWord(profile.verdict, report.partial)}`);
  if (report.staleBaseline.length > 0 || report.unknownBaseline.length > 0)
    reasons.push('the baseline is out of date');
  for (const assessment of report.caller?.assessments ?? []) {
    if (assessment.verdict === 'failed' || assessment.verdict === 'incomplete')
      reasons.push(
        `${inline(assessment.title)} (${assessment.verdict === 'failed' ? 'FAILED' : 'INCOMPLETE'}, not a spec profile)`,
      );
  }
  const judged =
    report.caller === undefined
      ? 'every claimed profile passed'
      : report.subject.claimedProfiles.length === 0
        ? 'every assessment of the caller passed (not spec profiles)'
        : 'every claimed profile and every assessment of the caller passed';
  const why = reasons.length > 0 ? reasons.join(', ') : judged;
  if (report.interrupted !== undefined) {
    return `**INTERRUPTED**: the run was ${inline(report.interrupted)}; the cases it had not finished are undecided (not run), and this is not a conformance verdict.`;
  }
  if (!report.partial) return `**${word}**: ${why}.`;
  const scope = `only ${selectionText(report)} were selected`;
  return report.passed
    ? `**${word}**: ${scope}; every claimed profile they reach passed them. This is not a conformance verdict: run every case for one.`
    : `**${word}**: ${why}; ${scope}.`;
}

function preflightLines(report: ConformanceReport): string[] {
  if (report.preflight.length === 0)
    return ['None: the gateway advertises what each claimed profile requires.'];
  return report.preflight.map((finding) => {
    const title = report.profiles.find((profile) => profile.id === finding.profile)?.title ?? finding.profile;
    const effect = finding.kind === 'missing' ? 'fails the profile' : 'cannot be tested';
    return `- **${inline(title)}** (${code(finding.profile)}) ${effect}: ${inline(finding.message)}`;
  });
}

function attemptLine(attempt: CaseFailure['attempts'][number]): string {
  const why =
    attempt.violation === undefined ? attempt.reason : (attempt.reason ?? attempt.violation.requirement);
  return `  - ${String(attempt.attempt)} (seed ${String(attempt.seed)}): ${attempt.outcome} in ${String(attempt.durationMs)} ms${why === undefined ? '' : `: ${inline(why)}`}`;
}

function failureSection(failure: CaseFailure, caseResult: CaseResult | undefined): string {
  const heading = failure.flaky ? 'FLAKY' : failure.outcome === 'failed' ? 'FAILED' : 'UNDECIDED';
  const lines = [
    `### ${code(failure.case)}: ${heading}${failure.baseline === undefined ? '' : ' (baselined)'} [${failure.level}]`,
    '',
    inline(failure.statement),
    '',
    `- Spec: [#${failure.section}](${failure.specUrl})`,
    `- Profiles: ${failure.profiles.map(code).join(', ')}`,
    ...(failure.baseline === undefined
      ? []
      : [
          `- Baseline: ${inline(failure.baseline)} (an expected failure: it does not count against its profiles)`,
        ]),
    `- Seed: ${String(failure.seed)} (case)`,
    `- Requirements:`,
    ...failure.requirements.map((requirement) => `  - ${inline(requirementLine(requirement))}`),
    `- Attempts:`,
    ...failure.attempts.map(attemptLine),
  ];
  lines.push(...verdictLines(failure));
  if (failure.flaky && failure.reason !== undefined && failure.violation !== undefined) {
    lines.push('', `Flaky: ${inline(failure.reason)}`);
  }
  lines.push('', `Transcript ([${failure.transcript}](${failure.transcript})):`, '');
  lines.push(
    codeBlock(caseResult === undefined ? '(no transcript)' : attemptTranscripts(caseResult), 'text'),
  );
  return lines.join('\n');
}

type Row = [string, string];

function checklistRows(report: ConformanceReport): Row[] {
  if (report.fixtureChecklist === undefined) return [];
  const text =
    report.fixtureChecklist.length === 0
      ? 'nothing to do by hand'
      : `${report.fixtureChecklist
          .map((item) => `${item.confirmed ? '☑' : '☐'} ${code(item.id)}: ${inline(item.text)}`)
          .join(
            '<br>',
          )} (☐: not confirmed in the SUT file's ${code('fixturesConfirmed')}; the cases that need it are undecided)`;
  return [['Operator checklist', text]];
}

function paceRows(report: ConformanceReport): Row[] {
  if (report.pace === undefined) return [];
  return [
    [
      'Pace',
      `at most ${String(report.pace.perSecond)} request(s)/s to the gateway after a burst of ${String(report.pace.burst)} (${inline(report.pace.source)}); resource-constraint answers outside the rate-limit cases are undecided, not failures`,
    ],
  ];
}

/** The statement's identity table: what was judged, against which spec, how, and on what selection. */
function identityRows(report: ConformanceReport, subject: string): Row[] {
  return [
    ['Implementation', inline(subject)],
    ...(report.subject.homepage === undefined ? [] : [['Homepage', report.subject.homepage] as Row]),
    ...(report.subject.gatewayJid === '' ? [] : [['Gateway JID', code(report.subject.gatewayJid)] as Row]),
    ...(report.caller === undefined
      ? []
      : [['Caller under test', `${inline(report.caller.name)} (${code(report.caller.kind)})`] as Row]),
    ['Claimed profiles', report.subject.claimedProfiles.map(code).join(', ') || 'none'],
    ['Specification', `[${inline(report.spec.title)}](${report.spec.url}) ${report.spec.revision}`],
    ['Suite', `${report.suite.name} ${report.suite.version}`],
    ['Run', `${code(report.runId)}, started ${report.runDate}, ${(report.durationMs / 1000).toFixed(1)} s`],
    ['Seed', `${String(report.seed)} (replay: ${code(`agentconf run --seed ${String(report.seed)}`)})`],
    [
      'Mode',
      `${report.strict ? 'strict (SHOULD failures count)' : 'default (SHOULD failures are warnings)'}, ${report.provider} federation${report.servers === undefined ? '' : ` (${serversText(report.servers)})`}`,
    ],
    [
      'Selection',
      report.partial
        ? `**PARTIAL**: ${inline(selectionText(report))}; the verdicts speak for these cases only`
        : selectionText(report),
    ],
    ...(callerOnly(report)
      ? []
      : [['Fixtures', `${code(report.fixtures)}: ${FIXTURE_MODES[report.fixtures]}`] as Row]),
    ...checklistRows(report),
    ...paceRows(report),
  ];
}

/** Expected failures still failing, stale entries, unknown entries; nothing without any. */
function baselineLines(report: ConformanceReport, result: RunResult): string[] {
  const baselined = report.failures.filter((failure) => failure.baseline !== undefined);
  if (baselined.length === 0 && report.staleBaseline.length === 0 && report.unknownBaseline.length === 0) {
    return [];
  }
  const lines = ['', '## Baseline', ''];
  for (const failure of baselined) {
    lines.push(
      `- ${code(failure.case)} still fails, as the baseline expects: ${inline(failure.baseline ?? '')}`,
    );
  }
  for (const id of report.staleBaseline) {
    const reason = result.baseline[id];
    lines.push(
      `- ${code(id)} passes now; remove it from the baseline${reason === undefined ? '' : ` (listed because: ${inline(reason)})`}`,
    );
  }
  if (report.unknownBaseline.length > 0) {
    lines.push(`- The baseline names unknown cases: ${report.unknownBaseline.map(code).join(', ')}`);
  }
  return lines;
}

function warningLines(report: ConformanceReport): string[] {
  if (report.warnings.length === 0) return [];
  return [
    '',
    '## Warnings',
    '',
    ...report.warnings.map(
      (warning) => `- ${code(warning.case)}: ${code(warning.requirement)}: ${inline(warning.message)}`,
    ),
  ];
}

function failureLines(report: ConformanceReport, result: RunResult): string[] {
  const lines = ['', '## Cases that did not pass', ''];
  if (report.failures.length === 0) lines.push('None.');
  const byId = new Map(result.cases.filter(didNotPass).map((caseResult) => [caseResult.case.id, caseResult]));
  for (const failure of report.failures) lines.push(failureSection(failure, byId.get(failure.case)), '');
  return lines;
}

/** A SUT file with a caller and no gateway: no profile, preflight or fixture world to speak of. */
function callerOnly(report: ConformanceReport): boolean {
  return report.caller !== undefined && report.subject.gatewayJid === '';
}

function gatewayLines(report: ConformanceReport): string[] {
  if (callerOnly(report))
    return [
      '## Profiles',
      '',
      'None claimed: the SUT file declares a caller and no gateway, so only the caller assessments below apply.',
    ];
  return [
    '## Preflight',
    '',
    ...preflightLines(report),
    '',
    '## Profiles',
    '',
    ...report.profiles.map((profile) => profileSentence(profile, report.partial)),
  ];
}

export function conformanceMarkdown(report: ConformanceReport, result: RunResult): string {
  const subject = `${report.subject.name}${report.subject.version === undefined ? '' : ` ${report.subject.version}`}`;
  const totals = report.totals;
  return [
    `# Conformance statement: ${inline(subject)}`,
    '',
    callerOnly(report)
      ? headline(report)
      : `${headline(report)} ${String(totals.cases)} cases: ${String(totals.passed)} passed, ${String(totals.failed)} failed, ${String(totals.cantTell)} undecided (${String(totals.flaky)} flaky), ${String(totals.inapplicable)} inapplicable, ${String(totals.untested)} not claimed.`,
    '',
    '| | |',
    '|---|---|',
    ...identityRows(report, subject).map(([name, value]) => `| ${name} | ${value} |`),
    '',
    ...gatewayLines(report),
    ...(report.caller === undefined ? [] : callerStatementLines(report.caller)),
    ...baselineLines(report, result),
    ...warningLines(report),
    ...(callerOnly(report) ? [] : failureLines(report, result)),
    '',
    '## Other reports',
    '',
    ...Object.entries(report.reports).map(([name, path]) => `- ${name}: [${path}](${path})`),
    '',
  ].join('\n');
}

export function conformanceMarkdownFile(report: ConformanceReport, result: RunResult): ReportFile {
  return { path: 'conformance.md', content: conformanceMarkdown(report, result) };
}
