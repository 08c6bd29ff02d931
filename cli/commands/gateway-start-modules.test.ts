/**
 * The modules a gateway loads before it is online: those its command reaches through static
 * imports. The JSON Schema evaluator (@hyperjump, ~100 modules) is loaded on first use
 * (protocol/tool-schema/evaluator.ts); a static import of it anywhere on the way would put it
 * back into every start.
 */
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The packages reached from `entry` through static imports only. */
function staticPackages(metafile: Metafile, entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (output: string): void => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(imported.path);
      else visit(imported.path);
    }
  };
  visit(entry);
  return packages;
}

describe('the gateway command at start', () => {
  it('does not load the JSON Schema evaluator', async () => {
    const result = await build({
      entryPoints: [join(ROOT, 'cli/commands/gateway.ts')],
      absWorkingDir: ROOT,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: 'out',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const entry = Object.keys(result.metafile.outputs).find((output) => output.endsWith('out/gateway.js'));
    if (entry === undefined) expect.fail('no output for the gateway command');
    const packages = [...staticPackages(result.metafile, entry)];
    expect(packages).toContain('better-sqlite3');
    expect(packages.filter((name) => name.startsWith('@hyperjump/'))).toEqual([]);
  });
});
