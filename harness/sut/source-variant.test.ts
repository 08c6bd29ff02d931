import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  existsSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPatch, buildSourceVariant, PatchDoesNotApply, type DiffPatch } from './source-variant.ts';
import { parseUnifiedDiff } from './unified-diff.ts';

const source = mkdtempSync(join(tmpdir(), 'agentconf-variant-source-'));
mkdirSync(join(source, 'src'));
mkdirSync(join(source, 'node_modules'));
mkdirSync(join(source, 'reports'));
writeFileSync(join(source, 'src', 'a.ts'), 'export const limit = 100;\nexport const name = "a";\n');
writeFileSync(join(source, 'reports', 'old.json'), '{}');

/** A one-line change of `file` as a patch file holds it. */
function lineChange(file: string, from: string, to: string): DiffPatch {
  const [diff] = parseUnifiedDiff(`--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${from}\n+${to}\n`);
  if (diff === undefined) throw new Error('no diff');
  return { ...diff, source: `patches/${file}.patch` };
}

afterAll(() => {
  rmSync(source, { recursive: true, force: true });
});

describe('source variants', () => {
  it('copy the tree without output, link its dependencies, and apply each patch to the copy only', () => {
    const variant = buildSourceVariant(source, {
      name: 'small-limit',
      patches: [lineChange('src/a.ts', 'export const limit = 100;', 'export const limit = 5;')],
      addFiles: { 'src/extra.ts': 'export {};\n' },
    });
    try {
      expect(readFileSync(join(variant.root, 'src', 'a.ts'), 'utf8')).toContain('limit = 5');
      expect(readFileSync(join(source, 'src', 'a.ts'), 'utf8')).toContain('limit = 100');
      expect(existsSync(join(variant.root, 'src', 'extra.ts'))).toBe(true);
      expect(existsSync(join(variant.root, 'reports'))).toBe(false);
      expect(lstatSync(join(variant.root, 'node_modules')).isSymbolicLink()).toBe(true);
    } finally {
      variant.remove();
    }
    expect(existsSync(variant.root)).toBe(false);
  });

  it('refuse a patch that no longer applies or names a missing file, and leave nothing behind', () => {
    const before = readdirSync(tmpdir()).filter((entry) => entry.startsWith('agentconf-variant-stale-'));
    expect(() =>
      buildSourceVariant(source, {
        name: 'stale',
        patches: [lineChange('src/a.ts', 'export const limit = 7;', '')],
      }),
    ).toThrow(PatchDoesNotApply);
    expect(readdirSync(tmpdir()).filter((entry) => entry.startsWith('agentconf-variant-stale-'))).toEqual(
      before,
    );
    expect(() =>
      buildSourceVariant(source, {
        name: 'missing',
        patches: [lineChange('src/b.ts', 'x', '')],
      }),
    ).toThrow(/src\/b.ts does not exist/);
  });

  it('apply a diff patch with tolerance, and name its file and hunk when it no longer applies', () => {
    const [diff] = parseUnifiedDiff(
      '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-export const limit = 100;\n+export const limit = 5;\n export const name = "a";\n',
    );
    if (diff === undefined) throw new Error('no diff');
    const patch: DiffPatch = { ...diff, source: 'patches/small-limit.patch' };
    const variant = buildSourceVariant(source, { name: 'small-limit', patches: [patch] });
    try {
      expect(readFileSync(join(variant.root, 'src', 'a.ts'), 'utf8')).toBe(
        'export const limit = 5;\nexport const name = "a";\n',
      );
    } finally {
      variant.remove();
    }
    expect(applyPatch('export   const limit =\n  100;\nexport const name = "a";', patch, 'v')).toContain(
      'limit = 5;',
    );
    expect(() => applyPatch('export const limit = 7;\nexport const name = "a";\n', patch, 'v')).toThrow(
      'variant v: patches/small-limit.patch, hunk 1 of src/a.ts (@@ -1,2 +1,2 @@): its text no longer occurs (whitespace aside): "export const limit = 100;"',
    );
  });
});
