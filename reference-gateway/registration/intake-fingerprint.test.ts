import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { intakeCodeFingerprint, PACKAGES, SOURCE_ROOTS } from './intake-fingerprint.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function packageOf(input: string): string {
  const parts = input.split('node_modules/').at(-1)?.split('/') ?? [];
  return parts[0]?.startsWith('@') === true ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? '');
}

/** A package root holding SOURCE_ROOTS with one file each, and one installed package. */
function tinyPackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'agentconf-fingerprint-'));
  dirs.push(root);
  for (const sourceRoot of SOURCE_ROOTS) {
    mkdirSync(join(root, sourceRoot), { recursive: true });
    writeFileSync(join(root, sourceRoot, 'a.ts'), 'export const a = 1;\n');
  }
  mkdirSync(join(root, 'node_modules', 'saxes'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'saxes', 'package.json'), '{"version":"6.0.0"}');
  return root;
}

describe('the intake code fingerprint', () => {
  it('covers the whole import closure of the intake: every source file and package', async () => {
    const result = await build({
      entryPoints: [join(ROOT, 'reference-gateway/registration/intake-cache.ts')],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const sources = inputs.filter((input) => !input.includes('node_modules/'));
    const outside = sources.filter(
      (input) => !SOURCE_ROOTS.some((sourceRoot) => relative(sourceRoot, input).split('/')[0] !== '..'),
    );
    expect(outside).toEqual([]);
    const packages = new Set(inputs.filter((input) => input.includes('node_modules/')).map(packageOf));
    expect([...packages].filter((name) => !PACKAGES.includes(name))).toEqual([]);
  });

  it('changes with any file under a source root, a package version, and not with a test', () => {
    const root = tinyPackage();
    const before = intakeCodeFingerprint(root);
    expect(intakeCodeFingerprint(root)).toBe(before);
    writeFileSync(join(root, 'protocol', 'b.test.ts'), 'test');
    mkdirSync(join(root, 'protocol', 'test-support'));
    writeFileSync(join(root, 'protocol', 'test-support', 'c.ts'), 'helper');
    expect(intakeCodeFingerprint(root)).toBe(before);
    const seen = new Set([before]);
    for (const sourceRoot of SOURCE_ROOTS) {
      writeFileSync(join(root, sourceRoot, 'a.ts'), `export const a = ${String(seen.size + 1)};\n`);
      seen.add(intakeCodeFingerprint(root));
    }
    writeFileSync(join(root, 'node_modules', 'saxes', 'package.json'), '{"version":"6.0.1"}');
    seen.add(intakeCodeFingerprint(root));
    cpSync(join(root, 'protocol', 'a.ts'), join(root, 'protocol', 'new.ts'));
    seen.add(intakeCodeFingerprint(root));
    expect(seen.size).toBe(SOURCE_ROOTS.length + 3);
  });
});
