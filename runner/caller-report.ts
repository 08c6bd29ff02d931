/**
 * The caller suites' live progress on the terminal (docs/caller.md): a line of marks per section
 * with every failure and undecided case in full after it (requirement, expected, received, the
 * transcript of MCP messages and fake-target stanzas).
 */
import type { CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import { mustFirst, type Outcome } from '../suites/framework/outcome.ts';
import type { CallerRunProgress } from './run-callers.ts';
import { describeFailure } from './terminal-report.ts';

const MARKS: Readonly<Record<Outcome, string>> = {
  passed: '.',
  failed: 'F',
  cantTell: '?',
  inapplicable: '-',
  untested: ' ',
};

function tally(results: readonly CallerCaseResult[]): string {
  const count = (outcome: Outcome): number => results.filter((result) => result.outcome === outcome).length;
  const parts = [`${String(count('passed'))}/${String(results.length)} passed`];
  if (count('failed') > 0) parts.push(`${String(count('failed'))} failed`);
  if (count('cantTell') > 0) parts.push(`${String(count('cantTell'))} undecided`);
  if (count('inapplicable') > 0) parts.push(`${String(count('inapplicable'))} inapplicable`);
  return parts.join(', ');
}

/** Progress that prints nothing (--repeat prints one line per repetition instead). */
export const silentCallerProgress: CallerRunProgress = {
  sectionStarted: () => undefined,
  caseFinished: () => undefined,
  sectionFinished: () => undefined,
};

export function callerProgress(write: (text: string) => void): CallerRunProgress {
  return {
    sectionStarted(section) {
      write(`caller #${section.padEnd(21)} `);
    },
    caseFinished(result) {
      write(result.flaky ? 'f' : MARKS[result.outcome]);
    },
    sectionFinished(_, results) {
      write(`  ${tally(results)}\n`);
      for (const result of mustFirst(results)) {
        if (result.outcome === 'failed' || result.outcome === 'cantTell') {
          write(`${describeFailure(result, true)}\n`);
        }
      }
    },
  };
}
