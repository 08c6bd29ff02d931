import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPatch, buildSourceVariant, PatchDoesNotApply } from './source-variant.ts';

const source = mkdtempSync(join(tmpdir(), 'agentconf-variant-source-'));
mkdirSync(join(source, 'src'));
mkdirSync(join(source, 'node_modules'));
mkdirSync(join(source, 'reports'));
writeFileSync(join(source, 'src', 'a.ts'), 'export const limit = 100;\nexport const name = "a";\n');
writeFileSync(join(source, 'reports', 'old.json'), '{}');

afterAll(() => {
  rmSync(source, { recursive: true, force: true });
});

describe('source variants', () => {
  it('copy the tree without output, link its dependencies, and apply each patch to the copy only', () => {
    const variant = buildSourceVariant(source, {
      name: 'small-limit',
      patches: [{ file: 'src/a.ts', find: 'limit = 100', replace: 'limit = 5' }],
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

  it('refuse a patch whose text no longer occurs or occurs twice, and leave nothing behind', () => {
    expect(() => applyPatch('a a', { file: 'f', find: 'a', replace: 'b' }, 'v')).toThrow(
      /occurs more than once/,
    );
    expect(() =>
      buildSourceVariant(source, {
        name: 'stale',
        patches: [{ file: 'src/a.ts', find: 'limit = 7', replace: '' }],
      }),
    ).toThrow(PatchDoesNotApply);
    expect(() =>
      buildSourceVariant(source, {
        name: 'missing',
        patches: [{ file: 'src/b.ts', find: 'x', replace: '' }],
      }),
    ).toThrow(/src\/b.ts does not exist/);
  });
});
