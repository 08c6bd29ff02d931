/**
 * conformance.md: the conformance statement a person reads — who was tested, by which suite
 * against which spec revision with which seed; one sentence per profile (claimed or not,
 * verdict, MUST and SHOULD pass counts, warnings); then a section per case that did not pass
 * with its requirements, expected vs received and its transcript.
 */
import type { Level } from '../../suites/framework/outcome.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { OutcomeCounts } from '../profile-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import { attemptTranscripts, didNotPass, requirementLine } from './case-story.ts';
import type { CaseFailure, ConformanceReport, ProfileStatement } from './conformance-report.ts';
import type { ReportFile } from './report-file.ts';

/** A fence longer than any backtick run inside, so transcripts cannot close their code block. */
function codeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline code that survives backticks in the content. */
function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${text}${fence === '``' ? ' ' : ''}${fence}`;
}

/** Markdown inline text: characters that would start markup or break a table cell are escaped. */
function inline(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (char) => `\\${char}`).replace(/\s*\n\s*/g, ' ');
}

function passCount(counts: OutcomeCounts): string {
  const decided = counts.passed + counts.failed + counts.cantTell;
  return decided === 0 ? 'none run' : `${String(counts.passed)}/${String(decided)} passed`;
}

function verdictWord(profile: ProfileStatement): string {
  switch (profile.verdict) {
    case 'passed':
      return '**PASSED**';
    case 'failed':
      return '**FAILED**';
    case 'no-cases':
      return '**NOT ASSESSED** (no case of it ran)';
    case 'not-claimed':
      return 'not claimed';
  }
}

function profileSentence(profile: ProfileStatement): string {
  const ran = Object.values(profile.counts).some((counts) => counts.passed + counts.failed + counts.cantTell > 0);
  if (!profile.claimed && !ran) return `- **${inline(profile.title)}** (${code(profile.id)}): not claimed.`;
  const level = (name: Level) => `${name} ${passCount(profile.counts[name])}`;
  const parts = [level('MUST'), level('SHOULD')];
  if (profile.warnings > 0) parts.push(`${String(profile.warnings)} with warnings`);
  if (profile.expectedFailures > 0) parts.push(`${String(profile.expectedFailures)} baselined failures`);
  // The runner's verdict stands; a pass that no decided case backs says so (e.g. a --grep run).
  if (profile.claimed && profile.verdict === 'passed' && !ran) parts.push('no case of it ran');
  const failing = profile.failingCases.length > 0 ? `; failing: ${profile.failingCases.map(code).join(', ')}` : '';
  return `- **${inline(profile.title)}** (${code(profile.id)}, ${profile.claimed ? 'claimed' : 'not claimed'}): ${verdictWord(profile)} — ${parts.join(', ')}${failing}.`;
}

function failureSection(failure: CaseFailure, caseResult: CaseResult | undefined): string {
  const heading = failure.flaky ? 'FLAKY' : failure.outcome === 'failed' ? 'FAILED' : 'UNDECIDED';
  const lines = [
    `### ${code(failure.case)}: ${heading} [${failure.level}]`,
    '',
    inline(failure.statement),
    '',
    `- Spec: [#${failure.section}](${failure.specUrl})`,
    `- Profiles: ${failure.profiles.map(code).join(', ')}`,
    `- Seed: ${String(failure.seed)} (case), attempts: ${String(failure.attempts)}`,
    `- Requirements:`,
    ...failure.requirements.map((requirement) => `  - ${inline(requirementLine(requirement))}`),
  ];
  if (failure.violation !== undefined) {
    lines.push(
      `- Violated: ${code(failure.violation.requirement)}`,
      '',
      'Expected:',
      '',
      codeBlock(failure.violation.expected),
      '',
      'Received:',
      '',
      codeBlock(failure.violation.received),
    );
  } else if (failure.reason !== undefined) {
    lines.push(`- Reason: ${inline(failure.reason)}`);
  }
  if (failure.flaky && failure.reason !== undefined && failure.violation !== undefined) {
    lines.push('', `Flaky: ${inline(failure.reason)}`);
  }
  lines.push('', `Transcript ([${failure.transcript}](${failure.transcript})):`, '');
  lines.push(codeBlock(caseResult === undefined ? '(no transcript)' : attemptTranscripts(caseResult), 'text'));
  return lines.join('\n');
}

