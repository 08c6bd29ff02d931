import { describe, expect, it } from 'vitest';

import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { Level, Outcome } from '../../suites/framework/outcome.ts';
import { INTEROP_SCENARIOS } from '../../suites/interop/scenarios.ts';
import { judgedBySuites } from './scenario-verdicts.ts';

const discovery = INTEROP_SCENARIOS.find((scenario) => scenario.id === 'discovery');
if (discovery === undefined) throw new Error('no discovery scenario');

function result(
  id: string,
  outcome: Outcome,
  requirement = 'list-agents.visibility-filter',
  level: Level = 'MUST',
): CaseResult {
  return {
    case: { id, requirements: [requirement], level },
    outcome,
    seed: 1,
    flaky: false,
    reason: `${id} ${outcome}`,
    attempts:
      outcome === 'failed'
        ? [{ outcome, violation: { requirement, expected: 'x', received: 'y', message: 'm' } }]
        : [],
  } as unknown as CaseResult;
}

describe('interop scenario verdicts', () => {
  it('fails naming the side and the requirement a failed case violated', () => {
    const verdict = judgedBySuites(
      discovery,
      [result('list-agents.a', 'passed'), result('list-agents.b', 'failed', 'list-agents.octet-order')],
      'target B',
    );
    expect(verdict.outcome).toBe('failed');
    expect(verdict.reason).toBe('target B: list-agents.octet-order');
    expect(verdict.failures).toEqual([
      expect.objectContaining({
        side: 'target B',
        requirement: 'list-agents.octet-order',
        caseId: 'list-agents.b',
      }),
    ]);
  });

  it('cannot tell when a case could not, or when no case of it passed', () => {
    expect(
      judgedBySuites(
        discovery,
        [result('list-agents.a', 'passed'), result('list-agents.b', 'cantTell')],
        'target A',
      ).outcome,
    ).toBe('cantTell');
    expect(judgedBySuites(discovery, [result('list-agents.a', 'inapplicable')], 'target A').outcome).toBe(
      'cantTell',
    );
    expect(judgedBySuites(discovery, [result('search.a', 'passed')], 'target A').outcome).toBe('cantTell');
  });

  it('passes on passed cases only, ignoring cases of other scenarios', () => {
    const verdict = judgedBySuites(
      discovery,
      [result('list-agents.a', 'passed'), result('list-agents.b', 'untested'), result('search.c', 'failed')],
      'target A',
    );
    expect(verdict.outcome).toBe('passed');
    expect(verdict.cases.map((entry) => entry.id)).toEqual(['list-agents.a', 'list-agents.b']);
  });

  it('counts a SHOULD case that failed or could not tell as a warning, never as the failure', () => {
    const verdict = judgedBySuites(
      discovery,
      [
        result('list-agents.a', 'passed'),
        result('find-gateway.b', 'failed', 'find-gateway.server-lists-gateway', 'SHOULD'),
      ],
      'target B',
    );
    expect(verdict.outcome).toBe('passed');
    expect(verdict.failures).toEqual([]);
    expect(verdict.warnings).toEqual([
      'target B: find-gateway.server-lists-gateway (SHOULD, find-gateway.b failed: find-gateway.b failed)',
    ]);
    expect(verdict.reason).toContain('not met: target B: find-gateway.server-lists-gateway');
    // Only MUST cases decide: SHOULD cases alone, passed or not, are no evidence for a pass.
    expect(
      judgedBySuites(discovery, [result('find-gateway.b', 'passed', 'find-gateway.x', 'SHOULD')], 'target B')
        .outcome,
    ).toBe('cantTell');
  });
});
