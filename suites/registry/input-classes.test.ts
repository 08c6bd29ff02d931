import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { ALL_CALLER_SUITES } from '../caller/index.ts';
import { ALL_SUITES } from '../index.ts';
import { runCoverageCli } from './coverage-cli.ts';
import {
  classCoverageOf,
  formatClassCoverage,
  inputClassesFromJson,
  InputClassesError,
  loadInputClasses,
} from './input-classes.ts';
import { committedRegistry } from './registry.ts';

const registry = committedRegistry();
const cases = [
  ...ALL_SUITES.flatMap((suite) => suite.cases),
  ...ALL_CALLER_SUITES.flatMap((suite) => suite.cases),
];

function document(requirements: Record<string, unknown>): JsonValue {
  return { description: 'test classes', requirements } as unknown as JsonValue;
}

function problems(value: JsonValue, citing = cases): string {
  try {
    inputClassesFromJson(value, 'test.json', registry, citing);
  } catch (error) {
    if (error instanceof InputClassesError) return error.message;
    throw error;
  }
  return '';
}

const twoClasses = (first: string[], second: string[] = []) => ({
  classes: [
    { id: 'at-bound', kind: 'bound', summary: 'Exactly at the bound.', cases: first },
    { id: 'above-bound', kind: 'bound', summary: 'One past the bound.', cases: second },
  ],
});

describe('input classes', () => {
  it('the committed map holds only testable MUST requirements, and cases that cite them', () => {
    const classes = loadInputClasses(registry, cases);
    expect(classes.length).toBeGreaterThan(50);
    for (const inputClass of classes) {
      const entry = registry.requirement(inputClass.requirement);
      expect(entry.level).toBe('MUST');
      expect(entry.testability.kind).not.toBe('not-testable');
    }
  });

  it('refuses a case claiming a class of a requirement it does not cite', () => {
    const message = problems(
      document({
        'security.rate-limits': twoClasses(['security.rate-limit-enforced'], ['rules.task-capacity']),
      }),
    );
    expect(message).toMatch(/case "rules\.task-capacity" does not cite security\.rate-limits/);
    expect(message).not.toMatch(/rate-limit-enforced/);
  });

  it('refuses unknown requirements and cases, SHOULD requirements and a class named twice', () => {
    const same = { id: 'twice', kind: 'principal', summary: 'A principal of some kind.', cases: [] };
    const message = problems(
      document({
        'security.no-such-thing': twoClasses([]),
        'find-gateway.server-lists-gateway': twoClasses([]),
        'rules.resource-bounds': twoClasses(['rules.no-such-case']),
        'rules.uniform-visibility': { classes: [same, same] },
      }),
    );
    expect(message).toMatch(/security\.no-such-thing: no such requirement/);
    expect(message).toMatch(/classes are for testable MUST requirements \(this is a SHOULD/);
    expect(message).toMatch(/no case "rules\.no-such-case"/);
    expect(message).toMatch(/class "twice" appears twice/);
    expect(problems(document({ 'rules.resource-bounds': { classes: [same] } }))).toMatch(
      /classes.*(fewer than 2|at least 2)/,
    );
  });

  it('reports every class without a case, and the totals', () => {
    const classes = inputClassesFromJson(
      document({ 'rules.resource-bounds': twoClasses(['rules.task-capacity']) }),
      'test.json',
      registry,
      cases,
    );
    const report = classCoverageOf(classes);
    expect(report.uncovered.map((inputClass) => inputClass.id)).toEqual(['above-bound']);
    const text = formatClassCoverage(report);
    expect(text).toMatch(
      /^input classes without a case:\nrules\.resource-bounds {2}bound {2}above-bound {2}One past/,
    );
    expect(text).toMatch(
      /1 of 2 input classes of 1 MUST requirements are exercised .*; 1 are not, in 1 requirements/,
    );
  });

  it('is a section of npm run registry:coverage', () => {
    let out = '';
    const code = runCoverageCli([], { stdout: (text) => (out += text), stderr: () => undefined });
    expect(code).toBe(0);
    expect(out).toMatch(/\ninput classes without a case:\n/);
    expect(out).toMatch(/security\.rate-limits +surface +surface-progress-events/);
  });
});
