/**
 * Issue 22 item 5: a profile passes only when every testable MUST of it was decided by a case
 * counted toward it. The reference gateway must therefore pass each profile it claims when it
 * claims that profile alone (with the ones it builds on): no case of the profile may lean on
 * another claim — an administrator that only an Administrative Provisioning claim used to make
 * usable, a registrant only Self Registration provides — and no requirement of the profile may
 * be left to cases of other profiles. One run per profile, from the reference SUT file with its
 * `profiles` narrowed; everything else (the administrator, the fixture world) stays.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { withImpliedProfiles, type ProfileId } from '../protocol/profiles.ts';
import { describeRun, unpassedClaims, verdictOf } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const REFERENCE_SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json');
const reference = JSON.parse(readFileSync(REFERENCE_SUT, 'utf8')) as {
  profiles: ProfileId[];
  launch: { cwd: string };
};
const folder = mkdtempSync(join(tmpdir(), 'agentconf-single-profile-'));

/** The reference SUT file claiming `profile` alone, its launch still run in the repository. */
function claimingOnly(profile: ProfileId): string {
  const file = join(folder, `${profile}.json`);
  const config = { ...reference, profiles: [profile], launch: { ...reference.launch, cwd: REPO_ROOT } };
  delete (config as { $schema?: string }).$schema;
  writeFileSync(file, JSON.stringify(config));
  return file;
}

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe.each(reference.profiles)('the reference gateway claiming only %s', (profile) => {
  const run = useVariantRun({ name: `only-${profile}`, sutFile: claimingOnly(profile) });

  it('passes it and every profile it builds on, and claims nothing else', () => {
    const claimed = run()
      .result.profiles.filter((verdict) => verdict.claimed)
      .map((verdict) => verdict.profile);
    expect(claimed).toEqual(withImpliedProfiles([profile]));
    expect(unpassedClaims(run()), describeRun(run())).toEqual([]);
    expect(verdictOf(run(), profile).undecidedRequirements).toBeUndefined();
    expect(run().result.passed).toBe(true);
    expect(run().result.partial).toBe(false);
  });
});
