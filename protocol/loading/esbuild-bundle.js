// One esbuild bundle of a TypeScript entry point, shared by the run-time cache
// (bundled-import.js) and the bundles built at `npm pack` (prebuilt.js). Plain JavaScript, so
// that it runs before any TypeScript loader is in place.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

const IMPORT_META_PATHS = /\bimport\.meta\.(url|dirname|filename)\b/g;

/**
 * Bundles `entry` (absolute) for Node 20 as ESM, bare imports left to the installed packages.
 * With `outdir` instead of `outfile` the bundle is split: `entry` becomes outdir/<its name>.mjs
 * and each module reached only through a dynamic import() goes to a chunk loaded when it is
 * imported, with the packages it imports. One file would import every package any command
 * needs at every start (a gateway loading the test generators and the report writers).
 * `locate(file)` gives, for each source file, the JavaScript expressions that replace its
 * import.meta.url, .dirname and .filename, so that paths computed from them (the repository
 * root, committed XSDs, the validation worker's entry) point where they do in the sources.
 * `inputs` receives each file's size and time before it is read: an edit made during the build
 * makes the next freshness check fail. Without `sourcesContent` the source map only names the
 * source files, for bundles that travel with them.
 * Returns the output files (bundle, chunks and source maps) unwritten, and every input's absolute path.
 */
export async function esbuildBundle({
  entry,
  outfile,
  outdir,
  root,
  locate,
  banner,
  sourcesContent = true,
  inputs = {},
}) {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      // Beside the bundle, read only under NODE_OPTIONS=--enable-source-maps (stack traces then
      // name the TypeScript files); parsing it at every start would cost more than it saves.
      sourcemap: 'linked',
      sourcesContent,
      ...(outdir === undefined
        ? { outfile }
        : {
            outdir,
            splitting: true,
            entryNames: '[name]',
            // Named by their content: a process of an older build that imports one of its chunks
            // late finds it unchanged.
            chunkNames: 'chunk-[hash]',
            outExtension: { '.js': '.mjs' },
          }),
      metafile: true,
      write: false,
      logLevel: 'silent',
      ...(banner === undefined ? {} : { banner: { js: banner } }),
      plugins: [sourceLocationsKept(inputs, locate)],
    });
    return {
      outputFiles: result.outputFiles,
      inputFiles: Object.keys(result.metafile.inputs).map((input) => resolve(root, input)),
    };
  } finally {
    // Its service process would otherwise live as long as this one (a gateway runs for hours).
    await esbuild.stop();
  }
}

export function sizeAndTime(file) {
  const seen = statSync(file);
  return { size: seen.size, mtimeMs: seen.mtimeMs };
}

function sourceLocationsKept(inputs, locate) {
  return {
    name: 'agentconf-source-locations',
    setup(plugin) {
      plugin.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        inputs[args.path] = sizeAndTime(args.path);
        const source = readFileSync(args.path, 'utf8');
        const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
        if (!source.includes('import.meta.')) return { contents: source, loader };
        const expressions = locate(args.path);
        return { contents: source.replace(IMPORT_META_PATHS, (_, key) => expressions[key]), loader };
      });
    },
  };
}
