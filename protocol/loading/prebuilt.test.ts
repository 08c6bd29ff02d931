import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPrebuilt, prebuiltBundleOf, removePrebuilt } from './prebuilt.js';

const made: string[] = [];

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-prebuilt-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SOURCES = {
  'cli/main.ts':
    "import { where, file } from '../lib/nested.ts';\nexport const here: string = import.meta.url;\nexport { where, file };\n",
  'lib/nested.ts':
    'export const where: string = import.meta.dirname;\nexport const file: string = import.meta.filename;\n',
};

describe('prebuilt bundles', () => {
  it('locate each module inside the folder the package was copied to, not where it was built', async () => {
    const built = project(SOURCES);
    await buildPrebuilt(built, ['cli/main.ts']);
    const installed = join(mkdtempSync(join(tmpdir(), 'agentconf-installed-')), 'package');
    made.push(join(installed, '..'));
    cpSync(built, installed, { recursive: true });
    rmSync(built, { recursive: true, force: true });

    const bundle = prebuiltBundleOf(join(installed, 'cli', 'main.ts'), installed);
    expect(bundle).toBe(join(installed, 'dist', 'cli-main.mjs'));
    const loaded = (await import(pathToFileURL(bundle ?? '').href)) as Record<string, string>;
    expect(loaded).toMatchObject({
      here: pathToFileURL(join(installed, 'cli', 'main.ts')).href,
      where: join(installed, 'lib'),
      file: join(installed, 'lib', 'nested.ts'),
    });
  });

  it('are not used once a file they were built from changed, or for an entry not built', async () => {
    const dir = project(SOURCES);
    await buildPrebuilt(dir, ['cli/main.ts']);
    expect(prebuiltBundleOf(join(dir, 'lib', 'nested.ts'), dir)).toBeUndefined();
    // The same size: only the content tells.
    writeFileSync(join(dir, 'lib', 'nested.ts'), SOURCES['lib/nested.ts'].replace('where', 'wher2'));
    expect(prebuiltBundleOf(join(dir, 'cli', 'main.ts'), dir)).toBeUndefined();
  });

  it('are gone after removePrebuilt', async () => {
    const dir = project(SOURCES);
    await buildPrebuilt(dir, ['cli/main.ts']);
    expect(prebuiltBundleOf(join(dir, 'cli', 'main.ts'), dir)).toBeDefined();
    removePrebuilt(dir);
    expect(prebuiltBundleOf(join(dir, 'cli', 'main.ts'), dir)).toBeUndefined();
  });
});
