import { describe, expect, it } from 'vitest';

import { FEATURE } from '../protocol/namespaces.ts';
import { ALL_SUITES } from '../suites/index.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import { companyOf, whyAlone } from './case-concurrency.ts';

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
      [{ requirements: ['security.rate-limits'] }, /rate limit/],
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

describe('companyOf', () => {
  const { alongside: _, ...UNDECLARED } = READER;
  const TASK: ConformanceCase = { ...UNDECLARED, profiles: ['task-execution'] };

  it('lets a reader run beside anything, and a task case beside readers only', () => {
    expect(companyOf(READER)).toBe('any');
    expect(companyOf(TASK)).toBe('readers');
    expect(companyOf({ ...TASK, profiles: ['core-directory', 'interactive-tasks'] })).toBe('readers');
  });

  it('keeps a task case alone for any other reason, or when it declares alongside: false', () => {
    const declared: Partial<ConformanceCase>[] = [
      { scenario: 'timing' },
      { scenario: 'race' },
      { scenario: 'crash' },
      { scenario: 'link-fault' },
      { needs: ['libfiu'] },
      { requirements: ['rules.resource-bounds', 'security.rate-limits'] },
      { profiles: ['task-execution', 'self-registration'] },
      { features: [FEATURE.admin] },
      { profiles: ['task-execution', 'human-messaging'] },
      { alongside: false },
    ];
    for (const declaration of declared) expect(companyOf({ ...TASK, ...declaration })).toBe('none');
  });

  it('keeps alone a case that is neither a reader nor a task case', () => {
    expect(companyOf(UNDECLARED)).toBe('none');
    expect(companyOf({ ...READER, profiles: ['self-registration'] })).toBe('none');
  });
});
