/**
 * Where each mutant's change lives: mutants/patches/<name>.patch, a patch file
 * (harness/sut/patch-file.ts).
 */
import { REPO_ROOT } from '../harness/repo-root.ts';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import type { Mutant, MutantRecord } from './mutant.ts';

/** The folder of the patch files, relative to the repository root. */
export const PATCH_FOLDER = 'mutants/patches';

/** The patch file of the mutant called `name`, relative to the repository root. */
export function patchFileOf(name: string): string {
  return `${PATCH_FOLDER}/${name}.patch`;
}

/** The mutant `record` describes, with the patches its file holds; throws naming the mutant and the file. */
export function withPatchFile(record: MutantRecord, root: string = REPO_ROOT): Mutant {
  try {
    return { ...record, patches: readPatchFile(patchFileOf(record.name), root) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`mutant ${record.name}: ${why}`, { cause: error });
  }
}
