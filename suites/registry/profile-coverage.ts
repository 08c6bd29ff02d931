/**
 * Requirement coverage per profile: a claimed profile passes only on cases counted toward it
 * (runner/profile-verdicts.ts), so a testable MUST of the profile that only cases of other
 * profiles cite is never decided for a gateway claiming that profile alone. These gaps are
 * listed with a reason in profile-gaps.json (a ratchet: profile-coverage.test.ts fails on a new
 * gap and on a closed one still listed), and a run shows them beside the profile's verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILE_IDS, type ProfileId } from '../../protocol/profiles.ts';
import type { Registry } from './registry.ts';

export interface ProfileGap {
  readonly profile: ProfileId;
  readonly requirement: string;
}

export interface KnownProfileGap extends ProfileGap {
  readonly reason: string;
}

/** What a case declares that this check reads. */
interface CitingCase {
  readonly level: string;
  readonly profiles: readonly string[];
  readonly requirements: readonly string[];
}

/**
 * Each profile's testable MUST requirements, less `alsoChecked` (the wire checks every case
 * runs) and those judged by an assessment instead, in registry order.
 */
export function profileMusts(
  registry: Registry,
  alsoChecked: readonly string[] = [],
): ReadonlyMap<ProfileId, readonly string[]> {
  const musts = registry.requirements.filter(
    (entry) =>
      entry.level === 'MUST' &&
      entry.testability.kind !== 'not-testable' &&
      // Decided by caller cases toward an assessment (assessments.ts), never by a profile's cases.
      entry.assessments.length === 0 &&
      !alsoChecked.includes(entry.id),
  );
  return new Map(
    PROFILE_IDS.map((profile) => [
      profile,
      musts.filter((entry) => entry.profiles.includes(profile)).map((entry) => entry.id),
    ]),
  );
}

/** The testable MUSTs of each profile that no MUST case counted toward that profile cites. */
export function profileGaps(
  registry: Registry,
  cases: readonly CitingCase[],
  alsoChecked: readonly string[] = [],
): ProfileGap[] {
  const gaps: ProfileGap[] = [];
  for (const [profile, requirements] of profileMusts(registry, alsoChecked)) {
    const counted = cases.filter(
      (testCase) => testCase.level === 'MUST' && testCase.profiles.includes(profile),
    );
    for (const requirement of requirements) {
      if (!counted.some((testCase) => testCase.requirements.includes(requirement))) {
        gaps.push({ profile, requirement });
      }
    }
  }
  return gaps;
}

export const PROFILE_GAPS_PATH = join(import.meta.dirname, 'profile-gaps.json');

/** The committed list of known gaps. */
export function knownProfileGaps(path: string = PROFILE_GAPS_PATH): KnownProfileGap[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { gaps: KnownProfileGap[] };
  return parsed.gaps;
}

/** One line per gap, grouped by profile, then how many there are; for registry:coverage. */
export function formatProfileGaps(gaps: readonly ProfileGap[]): string {
  if (gaps.length === 0)
    return 'Every testable MUST of each profile is cited by a MUST case counted toward it.\n';
  const lines = gaps.map((gap) => `${gap.profile.padEnd(20)}  ${gap.requirement}`);
  const profiles = new Set(gaps.map((gap) => gap.profile)).size;
  lines.push(
    `${String(gaps.length)} testable MUST requirement(s) of ${String(profiles)} profile(s) are cited by no MUST case counted toward that profile: a gateway claiming it alone never has them decided.`,
  );
  return `${lines.join('\n')}\n`;
}
