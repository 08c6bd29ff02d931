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
    requirements: ['gateway-info.identity'],
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
  it('pass a claimed profile whose MUST cases passed, fail it on a MUST failure, and call it incomplete on a cantTell', () => {
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
      verdictOf([...passing, result('a.z', 'cantTell', 'MUST', 'core-directory')], 'core-directory'),
    ).toMatchObject({ verdict: 'incomplete', undecidedCases: ['a.z'] });
    // A failure outweighs an undecided case, and MUST failures are listed before SHOULD ones.
    expect(
      verdictOf(
        [
          ...passing,
          result('a.w', 'failed', 'SHOULD', 'core-directory'),
          result('a.z', 'cantTell', 'MUST', 'core-directory'),
          result('a.v', 'failed', 'MUST', 'core-directory'),
        ],
        'core-directory',
        true,
      ),
    ).toMatchObject({ verdict: 'failed', failingCases: ['a.v', 'a.w'] });
  });

  it('fail a claimed profile on a preflight blocker even when every case passed, with the blocker as reason', () => {
    const results = [result('a.x', 'passed', 'MUST', 'core-directory')];
    const message =
      'Core Directory is claimed, but the gateway does not advertise urn:xmpp:agent-directory:0';
    const verdict = profileVerdicts(results, {
      claimed,
      strict: false,
      blockers: [{ profile: 'core-directory', message }],
    }).find((v) => v.profile === 'core-directory');
    expect(verdict).toMatchObject({ verdict: 'failed', reason: message, blockers: [message] });
  });

  it('count a warning on a passing SHOULD case as a failure under --strict only', () => {
    const warned: CaseResult = {
      ...result('a.s', 'passed', 'SHOULD', 'core-directory'),
      attempts: [
        {
          attempt: 1,
          seed: 1,
          outcome: 'passed',
          durationMs: 1,
          warnings: [{ requirement: 'gateway-info.identity', message: 'slow' }],
          checks: 1,
          decided: ['gateway-info.identity'],
          transcript: { title: 'a.s', startedAt: '2026-12-01T00:00:00Z', entries: [] },
          transcriptText: '',
        },
      ],
    };
    const results = [result('a.x', 'passed', 'MUST', 'core-directory'), warned];
    expect(verdictOf(results, 'core-directory')).toMatchObject({ verdict: 'passed', warnings: 1 });
    expect(verdictOf(results, 'core-directory', true)).toMatchObject({
      verdict: 'failed',
      failingCases: ['a.s'],
    });
  });

  it('count SHOULD failures only under --strict', () => {
    const should = result('a.s', 'failed', 'SHOULD', 'core-directory');
    const results = [result('a.x', 'passed', 'MUST', 'core-directory'), should];
    expect(verdictOf(results, 'core-directory')?.verdict).toBe('passed');
    expect(verdictOf(results, 'core-directory', true)?.verdict).toBe('failed');
    expect(isBlocking(should, false)).toBe(false);
  });

  it('say not-assessed, with the reason, for a claimed profile without a decided MUST case, and not-claimed for the rest', () => {
    const results = [
      result('a.x', 'passed', 'MUST', 'core-directory'),
      { ...result('t.x', 'inapplicable', 'MUST', 'tool-discovery'), reason: 'the SUT does not advertise F' },
    ];
    expect(verdictOf(results, 'tool-discovery')).toMatchObject({
      verdict: 'not-assessed',
      reason: 'none of its 1 MUST case(s) could run (the SUT does not advertise F)',
    });
    expect(verdictOf([], 'tool-discovery')).toMatchObject({
      verdict: 'not-assessed',
      reason: 'no MUST case of it was selected',
    });
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

describe('every testable MUST of a claimed profile decided by a case counted toward it', () => {
  const citing = (
    id: string,
    outcome: Outcome,
    requirement: string,
    level: ConformanceCase['level'] = 'MUST',
  ) => {
    const base = result(id, outcome, level, 'core-directory');
    return { ...base, case: { ...base.case, requirements: [requirement] } } as CaseResult;
  };
  const mustDecide = new Map<ProfileId, readonly string[]>([
    ['core-directory', ['gateway-info.identity', 'list-agents.octet-order']],
  ]);
  const verdict = (results: CaseResult[], partial = false) =>
    profileVerdicts(results, { claimed, strict: false, mustDecide, partial }).find(
      (v) => v.profile === 'core-directory',
    );

  it('passes when each requirement was decided by a passed or failed case of the profile', () => {
    const results = [
      citing('a.x', 'passed', 'gateway-info.identity'),
      citing('a.y', 'passed', 'list-agents.octet-order'),
    ];
    expect(verdict(results)).toMatchObject({ verdict: 'passed' });
    expect(verdict(results)?.undecidedRequirements).toBeUndefined();
  });

  it('is INCOMPLETE naming a requirement no case of it cites, or only a SHOULD case does', () => {
    const results = [
      citing('a.x', 'passed', 'gateway-info.identity'),
      citing('a.s', 'passed', 'list-agents.octet-order', 'SHOULD'),
    ];
    expect(verdict(results)).toMatchObject({
      verdict: 'incomplete',
      undecidedRequirements: ['list-agents.octet-order'],
      reason: '1 MUST requirement(s) no case of it decided: list-agents.octet-order',
    });
  });

  it('leaves a requirement whose cases were all inapplicable, or that a partial run did not select, to the run', () => {
    const results = [
      citing('a.x', 'passed', 'gateway-info.identity'),
      citing('a.y', 'inapplicable', 'list-agents.octet-order'),
    ];
    expect(verdict(results)?.verdict).toBe('passed');
    expect(verdict([citing('a.x', 'passed', 'gateway-info.identity')], true)?.verdict).toBe('passed');
  });

  it('shows the known gaps beside the verdict without changing it', () => {
    const results = [
      citing('a.x', 'passed', 'gateway-info.identity'),
      citing('a.y', 'passed', 'list-agents.octet-order'),
    ];
    const withGaps = profileVerdicts(results, {
      claimed,
      strict: false,
      mustDecide,
      knownGaps: new Map([['core-directory', ['rules.resource-bounds']]]),
    }).find((v) => v.profile === 'core-directory');
    expect(withGaps).toMatchObject({ verdict: 'passed', knownGaps: ['rules.resource-bounds'] });
  });
});
