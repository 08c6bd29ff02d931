// The caller suites' declarations against the registry and the gateway suites: unique IDs across
// every suite, each cited requirement a caller one that the case's assessments judge, and every
// requirement an assessment judges cited by a MUST caller case of that assessment.
import { describe, expect, it } from 'vitest';

import { ALL_SUITES } from '../index.ts';
import { committedRegistry } from '../registry/registry.ts';
import { ALL_CALLER_SUITES } from './index.ts';

const callerCases = ALL_CALLER_SUITES.flatMap((suite) => suite.cases);

describe('caller suites', () => {
  it('use case IDs no other case has, gateway cases included', () => {
    const ids = [...ALL_SUITES, ...ALL_CALLER_SUITES].flatMap((suite) => suite.cases.map((c) => c.id));
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('cite caller requirements that the registry assigns to the case’s assessments', () => {
    const registry = committedRegistry();
    for (const testCase of callerCases) {
      for (const id of testCase.requirements) {
        const entry = registry.requirement(id);
        expect(['caller', 'both'], `${testCase.id} cites ${id}`).toContain(entry.role);
        expect(entry.testability.kind, `${id} is decided by ${testCase.id}`).not.toBe('not-testable');
        for (const assessment of testCase.assessments) {
          expect(entry.assessments, `${id} counts toward ${assessment}`).toContain(assessment);
        }
      }
    }
  });

  it('leave no testable requirement of an assessment without a MUST caller case of it', () => {
    const uncited = committedRegistry()
      .requirements.filter((entry) => entry.level === 'MUST' && entry.testability.kind !== 'not-testable')
      .flatMap((entry) => entry.assessments.map((assessment) => ({ id: entry.id, assessment })))
      .filter(
        ({ id, assessment }) =>
          !callerCases.some(
            (testCase) =>
              testCase.level === 'MUST' &&
              testCase.assessments.includes(assessment) &&
              (testCase.requirements as readonly string[]).includes(id),
          ),
      );
    expect(uncited).toEqual([]);
  });

  it('give a caller requirement left not-testable a reason of its own, never that the suite is the caller', () => {
    const stale = committedRegistry().requirements.filter(
      (entry) =>
        entry.role === 'caller' &&
        entry.testability.kind === 'not-testable' &&
        /the caller is the suite|the suite (?:itself )?is the (?:client|caller)|the suite itself|the suite's own|^Caller-side obligation/i.test(
          entry.testability.reason,
        ),
    );
    expect(stale.map((entry) => entry.id)).toEqual([]);
  });
});
