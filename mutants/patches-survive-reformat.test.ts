// Issue 21's "reformatting the gateway (prettier) leaves npm test green": every file a patch file
// changes (the mutants', the gateway variants', the planted timing leak's) is reformatted in a
// copy, much narrower and much wider than the project's printWidth, and every patch must still
// apply there and leave code that parses. The widths are far from any width a team would pick,
// so that the test still reformats (and still passes) in a tree already reformatted at 80 or 140. Only the patched files are copied: no other file can make a patch
// stale, and formatting the whole gateway would only be slower.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { transformSync } from 'esbuild';
import * as prettier from 'prettier';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import { applyPatch, type DiffPatch } from '../harness/sut/source-variant.ts';

/** Every folder of patch files in the tree. */
const PATCH_FOLDERS = ['mutants/patches', 'integration/variants/patches', 'harness/sut/test-support/patches'];

const patchFiles = new Map<string, readonly DiffPatch[]>(
  PATCH_FOLDERS.flatMap((folder) =>
    readdirSync(join(REPO_ROOT, folder))
      .filter((name) => name.endsWith('.patch'))
      .map((name): [string, readonly DiffPatch[]] => [
        `${folder}/${name}`,
        readPatchFile(`${folder}/${name}`),
      ]),
  ),
);
const patchedFiles = [...new Set([...patchFiles.values()].flat().map((patch) => patch.file))];
const copies: string[] = [];

afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** A copy of the patched files formatted with the project's prettier options but `printWidth`. */
async function reformattedCopy(printWidth: number): Promise<{ root: string; changed: number }> {
  const root = mkdtempSync(join(tmpdir(), `agentconf-reformat-${String(printWidth)}-`));
  copies.push(root);
  let changed = 0;
  for (const file of patchedFiles) {
    const original = readFileSync(join(REPO_ROOT, file), 'utf8');
    const options = await prettier.resolveConfig(join(REPO_ROOT, file));
    const formatted = await prettier.format(original, { ...options, filepath: file, printWidth });
    if (formatted !== original) changed += 1;
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), formatted);
  }
  return { root, changed };
}

/** esbuild's TypeScript parse (what tsx runs the gateway with): throws on a syntax error. */
function parses(file: string, text: string): void {
  transformSync(text, { loader: 'ts', sourcefile: file });
}

describe('the patch files after a reformat of the gateway', () => {
  it('are found in every folder', () => {
    for (const folder of PATCH_FOLDERS) {
      expect(
        [...patchFiles.keys()].some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it.each([60, 160])('apply to the patched files formatted at printWidth %i', async (printWidth) => {
    const { root, changed } = await reformattedCopy(printWidth);
    // The reformat must really move lines, or this would prove nothing.
    expect(changed).toBeGreaterThan(patchedFiles.length / 4);
    for (const [source, patches] of patchFiles) {
      const texts = new Map<string, string>();
      for (const patch of patches) {
        const text = texts.get(patch.file) ?? readFileSync(join(root, patch.file), 'utf8');
        expect(() => texts.set(patch.file, applyPatch(text, patch, source)), source).not.toThrow();
      }
      for (const [file, text] of texts) {
        expect(() => {
          parses(file, text);
        }, `${source}: ${file}`).not.toThrow();
      }
    }
  });
});
