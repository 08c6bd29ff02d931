import { describe, expect, it } from 'vitest';
import { syntheticRunResult } from './reports/test-support/synthetic-run.ts';
import type { RunResult } from './run-result.ts';
import { isStable, stabilityOf, stabilityText } from './stability.ts';

/** The synthetic run with one case's outcome replaced. */
function withOutcome(run: RunResult, caseId: string, outcome: 'passed' | 'failed'): RunResult {
  return {
    ...run,
    cases: run.cases.map((result) =>
      result.case.id === caseId ? { ...result, outcome, flaky: false } : result,
    ),
  };
}

describe('--repeat stability', () => {
  const allPass = syntheticRunResult({ allPass: true });
  const caseId = allPass.cases[0]?.case.id ?? '';

  it('calls identical outcomes in every passing repetition stable', () => {
    const report = stabilityOf([allPass, { ...allPass, seed: 2 }]);
    expect(report.repetitions).toBe(2);
    expect(report.cases.find((entry) => entry.id === caseId)).toMatchObject({
      stable: true,
      outcomes: { passed: 2 },
    });
    expect(isStable(report)).toBe(allPass.passed);
  });

  it('names a case whose outcome changed between repetitions, with its counts', () => {
    const report = stabilityOf([allPass, withOutcome(allPass, caseId, 'failed')]);
    const entry = report.cases.find((candidate) => candidate.id === caseId);
    expect(entry).toMatchObject({ stable: false, outcomes: { passed: 1, failed: 1 } });
    expect(isStable(report)).toBe(false);
    expect(stabilityText(report)).toContain('UNSTABLE: 1 case(s)');
    expect(stabilityText(report)).toContain(caseId);
  });
});
