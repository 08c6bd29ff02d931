// The bundles `npm pack` builds into dist/ (its prepack script, bin/build-dist.js), so that an
// installed package starts without bundling at first use and without writing into itself (a
// global install is often read-only to the user who runs it). Each source module's
// import.meta.url, .dirname and .filename are computed from the bundle's own location, so they
// name the module's file inside whichever folder the package is installed in, where the
// fixtures, XML Schemas and JSON Schemas are.
//
// A bundle is used only while every file it was built from has the content it was built from:
// a checkout where `npm pack` stopped before its postpack step never runs stale code.
//
// Plain JavaScript, so that it runs before any TypeScript loader is in place.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { esbuildBundle } from './esbuild-bundle.js';

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PREBUILT_DIR = 'dist';
const MANIFEST = 'bundles.json';

/** Every entry point imported through importTypeScript: the CLI and the validation worker. */
export const PREBUILT_ENTRIES = ['cli/main.ts', 'protocol/tool-schema/validation-worker.ts'];

// The bundles sit one folder below the package root; their modules' locations are relative to it.
const BANNER = [
  "import { join as __agentconfJoin } from 'node:path';",
  "import { fileURLToPath as __agentconfFileURLToPath, pathToFileURL as __agentconfPathToFileURL } from 'node:url';",
  "const __agentconfRoot = __agentconfJoin(__agentconfFileURLToPath(import.meta.url), '..', '..');",
  'const __agentconfSourcePath = (file) => __agentconfJoin(__agentconfRoot, file);',
  'const __agentconfSourceUrl = (file) => __agentconfPathToFileURL(__agentconfSourcePath(file)).href;',
].join('\n');

/** The prebuilt bundle of `entry` (an absolute path), or undefined when there is none or it is stale. */
export function prebuiltBundleOf(entry, root = PACKAGE_ROOT) {
  const dir = join(root, PREBUILT_DIR);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return undefined;
  }
  const built = manifest.bundles?.[packagePath(root, entry)];
  if (built === undefined) return undefined;
  for (const [file, digest] of Object.entries(built.inputs)) {
    let content;
    try {
      content = readFileSync(join(root, file));
    } catch {
      return undefined;
    }
    if (sha256(content) !== digest) return undefined;
  }
  return join(dir, built.file);
}

/**
 * Builds every entry of `entries` into root/dist, replacing what was there. Built aside and
 * renamed into place, at dist's depth so that the source maps' relative paths hold.
 */
export async function buildPrebuilt(root = PACKAGE_ROOT, entries = PREBUILT_ENTRIES) {
  const partial = join(root, `.${PREBUILT_DIR}.${String(process.pid)}.partial`);
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  try {
    const bundles = {};
    for (const entry of entries) {
      const file = `${entry.replace(/\.ts$/, '').replaceAll('/', '-')}.mjs`;
      const { outputFiles, inputFiles } = await esbuildBundle({
        entry: join(root, entry),
        outfile: join(partial, file),
        root,
        locate: (source) => packageLocations(root, source),
        banner: BANNER,
        // The package ships the sources the map names: copying them into it would double its size.
        sourcesContent: false,
      });
      for (const output of outputFiles) writeFileSync(output.path, output.contents);
      const inputs = {};
      for (const input of inputFiles.sort()) inputs[packagePath(root, input)] = sha256(readFileSync(input));
      bundles[entry] = { file, inputs };
    }
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify({ bundles }, null, 2)}\n`);
    removePrebuilt(root);
    renameSync(partial, join(root, PREBUILT_DIR));
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Removes root/dist: after packing, a checkout goes back to bundling on first use. */
export function removePrebuilt(root = PACKAGE_ROOT) {
  rmSync(join(root, PREBUILT_DIR), { recursive: true, force: true });
}

/** `file`'s path inside the package, with forward slashes; an error for a file outside it. */
function packagePath(root, file) {
  const path = relative(root, file).split(sep).join('/');
  if (path.startsWith('../') || posix.isAbsolute(path)) {
    throw new Error(`${file} is outside the package at ${root}, so no prebuilt bundle can name it`);
  }
  return path;
}

function packageLocations(root, source) {
  const path = packagePath(root, source);
  return {
    url: `__agentconfSourceUrl(${JSON.stringify(path)})`,
    dirname: `__agentconfSourcePath(${JSON.stringify(posix.dirname(path))})`,
    filename: `__agentconfSourcePath(${JSON.stringify(path)})`,
  };
}

function sha256(content) {
  return createHash('sha256').update(content).digest('hex');
}
