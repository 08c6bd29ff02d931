import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleOf } from './bundled-import.js';

const made: string[] = [];

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-bundle-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('bundleOf', () => {
  it('bundles a TypeScript entry whose modules keep their own import.meta locations', async () => {
    const dir = project({
      'entry.ts':
        "import { where } from './nested.ts';\nexport const here: string = import.meta.url;\nexport { where };\n",
      'nested.ts': 'export const where: string = import.meta.dirname;\n',
    });
    const bundle = await bundleOf(join(dir, 'entry.ts'), join(dir, 'cache'));
    const loaded = (await import(pathToFileURL(bundle).href)) as { here: string; where: string };
    expect(loaded.here).toBe(pathToFileURL(join(dir, 'entry.ts')).href);
    expect(loaded.where).toBe(dir);
  });

  it('leaves a module reached only by a dynamic import to a chunk loaded when it is imported', async () => {
    const dir = project({
      'entry.ts': "export const later = async (): Promise<string> => (await import('./later.ts')).word;\n",
      'later.ts': "export const word: string = 'loaded-late';\n",
    });
    const bundle = await bundleOf(join(dir, 'entry.ts'), join(dir, 'cache'));
    expect(readFileSync(bundle, 'utf8')).not.toContain('loaded-late');
    const loaded = (await import(pathToFileURL(bundle).href)) as { later: () => Promise<string> };
    await expect(loaded.later()).resolves.toBe('loaded-late');
  });

  it('rebuilds after a file it was built from changed, and only then', async () => {
    const dir = project({
      'entry.ts': "export { value } from './value.ts';\n",
      'value.ts': 'export const value: number = 1;\n',
    });
    const entry = join(dir, 'entry.ts');
    const cache = join(dir, 'cache');
    const first = await bundleOf(entry, cache);
    expect(readFileSync(first, 'utf8')).toContain('value = 1');
    // The same size: only the modification time tells.
    writeFileSync(join(dir, 'value.ts'), 'export const value: number = 2;\n');
    utimesSync(join(dir, 'value.ts'), new Date(), new Date(Date.now() + 5_000));
    const second = await bundleOf(entry, cache);
    expect(second).toBe(first);
    expect(readFileSync(second, 'utf8')).toContain('value = 2');
    // A rebuild renames a new file into place: the same inode means the bundle was reused.
    const built = statSync(second).ino;
    await bundleOf(entry, cache);
    expect(statSync(second).ino).toBe(built);
  });
});
