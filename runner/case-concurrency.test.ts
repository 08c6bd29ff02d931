import { describe, expect, it } from 'vitest';

import { FEATURE } from '../protocol/namespaces.ts';
import { ALL_SUITES } from '../suites/index.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import { whyAlone } from './case-concurrency.ts';

const READER: ConformanceCase = {
  id: 'list-agents.reader',
  section: 'list-agents',
  requirements: ['list-agents.rsm-paging'],
  profiles: ['core-directory'],
  level: 'MUST',
  statement: 'reads the directory',
  alongside: true,
  run: () => Promise.resolve(),
};

describe('whyAlone', () => {
  it('lets a read-only case that declares it run alongside others', () => {
    expect(whyAlone(READER)).toBeUndefined();
  });

  it('keeps a case that does not say it is safe alone', () => {
    const { alongside: _, ...undeclared } = READER;
    expect(whyAlone(undeclared)).toMatch(/does not declare/);
    expect(whyAlone({ ...READER, alongside: false })).toMatch(/does not declare/);
  });

  it('keeps alone whatever its declaration says: timing, races, faults, tasks, registration, messaging', () => {
    const cases: [Partial<ConformanceCase>, RegExp][] = [
      [{ scenario: 'timing' }, /response times/],
      [{ scenario: 'race' }, /race/],
      [{ scenario: 'crash' }, /crashes/],
      [{ scenario: 'link-fault' }, /links/],
      [{ needs: ['libfiu'] }, /libfiu/],
      [{ profiles: ['task-execution'] }, /task case/],
      [{ profiles: ['core-directory', 'interactive-tasks'] }, /task case/],
      [{ profiles: ['self-registration'] }, /registration/],
      [{ profiles: ['core-directory', 'admin-provisioning'] }, /registration/],
      [{ features: [FEATURE.admin] }, /administrator/],
      [{ profiles: ['human-messaging'] }, /messaging/],
    ];
    for (const [declared, why] of cases) expect(whyAlone({ ...READER, ...declared })).toMatch(why);
  });

  it('lets only discovery cases of the default run alongside others', () => {
    const alongside = ALL_SUITES.flatMap((suite) => suite.cases).filter((testCase) => !whyAlone(testCase));
    expect(alongside.length).toBeGreaterThan(50);
    const profiles = new Set(alongside.flatMap((testCase) => testCase.profiles));
    expect([...profiles].sort()).toEqual(['core-directory', 'jabber-search', 'tool-discovery']);
  });
});
