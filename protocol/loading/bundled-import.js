// Imports a TypeScript entry point as an esbuild bundle. An installed package runs the bundles
// that `npm pack` built into dist/ (prebuilt.js); a checkout bundles on first use into
// node_modules/.cache/agentconf, rebuilt whenever one of the files it was built from changed.
// Loading a few hundred TypeScript modules through tsx's loader hooks costs about a second per
// process or worker thread (each module is a round trip to the hooks thread); a run starts the
// reference gateway and its two schema-validation workers several times, and the tests spawn
// the CLI often, so that second adds up. A bundle loads in a fraction of it; the cached one is
// split at the dynamic imports (esbuild-bundle.js), so a command loads only what it uses. tsx
// stays the fallback: when the cache cannot be written, when esbuild fails, or with
// AGENTCONF_NO_BUNDLE=1.
//
// Plain JavaScript, so that it runs before any TypeScript loader is in place.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { esbuildBundle, sizeAndTime } from './esbuild-bundle.js';
import { PACKAGE_ROOT, prebuiltBundleOf } from './prebuilt.js';

// Inside the package, so that the bundle's bare imports resolve to the package's dependencies.
const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'agentconf');

/** The module namespace of `entry` (an absolute path to a .ts file), from its bundle when possible. */
export async function importTypeScript(entry) {
  if (process.env.AGENTCONF_NO_BUNDLE !== '1') {
    const prebuilt = prebuiltBundleOf(entry);
    if (prebuilt !== undefined) {
      try {
        return await import(pathToFileURL(prebuilt).href);
      } catch (error) {
        // In a checkout, `npm pack`'s postpack step may have removed dist/ since it was checked.
        if (!isMissing(error, prebuilt)) throw error;
      }
    }
    const bundle = await bundleOf(entry).catch(() => undefined);
    if (bundle !== undefined) return import(pathToFileURL(bundle).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(entry).href);
}

/** Whether `error` says that `file` itself does not exist (then it was never evaluated). */
function isMissing(error, file) {
  return error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(file);
}

/** The path of `entry`'s bundle in `cacheDir`, built first unless it is fresh. */
export async function bundleOf(entry, cacheDir = CACHE_DIR) {
  const key = createHash('sha256').update(`${entry}\0${process.version}`).digest('hex').slice(0, 16);
  const name = basename(entry, '.ts');
  // A folder per entry: the bundle and its chunks (esbuild-bundle.js).
  const bundle = join(cacheDir, `${name}-${key}`, `${name}.mjs`);
  const inputsFile = `${bundle}.inputs.json`;
  if (isFresh(inputsFile, bundle)) return bundle;
  return build(entry, bundle, inputsFile);
}

/**
 * Fresh when every file the bundle was built from still has the size and modification time it
 * had then. A new file can only enter through an edit of a file already listed.
 */
function isFresh(inputsFile, bundle) {
  let recorded;
  try {
    statSync(bundle);
    recorded = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  for (const [file, seen] of Object.entries(recorded.inputs)) {
    try {
      const now = statSync(file);
      if (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The cached bundle is only ever read on this machine: each module keeps its absolute location. */
function absoluteLocations(file) {
  return {
    url: JSON.stringify(pathToFileURL(file).href),
    dirname: JSON.stringify(dirname(file)),
    filename: JSON.stringify(file),
  };
}

async function build(entry, bundle, inputsFile) {
  const inputs = {};
  const outdir = dirname(bundle);
  const { outputFiles, inputFiles } = await esbuildBundle({
    entry,
    outdir,
    root: PACKAGE_ROOT,
    locate: absoluteLocations,
    inputs,
  });
  for (const file of inputFiles) inputs[file] ??= sizeAndTime(file);
  mkdirSync(outdir, { recursive: true });
  // Written aside and renamed: processes starting together never read half a file. The chunks
  // go first, the bundle that imports them last.
  const partial = `.${String(process.pid)}.${String(Math.random()).slice(2)}.partial`;
  const last = (output) => output.path === bundle || output.path === `${bundle}.map`;
  for (const output of [...outputFiles.filter((o) => !last(o)), ...outputFiles.filter(last)]) {
    writeFileSync(output.path + partial, output.contents);
    renameSync(output.path + partial, output.path);
  }
  writeFileSync(inputsFile + partial, JSON.stringify({ inputs }));
  renameSync(inputsFile + partial, inputsFile);
  pruneChunks(outdir, new Set(outputFiles.map((output) => output.path)));
  return bundle;
}

// A chunk is loaded when a dynamic import first needs it, which can be long after its process
// started: one an older build made is removed only once no process is likely to import it.
const CHUNK_KEPT_MS = 24 * 60 * 60 * 1000;

function pruneChunks(outdir, current) {
  for (const name of readdirSync(outdir)) {
    const file = join(outdir, name);
    if (!name.startsWith('chunk-') || current.has(file)) continue;
    try {
      if (Date.now() - statSync(file).mtimeMs > CHUNK_KEPT_MS) rmSync(file, { force: true });
    } catch {
      // Removed by another process pruning the same folder.
    }
  }
}
