/**
 * `npm run artifacts:check -- --spec PATH [--repo DIR] [--verbose]`
 * Exit status: 0 nothing failed (known spec defects are reported, not fatal), 1 something
 * failed, 2 the check could not run (bad arguments, unreadable spec or repository).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkArtifacts, specVersion } from './check.ts';
import { exitCodeFor, formatReport } from './report.ts';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const USAGE = 'usage: npm run artifacts:check -- --spec PATH [--repo DIR] [--verbose]\n';
const DEFAULT_REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export async function runArtifactsCli(argv: readonly string[], io: CliIo): Promise<0 | 1 | 2> {
  let values: {
    spec?: string | undefined;
    repo?: string | undefined;
    verbose?: boolean | undefined;
    help?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        spec: { type: 'string' },
        repo: { type: 'string' },
        verbose: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.spec === undefined || values.spec === '') {
    io.stderr(`missing --spec\n${USAGE}`);
    return 2;
  }
  const specPath = resolve(values.spec);
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
