/**
 * What one `agentconf run` will do, decided before anything starts: its ID and seed, where its
 * results go (made and proved writable now, so they are not lost at the end), its time limit and
 * pace, and the suite and spec revision its reports name.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { ProviderChoice } from '../../harness/federation/auto-provider.ts';
import type { ServerStack } from '../../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import { freshSeed } from '../../suites/framework/seeded-random.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { paceOf, type Pace } from '../../runner/request-pacing.ts';
import { checkWritableFile } from '../io.ts';
import { prepareOutDir } from '../out-dir.ts';
import { defaultTimeoutMs } from '../run-spec.ts';
import type { RunInputs, RunValues } from './checked-inputs.ts';

export interface RunPlan {
  readonly inputs: RunInputs;
  readonly provider: ProviderChoice;
  /** The servers' implementations asked for (--server-a, --server-b). */
  readonly servers: ServerStack;
  readonly runId: string;
  readonly startedAt: string;
  readonly seed: number;
  /** --repeat: how many whole runs. */
  readonly repeat: number;
  /** --jobs: how many cases may run at once. */
  readonly jobs: number;
  /** The results folder, absolute. */
  readonly out: string;
  readonly connectionFile: string | undefined;
  /** The wall-time limit of the whole command. */
  readonly timeoutMs: number;
  readonly pace: Pace | undefined;
  readonly strict: boolean;
  readonly deep: boolean;
  readonly verbose: boolean;
  readonly debug: boolean;
  readonly allureHtml: boolean;
  readonly suiteVersion: string;
  readonly specRevision: string;
}

/** The suite's version, from package.json: reports name the suite that judged. */
export function suiteVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

function newRunId(): string {
  return `${new Date().toISOString().replace(/[:.]/g, '-')}-${generateIdentifier('').slice(0, 6)}`;
}

export function planRun(values: RunValues, inputs: RunInputs): RunPlan {
  const seed = values.seed ?? freshSeed();
  const runId = newRunId();
  const startedAt = new Date().toISOString();
  // Relative to where the command runs: an installed package must not write into itself.
  const out = resolve(values.out ?? join('reports', runId));
  prepareOutDir(out);
  const connectionFile =
    values['connection-file'] === undefined ? undefined : resolve(values['connection-file']);
  if (connectionFile !== undefined) checkWritableFile(connectionFile, '--connection-file');
  return {
    inputs,
    provider: values.provider,
    servers: inputs.servers,
    runId,
    startedAt,
    seed,
    repeat: values.repeat,
    jobs: values.jobs,
    out,
    connectionFile,
    timeoutMs: values.timeout ?? defaultTimeoutMs(values.deep, values.repeat),
    pace: paceOf(inputs.config.limits, values.rate),
    strict: values.strict,
    deep: values.deep,
    verbose: values.verbose,
    debug: values.debug,
    allureHtml: values['allure-html'],
    suiteVersion: suiteVersion(),
    // The registry's revision, which registry:check ties to the spec: the suites judge against it.
    specRevision: committedRegistry().specVersion,
  };
}
