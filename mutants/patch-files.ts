/**
 * Where each mutant's change lives: mutants/patches/<name>.patch, a unified diff against the
 * tree (as `git diff` writes it, so `git apply` takes it too), read into the tolerant diff
 * patches of harness/sut/source-variant.ts. Diffs instead of exact source strings, so that a
 * reformat of the gateway does not break the catalog.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/repo-root.ts';
import type { DiffPatch } from '../harness/sut/source-variant.ts';
import { parseUnifiedDiff } from '../harness/sut/unified-diff.ts';
import type { Mutant, MutantRecord } from './mutant.ts';

/** The folder of the patch files, relative to the repository root. */
export const PATCH_FOLDER = 'mutants/patches';

/** The patch file of the mutant called `name`, relative to the repository root. */
export function patchFileOf(name: string): string {
  return `${PATCH_FOLDER}/${name}.patch`;
}

/** The mutant `record` describes, with the patches its file holds; throws naming a missing or malformed file. */
export function withPatchFile(record: MutantRecord, root: string = REPO_ROOT): Mutant {
  const source = patchFileOf(record.name);
  let text: string;
  try {
    text = readFileSync(join(root, source), 'utf8');
  } catch (error) {
    throw new Error(`mutant ${record.name}: its patch file ${source} cannot be read`, { cause: error });
  }
  let patches: DiffPatch[];
  try {
    patches = parseUnifiedDiff(text).map((diff) => ({ ...diff, source }));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`mutant ${record.name}: ${source}: ${why}`, { cause: error });
  }
  if (patches.length === 0) throw new Error(`mutant ${record.name}: ${source} holds no diff`);
  return { ...record, patches };
}
