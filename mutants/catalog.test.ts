// The catalog as data: big enough, every entry well-formed with exactly one patch file, every
// patch applying to the tree as it is now, every --grep selecting cases, and every claimed profile
// and scenario family covered.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { selectCases } from '../runner/select-cases.ts';
import { SCENARIOS } from '../suites/framework/budget.ts';
import { ALL_SUITES } from '../suites/index.ts';
import { REQUIREMENT_IDS } from '../suites/registry/requirement-ids.ts';
import { MUTANTS } from './catalog.ts';
import { checkPatches } from './judge.ts';
import { BUG_CLASSES } from './mutant.ts';
import { PATCH_FOLDER, patchFileOf, withPatchFile } from './patch-files.ts';

const referenceProfiles = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8')) as {
    profiles: string[];
  }
).profiles;

describe('the mutant catalog', () => {
  it('holds at least 60 mutants with unique kebab-case names', () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(60);
    const names = MUTANTS.map((mutant) => mutant.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it.each(MUTANTS.map((mutant) => [mutant.name, mutant] as const))(
    '%s is well-formed and applies',
    (_, mutant) => {
      expect(mutant.requirements.length > 0 || mutant.falseClaim === true).toBe(true);
      for (const requirement of mutant.requirements) expect(REQUIREMENT_IDS).toContain(requirement);
      expect(BUG_CLASSES).toContain(mutant.bugClass);
      expect(referenceProfiles).toContain(mutant.profile);
      expect(mutant.patches.length).toBeGreaterThan(0);
      if (mutant.equivalent !== undefined) expect(mutant.equivalent.length).toBeGreaterThan(20);
      expect(() => {
        checkPatches(mutant, REPO_ROOT);
      }).not.toThrow();
      const selected = selectCases(ALL_SUITES, { grep: mutant.grep }).flatMap((suite) => suite.cases);
      expect(selected.length, `--grep ${mutant.grep.join(' ')}`).toBeGreaterThan(0);
    },
  );

  it('covers every profile the reference gateway claims and every scenario family', () => {
    expect(new Set(MUTANTS.map((mutant) => mutant.profile))).toEqual(new Set(referenceProfiles));
    expect(new Set(MUTANTS.map((mutant) => mutant.scenario))).toEqual(new Set(SCENARIOS));
  });

  it('has a patch file for every mutant and no patch file without one', () => {
    const files = readdirSync(join(REPO_ROOT, PATCH_FOLDER)).map((file) => `${PATCH_FOLDER}/${file}`);
    expect(files.sort()).toEqual(MUTANTS.map((mutant) => patchFileOf(mutant.name)).sort());
  });

  it('names the mutant and its file when a patch file is missing', () => {
    const [first] = MUTANTS;
    if (first === undefined) throw new Error('the catalog is empty');
    const record = { ...first, name: 'no-such-mutant' };
    expect(() => withPatchFile(record)).toThrow(
      'mutant no-such-mutant: the patch file mutants/patches/no-such-mutant.patch cannot be read',
    );
  });
});
