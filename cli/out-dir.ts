/**
 * The output folder of a run, made and proved writable before anything starts (a run's results
 * must not be lost at its end); an existing non-empty one is refused, since old reports would mix
 * in, and so is a file. Every refusal is a UsageError naming --out.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from './io.ts';

export function prepareOutDir(out: string): void {
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) {
      throw new UsageError(`--out ${out} is a file: give a new or empty folder`);
    }
    if (readdirSync(out).length > 0) {
      throw new UsageError(
        `--out ${out} is not empty: give a new or empty folder, so no earlier run's reports mix in`,
      );
    }
  }
  const probe = join(out, '.agentconf-write-check');
  try {
    makeDirectories(out);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'not writable';
    throw new UsageError(`--out ${out} cannot be written (${code})`);
  }
}

/**
 * mkdir -p one level at a time. Node's recursive mkdirSync never returns for a path under /proc
 * (each level reports ENOENT and it retries the parent), so the levels are made here.
 */
function makeDirectories(path: string): void {
  const missing: string[] = [];
  let current = path;
  while (!existsSync(current)) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing) mkdirSync(directory);
}
