// Imports a TypeScript entry point as one esbuild bundle kept in node_modules/.cache/agentconf,
// rebuilt whenever one of the files it was built from changed. Loading a few hundred TypeScript
// modules through tsx's loader hooks costs about a second per process or worker thread (each
// module is a round trip to the hooks thread); a run starts the reference gateway and its two
// schema-validation workers several times, and the tests spawn the CLI often, so that second
// adds up. A bundle loads in a fraction of it. tsx stays the fallback: when the cache cannot be
// written, when esbuild fails, or with AGENTCONF_NO_BUNDLE=1.
//
// Plain JavaScript, so that it runs before any TypeScript loader is in place.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Inside the package, so that the bundle's bare imports resolve to the package's dependencies.
const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'agentconf');
const IMPORT_META_PATHS = /\bimport\.meta\.(url|dirname|filename)\b/g;

/** The module namespace of `entry` (an absolute path to a .ts file), from its bundle when possible. */
export async function importTypeScript(entry) {
  if (process.env.AGENTCONF_NO_BUNDLE !== '1') {
    const bundle = await bundleOf(entry).catch(() => undefined);
    if (bundle !== undefined) return import(pathToFileURL(bundle).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(entry).href);
}

/** The path of `entry`'s bundle in `cacheDir`, built first unless it is fresh. */
export async function bundleOf(entry, cacheDir = CACHE_DIR) {
  const key = createHash('sha256').update(`${entry}\0${process.version}`).digest('hex').slice(0, 16);
  const bundle = join(cacheDir, `${basename(entry, '.ts')}-${key}.mjs`);
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

async function build(entry, bundle, inputsFile) {
  const esbuild = await import('esbuild');
  const inputs = {};
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: PACKAGE_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // Beside the bundle, read only under NODE_OPTIONS=--enable-source-maps (stack traces then
    // name the TypeScript files); parsing it at every start would cost more than it saves.
    sourcemap: 'linked',
    outfile: bundle,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [sourceLocationsKept(inputs)],
  });
  // Its service process would otherwise live as long as this one (a gateway runs for hours).
  await esbuild.stop();
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = resolve(PACKAGE_ROOT, input);
    inputs[file] ??= sizeAndTime(file);
  }
  mkdirSync(dirname(bundle), { recursive: true });
  // Written aside and renamed: processes starting together never read half a file.
  const partial = `.${String(process.pid)}.${String(Math.random()).slice(2)}.partial`;
  for (const output of result.outputFiles) {
    writeFileSync(output.path + partial, output.contents);
    renameSync(output.path + partial, output.path);
  }
  writeFileSync(inputsFile + partial, JSON.stringify({ inputs }));
  renameSync(inputsFile + partial, inputsFile);
  return bundle;
}

function sizeAndTime(file) {
  const seen = statSync(file);
  return { size: seen.size, mtimeMs: seen.mtimeMs };
}

/**
 * Each module keeps its own location: import.meta.url, dirname and filename are replaced by the
 * source file's values, so paths computed from them (the repository root, committed XSDs, the
 * validation worker's entry) point where they did before bundling. Each file's size and time are
 * taken into `inputs` before it is read: an edit made during the build makes the next start
 * rebuild.
 */
function sourceLocationsKept(inputs) {
  return {
    name: 'agentconf-source-locations',
    setup(plugin) {
      plugin.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        inputs[args.path] = sizeAndTime(args.path);
        const source = readFileSync(args.path, 'utf8');
        const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
        if (!source.includes('import.meta.')) return { contents: source, loader };
        const values = {
          url: pathToFileURL(args.path).href,
          dirname: dirname(args.path),
          filename: args.path,
        };
        return {
          contents: source.replace(IMPORT_META_PATHS, (_, key) => JSON.stringify(values[key])),
          loader,
        };
      });
    },
  };
}
