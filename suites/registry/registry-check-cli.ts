/**
 * `npm run registry:check -- --spec PATH [--registry FILE] [--list]`
 * Exit status: 0 every normative sentence registered and no stale citation, 1 otherwise,
 * 2 the check could not run (bad arguments, unreadable or malformed spec or registry).
 * `--list` prints every keyword sentence with its locator instead, for writing entries.
 * Run directly (bin/run-ts.js) it is the command; imported (tests) it only exports the runner.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCheckArgs, requiredSpecPath, type CheckCliIo } from '../../protocol/cli/check-args.ts';
import { XmlSyntaxError } from '../../protocol/xml/xml-syntax-error.ts';
import { checkPassed, checkRegistry, formatCheckReport } from './registry-check.ts';
import { loadRegistry, REGISTRY_PATH, RegistryError, type Registry } from './registry.ts';
import { extractSentences, type SpecSentences } from './spec-sentences.ts';

/** The streams the command writes to (kept under this name for its callers). */
export type CliIo = CheckCliIo;

const USAGE = 'usage: npm run registry:check -- --spec PATH [--registry FILE] [--list]\n';

export function runRegistryCheckCli(argv: readonly string[], io: CliIo): 0 | 1 | 2 {
  const values = parseCheckArgs(
    argv,
    {
      spec: { type: 'string' },
      registry: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
    io,
  );
  if (values === 0 || values === 2) return values;
  const specPath = requiredSpecPath(values.spec, USAGE, io);
  if (specPath === 2) return 2;
  let spec: SpecSentences;
  try {
    spec = extractSentences(readFileSync(specPath, 'utf8'));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    io.stderr(
      `cannot read spec ${specPath}: ${error instanceof XmlSyntaxError ? `not well-formed: ${why}` : why}\n`,
    );
    return 2;
  }
  if (values.list === true) {
    for (const sentence of spec.sentences) {
      io.stdout(
        [
          sentence.anchor,
          sentence.fingerprint,
          String(sentence.line),
          sentence.normative ? 'normative' : 'informative',
          sentence.keywords.join(','),
          sentence.text,
        ].join('\t') + '\n',
      );
    }
    return 0;
  }
  let registry: Registry;
  try {
    registry = loadRegistry(values.registry === undefined ? REGISTRY_PATH : resolve(values.registry));
  } catch (error) {
    if (!(error instanceof RegistryError) && !(error instanceof Error && 'code' in error)) throw error;
    io.stderr(`cannot load the registry: ${error.message}\n`);
    return 2;
  }
  const report = checkRegistry(spec, registry);
  io.stdout(formatCheckReport(report));
  return checkPassed(report) ? 0 : 1;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = runRegistryCheckCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
