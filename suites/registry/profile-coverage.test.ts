import { describe, expect, it } from 'vitest';
import { WIRE_CHECK_REQUIREMENTS } from '../framework/wire-checks.ts';
import { ALL_SUITES } from '../index.ts';
import { knownProfileGaps, profileGaps } from './profile-coverage.ts';
import { committedRegistry } from './registry.ts';

const key = (gap: { profile: string; requirement: string }): string => `${gap.profile} ${gap.requirement}`;

describe('every testable MUST of each profile, cited by a MUST case counted toward that profile', () => {
  const found = profileGaps(
    committedRegistry(),
    ALL_SUITES.flatMap((suite) => suite.cases),
    WIRE_CHECK_REQUIREMENTS,
  ).map(key);
  const known = knownProfileGaps();

  it('has no gap profile-gaps.json does not list (a case of the profile must decide it)', () => {
    expect(found.filter((gap) => !known.map(key).includes(gap))).toEqual([]);
  });

  it('lists no gap that a case now closes (remove the entry)', () => {
    expect(known.map(key).filter((gap) => !found.includes(gap))).toEqual([]);
  });

  it('gives each known gap its reason', () => {
    for (const gap of known) expect(gap.reason.length, key(gap)).toBeGreaterThan(20);
  });

  it('finds a gap in a registry whose MUST only another profile’s case cites', () => {
    const registry = committedRegistry();
    const [first] = registry.requirements.filter(
      (entry) =>
        entry.level === 'MUST' &&
        entry.testability.kind !== 'not-testable' &&
        entry.profiles.includes('human-messaging'),
    );
    if (first === undefined) throw new Error('the registry has a testable Human Messaging MUST');
    const gaps = profileGaps(registry, [
      { level: 'MUST', profiles: ['core-directory'], requirements: [first.id] },
    ]);
    expect(gaps.map(key)).toContain(`human-messaging ${first.id}`);
    const covered = profileGaps(registry, [
      { level: 'MUST', profiles: ['human-messaging'], requirements: [first.id] },
    ]);
    expect(covered.map(key)).not.toContain(`human-messaging ${first.id}`);
    const should = profileGaps(registry, [
      { level: 'SHOULD', profiles: ['human-messaging'], requirements: [first.id] },
    ]);
    expect(should.map(key)).toContain(`human-messaging ${first.id}`);
  });
});
