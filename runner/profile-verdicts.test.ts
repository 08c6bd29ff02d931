import { describe, expect, it } from 'vitest';
import type { ConformanceCase } from '../suites/framework/case.ts';
import type { Outcome } from '../suites/framework/outcome.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { ProfileId } from '../protocol/profiles.ts';
import {
  isBlocking,
  profileVerdicts,
  staleBaselineEntries,
  unknownBaselineEntries,
} from './profile-verdicts.ts';

function result(
  id: string,
  outcome: Outcome,
  level: ConformanceCase['level'],
  profile: ProfileId,
): CaseResult {
  const testCase: ConformanceCase = {
    id,
    section: id.split('.')[0] ?? id,
    requirements: [id],
    profiles: [profile],
    level,
    statement: id,
    run: () => Promise.resolve(),
  };
  return { case: testCase, outcome, seed: 1, flaky: false, attempts: [] };
}

const claimed = new Set<ProfileId>(['core-directory', 'tool-discovery']);
const verdictOf = (
  results: CaseResult[],
  profile: ProfileId,
  strict = false,
  failures: [string, string][] = [],
) =>
  profileVerdicts(results, { claimed, strict, baseline: { expectedFailures: new Map(failures) } }).find(
    (v) => v.profile === profile,
  );

describe('profile verdicts', () => {
  it('pass a claimed profile whose MUST cases passed, and fail it on a MUST failure or cantTell', () => {
    const passing = [
      result('a.x', 'passed', 'MUST', 'core-directory'),
      result('a.y', 'inapplicable', 'MUST', 'core-directory'),
    ];
    expect(verdictOf(passing, 'core-directory')?.verdict).toBe('passed');
    expect(
      verdictOf([...passing, result('a.z', 'failed', 'MUST', 'core-directory')], 'core-directory'),
    ).toMatchObject({
      verdict: 'failed',
      failingCases: ['a.z'],
    });
    expect(
      verdictOf([...passing, result('a.z', 'cantTell', 'MUST', 'core-directory')], 'core-directory')?.verdict,
    ).toBe('failed');
  });

  it('count SHOULD failures only under --strict', () => {
    const should = result('a.s', 'failed', 'SHOULD', 'core-directory');
    const results = [result('a.x', 'passed', 'MUST', 'core-directory'), should];
    expect(verdictOf(results, 'core-directory')?.verdict).toBe('passed');
    expect(verdictOf(results, 'core-directory', true)?.verdict).toBe('failed');
    expect(isBlocking(should, false)).toBe(false);
  });

  it('say no-cases for a claimed profile without a decided MUST case, and not-claimed for the rest', () => {
    const results = [result('a.x', 'passed', 'MUST', 'core-directory')];
    expect(verdictOf(results, 'tool-discovery')?.verdict).toBe('no-cases');
    expect(verdictOf(results, 'task-execution')?.verdict).toBe('not-claimed');
  });

  it('excuse baselined failures, and report stale and unknown baseline entries', () => {
    const results = [
      result('a.x', 'passed', 'MUST', 'core-directory'),
      result('a.z', 'failed', 'MUST', 'core-directory'),
    ];
    expect(verdictOf(results, 'core-directory', false, [['a.z', 'known']])).toMatchObject({
      verdict: 'passed',
      expectedFailures: 1,
    });
    const baseline = {
      expectedFailures: new Map([
        ['a.x', 'was broken'],
        ['gone.case', 'removed'],
      ]),
    };
    expect(staleBaselineEntries(results, baseline)).toEqual(['a.x']);
    expect(unknownBaselineEntries(['a.x', 'a.z'], baseline)).toEqual(['gone.case']);
  });
});
