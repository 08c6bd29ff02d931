/**
 * Bugs at the input classes issue 22/25 found no case exercising (suites/registry/input-classes.json):
 * a bound taken as exclusive, a principal or a format a gateway forgets, a terminal path that
 * does not do what the others do. Same shape as catalog.ts, which spreads this list into MUTANTS.
 */
import type { MutantRecord } from './mutant.ts';

export const INPUT_CLASS_MUTANTS: MutantRecord[] = [
  {
    name: 'json-limits-exclusive',
    change:
      'every documented JSON limit of a manifest is taken as exclusive: a manifest exactly at a documented bound is refused with resource-constraint',
    bugClass: 'input-validation',
    requirements: ['json-encoding.documented-limits'],
    profile: 'admin-provisioning',
    scenario: 'bad-input',
    grep: ['json-encoding.at-limit-'],
  },
];
