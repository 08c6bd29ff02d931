import { describe, expect, it } from 'vitest';
import { unconfirmedItemReason } from '../suites/fixtures/reference-world.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import { syntheticRunResult } from './reports/test-support/synthetic-run.ts';
import { terminalProgress } from './terminal-report.ts';

/** A section's results as the terminal sees them when the operator confirmed nothing. */
function sectionOutput(results: readonly CaseResult[]): string {
  let text = '';
  terminalProgress((chunk) => {
    text += chunk;
  }).sectionFinished('rules', results);
  return text;
}

describe('terminalProgress: cases waiting for an operator checklist item', () => {
  const [first, second, third] = syntheticRunResult({ allPass: true }).cases;
  if (first === undefined || second === undefined || third === undefined) throw new Error('too few cases');
  const waiting = (result: CaseResult, item: string): CaseResult => ({
    ...result,
    outcome: 'cantTell',
    reason: unconfirmedItemReason(item),
  });

  it('prints one line per item naming the cases, not each case with its transcript', () => {
    const output = sectionOutput([waiting(first, 'grants'), waiting(second, 'grants'), third]);
    expect(output.split('\n').filter((line) => line.includes('operator checklist item'))).toEqual([
      `  undecided until operator checklist item grants is confirmed (the checklist above; "fixturesConfirmed"): ${first.case.id}, ${second.case.id}`,
    ]);
    expect(output).not.toContain('transcript:');
  });

  it('still prints a case that cannot tell for another reason in full', () => {
    const output = sectionOutput([{ ...first, outcome: 'cantTell', reason: 'the gateway never answered' }]);
    expect(output).toContain('reason: the gateway never answered');
  });
});
