// Issue 21's "reformatting the gateway (prettier) leaves npm test green": every file a mutant
// patches is reformatted in a copy, narrower and wider than the project's printWidth, and every
// patch must still apply there and leave code that parses. Only the patched files are copied:
// no other file can make a patch stale, and formatting the whole gateway would only be slower.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { transformSync } from 'esbuild';
import * as prettier from 'prettier';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { applyPatch } from '../harness/sut/source-variant.ts';
import { MUTANTS } from './catalog.ts';
import { checkPatches } from './judge.ts';

const patchedFiles = [...new Set(MUTANTS.flatMap((mutant) => mutant.patches.map((patch) => patch.file)))];
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

describe('the mutant patches after a reformat of the gateway', () => {
  it.each([80, 140])('apply to the patched files formatted at printWidth %i', async (printWidth) => {
    const { root, changed } = await reformattedCopy(printWidth);
    // The reformat must really move lines, or this would prove nothing.
    expect(changed).toBeGreaterThan(patchedFiles.length / 4);
    for (const mutant of MUTANTS) {
      expect(() => {
        checkPatches(mutant, root);
      }, mutant.name).not.toThrow();
      const texts = new Map<string, string>();
      for (const patch of mutant.patches) {
        const text = texts.get(patch.file) ?? readFileSync(join(root, patch.file), 'utf8');
        texts.set(patch.file, applyPatch(text, patch, mutant.name));
      }
      for (const [file, text] of texts) {
        expect(() => {
          parses(file, text);
        }, `${mutant.name}: ${file}`).not.toThrow();
      }
    }
  });
});
