/**
 * `agentconf run` against the chaos gateway (harness/sut/test-support/chaos-gateway.ts) as a
 * child process, so that a runner that dies of an unhandled rejection shows as its exit, never
 * as the test process dying. The SUT file is written per run; the seed of the chaos and of the
 * run are the same number, printed by the caller.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IqAnswer } from '../../harness/sut/test-support/chaos-gateway.ts';
import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { agentconfProcesses } from './agentconf-process.ts';

export interface ChaosRunOptions {
  readonly seed: number;
  readonly discoInfo: 'advertise-all' | 'chaos';
  readonly answers?: readonly IqAnswer[];
  /** 'world-file' gives the cases the reference world (which the chaos gateway ignores). */
  readonly fixtures: 'world-file' | 'manual';
  readonly grep?: readonly string[];
}

export interface ChaosRun {
  readonly code: number | null;
  readonly output: string;
  /** Undefined when the run wrote none. */
  readonly result: RunResult | undefined;
  /** The report files the run was expected to write, and whether each exists. */
  readonly reports: Readonly<Record<string, boolean>>;
}

/** The report files every finished run writes into --out. */
export const REPORT_FILES = ['result.json', 'junit.xml', 'conformance.md', 'conformance.json', 'earl.jsonld'];

/**
 * Reply and task timeouts short enough that a full run against a gateway that never answers
 * right ends in a couple of minutes; a late reply comes after the reply timeout.
 */
const REPLY_SECONDS = 0.5;
const LATE_MS = 700;

function chaosSut(dir: string, options: ChaosRunOptions): string {
  const reference = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
  ) as Record<string, unknown>;
  const file = join(dir, `chaos-${String(options.seed)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name: `chaos gateway (seed ${String(options.seed)})`,
      component: { domain: 'agents.example', secret: 'generate' },
      launch: {
        command: ['node', 'bin/run-ts.js', 'harness/sut/test-support/chaos-gateway-main.ts'],
        cwd: REPO_ROOT,
        env: {
          CHAOS_HOST: '{serverHost}',
          CHAOS_PORT: '{componentPort}',
          CHAOS_DOMAIN: '{componentDomain}',
          CHAOS_SECRET: '{componentSecret}',
          CHAOS_SEED: String(options.seed),
          CHAOS_LATE_MS: String(LATE_MS),
          CHAOS_DISCO_INFO: options.discoInfo,
          CHAOS_ANSWERS: (options.answers ?? []).join(','),
          // Handed over so that the harness may write the world; the chaos gateway reads nothing.
          ...(options.fixtures === 'world-file' ? { CHAOS_WORLD: '{worldFile}' } : {}),
        },
      },
      profiles: reference['profiles'],
      adminJid: 'admin@server.example',
      fixtures: options.fixtures,
      limits: reference['limits'],
      timeouts: { startupSeconds: 20, replySeconds: REPLY_SECONDS, taskSeconds: REPLY_SECONDS },
    }),
  );
  return file;
}

/** Call once at the top of a test file: kills leftover runs and removes their folders afterwards. */
export function chaosRuns(): (options: ChaosRunOptions) => Promise<ChaosRun> {
  const { agentconf, tempDir } = agentconfProcesses('agentconf-chaos-');
  return async (options) => {
    const dir = tempDir();
    const out = join(dir, 'reports');
    const args = ['run', '--sut', chaosSut(dir, options), '--out', out, '--seed', String(options.seed)];
    for (const pattern of options.grep ?? []) args.push('--grep', pattern);
    const run = agentconf(args);
    const { code } = await run.exited;
    const resultFile = join(out, 'result.json');
    return {
      code,
      output: run.output(),
      result: existsSync(resultFile)
        ? (JSON.parse(readFileSync(resultFile, 'utf8')) as RunResult)
        : undefined,
      reports: Object.fromEntries(REPORT_FILES.map((name) => [name, existsSync(join(out, name))])),
    };
  };
}
