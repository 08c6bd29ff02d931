/**
 * A patch file: a unified diff against the tree (as `git diff` writes it, so `git apply` takes
 * it too), read into the tolerant diff patches of source-variant.ts. Mutants and the suite's own
 * gateway variants are all written this way rather than as exact source strings, so that a
 * reformat of the gateway does not break them, and a stale one names its file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.ts';
import type { DiffPatch } from './source-variant.ts';
import { parseUnifiedDiff } from './unified-diff.ts';

/** The diffs of `file` (relative to `root`); throws naming a missing, malformed or empty file. */
export function readPatchFile(file: string, root: string = REPO_ROOT): DiffPatch[] {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch (error) {
    throw new Error(`the patch file ${file} cannot be read`, { cause: error });
  }
  let patches: DiffPatch[];
  try {
    patches = parseUnifiedDiff(text).map((diff) => ({ ...diff, source: file }));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`${file}: ${why}`, { cause: error });
  }
  if (patches.length === 0) throw new Error(`${file} holds no diff`);
  return patches;
}
