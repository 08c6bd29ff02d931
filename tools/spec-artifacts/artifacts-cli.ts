/**
 * `npm run artifacts:check -- --spec PATH [--repo DIR] [--verbose]`
 * Exit status: 0 nothing failed (known spec defects are reported, not fatal), 1 something
 * failed, 2 the check could not run (bad arguments, unreadable spec or repository).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCheckArgs, requiredSpecPath, type CheckCliIo } from '../../protocol/cli/check-args.ts';
import { checkArtifacts, specVersion } from './check.ts';
import { exitCodeFor, formatReport } from './report.ts';

/** The streams the command writes to (kept under this name for its callers). */
export type CliIo = CheckCliIo;

const USAGE = 'usage: npm run artifacts:check -- --spec PATH [--repo DIR] [--verbose]\n';
const DEFAULT_REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export async function runArtifactsCli(argv: readonly string[], io: CliIo): Promise<0 | 1 | 2> {
  const values = parseCheckArgs(
    argv,
    {
      spec: { type: 'string' },
      repo: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
    io,
  );
  if (values === 0 || values === 2) return values;
  const specPath = requiredSpecPath(values.spec, USAGE, io);
  if (specPath === 2) return 2;
  let specText: string;
  try {
    specText = readFileSync(specPath, 'utf8');
  } catch (error) {
    io.stderr(`cannot read spec ${specPath}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const repoRoot = resolve(values.repo ?? DEFAULT_REPO_ROOT);
  try {
    const findings = await checkArtifacts(specText, repoRoot);
    io.stdout(
      formatReport(findings, {
        specPath,
        specVersion: specVersion(specText),
        verbose: values.verbose === true,
      }),
    );
    return exitCodeFor(findings);
  } catch (error) {
    io.stderr(
      `artifacts:check could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}
