/**
 * What a person watching the run sees: one line per section as it completes (a mark per case),
 * every failure in full right after its section (requirement, expected, received, transcript),
 * and at the end a table per profile with MUST and SHOULD counts and the verdict.
 */
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { Outcome } from '../suites/framework/outcome.ts';
import { textTable } from './text-table.ts';
import type { RunProgress } from './run-conformance.ts';
import type { RunResult } from './run-result.ts';
import type { ProfileVerdict } from './profile-verdicts.ts';

const MARKS: Readonly<Record<Outcome, string>> = {
  passed: '.',
  failed: 'F',
  cantTell: '?',
  inapplicable: '-',
  untested: ' ',
};

function indent(text: string, prefix = '      '): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

/** The full story of one case that did not pass, as printed and as attached to reports. */
export function describeFailure(result: CaseResult): string {
  const last = result.attempts.at(-1);
  const lines = [
    `  ${result.flaky ? 'FLAKY' : result.outcome.toUpperCase()} ${result.case.id} [${result.case.level}] (seed ${String(result.seed)})`,
    `    requirement: ${result.case.requirements.join(', ')} — ${result.case.statement}`,
    `    spec: #${result.case.section}`,
  ];
  if (result.case.interpretations !== undefined && result.case.interpretations.length > 0) {
    lines.push(`    interpretations: ${result.case.interpretations.join(', ')} (docs/interpretations.md)`);
  }
  if (last?.violation !== undefined) {
    lines.push(
      `    violated: ${last.violation.requirement}`,
      `    expected:`,
      indent(last.violation.expected),
      `    received:`,
      indent(last.violation.received),
    );
  } else if (result.reason !== undefined) {
    lines.push(`    reason: ${result.reason}`);
  }
  if (last !== undefined) lines.push('    transcript:', indent(last.transcriptText));
  return lines.join('\n');
}

export function terminalProgress(write: (text: string) => void, verbose = false): RunProgress {
  return {
    sectionStarted(section) {
      write(`#${section.padEnd(28)} `);
    },
    caseFinished(result) {
      write(result.flaky ? 'f' : MARKS[result.outcome]);
    },
    sectionFinished(_, results) {
      const count = (outcome: Outcome): number =>
        results.filter((result) => result.outcome === outcome).length;
      const parts = [`${String(count('passed'))}/${String(results.length)} passed`];
      if (count('failed') > 0) parts.push(`${String(count('failed'))} failed`);
      if (count('cantTell') > 0) parts.push(`${String(count('cantTell'))} undecided`);
      if (count('inapplicable') > 0) parts.push(`${String(count('inapplicable'))} inapplicable`);
      if (count('untested') > 0) parts.push(`${String(count('untested'))} not claimed`);
      write(`  ${parts.join(', ')}\n`);
      for (const result of results) {
        const shown = result.outcome === 'failed' || result.outcome === 'cantTell';
        if (shown || (verbose && result.outcome !== 'passed')) write(`${describeFailure(result)}\n`);
      }
    },
    schemaFailures(results) {
      write(
        `\nschema checks of the whole run: ${String(results.length)} case(s) received invalid elements\n`,
      );
      for (const result of results) write(`${describeFailure(result)}\n`);
    },
  };
}

function countsCell(verdict: ProfileVerdict, level: 'MUST' | 'SHOULD'): string {
  const counts = verdict.counts[level];
  const decided = counts.passed + counts.failed + counts.cantTell;
  return decided === 0 ? '-' : `${String(counts.passed)}/${String(decided)}`;
}

/** The closing summary: one row per profile, then the run's verdict. */
export function summaryTable(run: RunResult): string {
  const rows = [
    ['profile', 'claimed', 'MUST', 'SHOULD', 'warnings', 'verdict'],
    ...run.profiles.map((verdict) => [
      verdict.title,
      verdict.claimed ? 'yes' : 'no',
      countsCell(verdict, 'MUST'),
      countsCell(verdict, 'SHOULD'),
      String(verdict.warnings),
      verdict.verdict === 'not-claimed'
        ? '-'
        : verdict.verdict === 'no-cases'
          ? 'NOT ASSESSED (no case ran)'
          : verdict.verdict === 'passed'
            ? `PASS${verdict.expectedFailures > 0 ? ` (${String(verdict.expectedFailures)} baselined)` : ''}`
            : `FAIL (${verdict.failingCases.join(', ')})`,
    ]),
  ];
  const flaky = run.cases.filter((result) => result.flaky).length;
  const lines = [
    '',
    textTable(rows, '').join('\n'),
    '',
    `${String(run.cases.length)} cases in ${(run.durationMs / 1000).toFixed(1)} s (setup ${(run.setupMs / 1000).toFixed(1)} s), seed ${String(run.seed)}${run.strict ? ', strict' : ''}${flaky > 0 ? `, ${String(flaky)} flaky` : ''}`,
  ];
  if (run.staleBaseline.length > 0) {
    lines.push(`stale baseline: these cases pass now, remove them: ${run.staleBaseline.join(', ')}`);
  }
  if (run.unknownBaseline.length > 0) {
    lines.push(`baseline names unknown cases: ${run.unknownBaseline.join(', ')}`);
  }
  lines.push(`${run.subject.name}: ${run.passed ? 'every claimed profile PASSED' : 'FAILED'}`);
  return `${lines.join('\n')}\n`;
}
