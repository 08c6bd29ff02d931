// The suites as data: every case cites requirements the registry knows, at the registry's level,
// and no two cases share an ID (baselines, --grep and reports key on it).
import { describe, expect, it } from 'vitest';
import type { Suite } from './framework/case.ts';
import { ALL_SUITES } from './index.ts';
import { loadRegistry } from './registry/registry.ts';

const registry = loadRegistry();
const cases = ALL_SUITES.flatMap((suite) => suite.cases);

describe('suites', () => {
  it('have unique case IDs', () => {
    expect(duplicateCaseIds(ALL_SUITES)).toEqual([]);
  });

  it.each(cases.map((testCase) => [testCase.id, testCase] as const))(
    '%s cites registered requirements and has its primary requirement’s level',
    (_, testCase) => {
      for (const id of testCase.requirements) expect(() => registry.requirement(id)).not.toThrow();
      expect(testCase.level).toBe(registry.requirement(testCase.requirements[0]).level);
    },
  );

  it('cite a registered requirement for the wire checks every case runs', () => {
    expect(() => registry.requirement('schema.base-structures-valid')).not.toThrow();
  });

  it('put each case in the section its ID names', () => {
    for (const suite of ALL_SUITES)
      for (const testCase of suite.cases) expect(testCase.id.startsWith(`${suite.section}.`)).toBe(true);
  });
});

/** Every case ID appears once across all suites (baselines and --grep rely on it). */
export function duplicateCaseIds(suites: readonly Suite[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const testCase of suites.flatMap((suite) => suite.cases)) {
    if (seen.has(testCase.id)) duplicates.add(testCase.id);
    seen.add(testCase.id);
  }
  return [...duplicates];
}
