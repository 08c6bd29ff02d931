import { describe, expect, it } from 'vitest';
import { unconfirmedItemReason } from '../suites/fixtures/reference-world.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import { requirement } from '../suites/registry/registry.ts';
import { syntheticRunResult } from './reports/test-support/synthetic-run.ts';
import { describeFailure, terminalProgress } from './terminal-report.ts';

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

describe('describeFailure: the requirement beside the case', () => {
  it("shows each cited requirement's registry summary and spec sentence", () => {
    const [first] = syntheticRunResult({ allPass: true }).cases;
    if (first === undefined) throw new Error('no case');
    const output = describeFailure({ ...first, outcome: 'failed' });
    for (const id of first.case.requirements) {
      const entry = requirement(id);
      expect(output).toContain(`${id} (${entry.level}): ${entry.summary}`);
      for (const source of entry.sources)
        expect(output).toContain(`#${source.anchor}, sentence ${source.sentence}`);
    }
  });
});