export function conformanceMarkdown(report: ConformanceReport, result: RunResult): string {
  const subject = `${report.subject.name}${report.subject.version === undefined ? '' : ` ${report.subject.version}`}`;
  const claimed = report.profiles.filter((profile) => profile.claimed);
  const verdict = report.passed
    ? `**PASSED**: every claimed profile passed.`
    : `**FAILED**: ${claimed.filter((p) => p.verdict !== 'passed').length > 0 ? `not every claimed profile passed` : 'the baseline is out of date'}.`;
  const identity: [string, string][] = [
    ['Implementation', inline(subject)],
    ...(report.subject.homepage === undefined ? [] : [['Homepage', report.subject.homepage] as [string, string]]),
    ['Gateway JID', code(report.subject.gatewayJid)],
    ['Claimed profiles', report.subject.claimedProfiles.map(code).join(', ') || 'none'],
    ['Specification', `[${inline(report.spec.title)}](${report.spec.url}) ${report.spec.revision}`],
    ['Suite', `${report.suite.name} ${report.suite.version}`],
    ['Run', `${code(report.runId)}, started ${report.runDate}, ${(report.durationMs / 1000).toFixed(1)} s`],
    ['Seed', `${String(report.seed)} (replay: ${code(`agentconf run --seed ${String(report.seed)}`)})`],
    ['Mode', `${report.strict ? 'strict (SHOULD failures count)' : 'default (SHOULD failures are warnings)'}, ${report.provider} federation`],
  ];
  const totals = report.totals;
  const lines = [
    `# Conformance statement: ${inline(subject)}`,
    '',
    `${verdict} ${String(totals.cases)} cases: ${String(totals.passed)} passed, ${String(totals.failed)} failed, ${String(totals.cantTell)} undecided (${String(totals.flaky)} flaky), ${String(totals.inapplicable)} inapplicable, ${String(totals.untested)} not claimed.`,
    '',
    '| | |',
    '|---|---|',
    ...identity.map(([name, value]) => `| ${name} | ${value} |`),
    '',
    '## Profiles',
    '',
    ...report.profiles.map(profileSentence),
  ];
  if (report.staleBaseline.length > 0 || report.unknownBaseline.length > 0) {
    lines.push('', '## Baseline', '');
    if (report.staleBaseline.length > 0) {
      lines.push(`- These cases pass now; remove them from the baseline: ${report.staleBaseline.map(code).join(', ')}`);
    }
    if (report.unknownBaseline.length > 0) {
      lines.push(`- The baseline names unknown cases: ${report.unknownBaseline.map(code).join(', ')}`);
    }
  }
  if (report.warnings.length > 0) {
    lines.push('', '## Warnings', '');
    lines.push(
      ...report.warnings.map(
        (warning) => `- ${code(warning.case)}: ${code(warning.requirement)}: ${inline(warning.message)}`,
      ),
    );
  }
  lines.push('', '## Cases that did not pass', '');
  if (report.failures.length === 0) lines.push('None.');
  const byId = new Map(result.cases.filter(didNotPass).map((caseResult) => [caseResult.case.id, caseResult]));
  for (const failure of report.failures) lines.push(failureSection(failure, byId.get(failure.case)), '');
  lines.push(
    '',
    '## Other reports',
    '',
    ...Object.entries(report.reports).map(([name, path]) => `- ${name}: [${path}](${path})`),
    '',
  );
  return lines.join('\n');
}

export function conformanceMarkdownFile(report: ConformanceReport, result: RunResult): ReportFile {
  return { path: 'conformance.md', content: conformanceMarkdown(report, result) };
}
