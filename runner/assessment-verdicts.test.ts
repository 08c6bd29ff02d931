// The assessment verdicts (not spec profiles) from caller case results, with the profile words:
// PASSED only on every testable MUST decided and none failed.
import { describe, expect, it } from 'vitest';

import type { CallerCase } from '../suites/caller/framework/caller-case.ts';
import type { CallerCaseResult } from '../suites/caller/framework/run-caller-case.ts';
import type { Outcome } from '../suites/framework/outcome.ts';
import type { AssessmentId } from '../suites/registry/assessments.ts';
import { assessmentsPassed, assessmentVerdicts } from './assessment-verdicts.ts';
import { EVERY_INTERFACE } from '../suites/caller/framework/caller-under-test.ts';

function result(
  id: string,
  requirement: string,
  outcome: Outcome,
  options: { level?: CallerCase['level']; assessment?: AssessmentId } = {},
): CallerCaseResult {
  return {
    case: {
      id,
      section: 'invocation',
      requirements: [requirement] as unknown as CallerCase['requirements'],
      assessments: [options.assessment ?? 'caller-side'],
      level: options.level ?? 'MUST',
      statement: 'a statement',
      interfaces: EVERY_INTERFACE,
      run: () => Promise.resolve(),
    },
    outcome,
    seed: 1,
    flaky: false,
    ...(outcome === 'passed' ? {} : { reason: `${id} ${outcome}` }),
    attempts: [],
  };
}

const MUSTS = new Map<AssessmentId, readonly string[]>([
  ['caller-side', ['invocation.a', 'events.b']],
  ['mcp-bridge', []],
]);

function verdictOf(results: readonly CallerCaseResult[], partial = false) {
  const verdicts = assessmentVerdicts(results, {
    run: new Set<AssessmentId>(['caller-side']),
    mustDecide: MUSTS,
    partial,
  });
  return { callerSide: verdicts.find((v) => v.assessment === 'caller-side'), verdicts };
}

describe('assessment verdicts', () => {
  it('pass when every testable MUST was decided by a passing MUST case, and say they are not profiles', () => {
    const { callerSide, verdicts } = verdictOf([
      result('invocation.one', 'invocation.a', 'passed'),
      result('events.two', 'events.b', 'passed'),
    ]);
    expect(callerSide).toMatchObject({ verdict: 'passed', notASpecProfile: true, title: 'Caller side' });
    expect(verdicts.find((v) => v.assessment === 'mcp-bridge')?.verdict).toBe('not-run');
    expect(assessmentsPassed(verdicts)).toBe(true);
  });

  it('fail on a failed MUST case, whatever else passed', () => {
    const { callerSide, verdicts } = verdictOf([
      result('invocation.one', 'invocation.a', 'failed'),
      result('events.two', 'events.b', 'passed'),
    ]);
    expect(callerSide?.verdict).toBe('failed');
    expect(callerSide?.failingCases).toEqual(['invocation.one']);
    expect(assessmentsPassed(verdicts)).toBe(false);
  });

  it('are incomplete when a MUST case could not tell, or a MUST of it no case decided', () => {
    expect(
      verdictOf([
        result('invocation.one', 'invocation.a', 'cantTell'),
        result('events.two', 'events.b', 'passed'),
      ]).callerSide?.verdict,
    ).toBe('incomplete');
    const { callerSide, verdicts } = verdictOf([result('invocation.one', 'invocation.a', 'passed')]);
    expect(callerSide).toMatchObject({ verdict: 'incomplete', undecidedRequirements: ['events.b'] });
    expect(assessmentsPassed(verdicts)).toBe(false);
  });

  it('hold no unselected requirement against a partial run, and never count a SHOULD failure unless strict', () => {
    expect(verdictOf([result('invocation.one', 'invocation.a', 'passed')], true).callerSide?.verdict).toBe(
      'passed',
    );
    const should = [
      result('invocation.one', 'invocation.a', 'passed'),
      result('events.two', 'events.b', 'passed'),
      result('events.three', 'events.c', 'failed', { level: 'SHOULD' }),
    ];
    expect(verdictOf(should).callerSide?.verdict).toBe('passed');
    const strict = assessmentVerdicts(should, {
      run: new Set<AssessmentId>(['caller-side']),
      mustDecide: MUSTS,
      strict: true,
    });
    expect(strict.find((v) => v.assessment === 'caller-side')?.verdict).toBe('failed');
  });

  it('are not assessed when no MUST case was decided', () => {
    expect(verdictOf([result('invocation.one', 'invocation.a', 'inapplicable')]).callerSide?.verdict).toBe(
      'not-assessed',
    );
  });

  it('say why an assessment the caller interface cannot be judged on was not run', () => {
    const passing = [
      result('invocation.one', 'invocation.a', 'passed'),
      result('events.two', 'events.b', 'passed'),
    ];
    const verdicts = assessmentVerdicts(passing, {
      run: new Set<AssessmentId>(['caller-side']),
      mustDecide: MUSTS,
      notRunReasons: { 'mcp-bridge': 'a gateway call-out tool speaks no MCP' },
    });
    expect(verdicts.find((v) => v.assessment === 'mcp-bridge')).toMatchObject({
      verdict: 'not-run',
      reason: 'a gateway call-out tool speaks no MCP',
    });
    // Not run is no failure: the run passes on the assessments it could judge.
    expect(assessmentsPassed(verdicts)).toBe(true);
  });
});
