/**
 * bench/setup: what a run waits for before its first case (issue 25 item 3).
 * - setup: startSession from nothing to the reference gateway answering with its fixture world
 *   checked and its features read, on the native federation, in this process (the figure `agentconf
 *   run` prints as "setup"); goal ≤ 500 ms, median;
 * - a 1-case process: `agentconf run` of one case, from spawn to exit (node's start, the CLI, setup,
 *   the case, the reports, the teardown); goal ≤ 1.5 s, median.
 * Both are dominated by process starts and waits, so a loaded machine shows in them: compare
 * medians taken on the same machine at the same time.
 * Run alone: node bin/run-ts.js bench/setup.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { nativeProvider } from '../harness/federation/native-provider.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { loadSutConfig } from '../harness/sut/sut-config.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import { startSession } from '../runner/run-session.ts';

const SETUP_GOAL_MS = 500;
const ONE_CASE_GOAL_MS = 1_500;
/** A core-directory case that needs nothing but the world: the process is all start and stop. */
const ONE_CASE = 'gateway-info.advertised-discovery-features-answer';

export interface SetupReport {
  readonly setupMs: readonly number[];
  readonly oneCaseMs: readonly number[];
}

const median = (samples: readonly number[]): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? Number.NaN;

async function setupOnce(): Promise<number> {
  const config = await loadSutConfig(join(REPO_ROOT, 'fixtures/sut/reference-gateway.json'));
  const world = inlineWorldFile(join(REPO_ROOT, 'fixtures/worlds/reference.json'));
  const session = await startSession({
    provider: nativeProvider,
    config,
    world,
    cases: [],
    log: () => undefined,
  });
  await session.stop();
  return session.setupMs;
}

function oneCaseOnce(): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-bench-setup-'));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin/agentconf.js'), 'run', '--grep', ONE_CASE, '--out', join(out, 'run')],
    { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const elapsed = performance.now() - started;
      rmSync(out, { recursive: true, force: true });
      if (code === 0) resolve(elapsed);
      else reject(new Error(`agentconf run --grep ${ONE_CASE} exited ${String(code)}: ${errors}`));
    });
  });
}

export async function benchSetup({ runs = 7 } = {}): Promise<SetupReport> {
  // The first of each pages in Prosody, the gateway's bundle and the CLI's, and has the gateway
  // keep its world's intake verdicts (reference-gateway/registration/intake-cache.ts), as the
  // first start of any run on a machine does: not counted.
  await setupOnce();
  await oneCaseOnce();
  const setupMs: number[] = [];
  const oneCaseMs: number[] = [];
  // Alternated, so that load from elsewhere falls on both alike.
  for (let run = 0; run < runs; run++) {
    setupMs.push(await setupOnce());
    oneCaseMs.push(await oneCaseOnce());
  }
  return { setupMs, oneCaseMs };
}

export function printSetup(report: SetupReport): void {
  const line = (label: string, samples: readonly number[], goalMs: number): string => {
    const value = median(samples);
    const spread = `min ${Math.min(...samples).toFixed(0)}, max ${Math.max(...samples).toFixed(0)}; ${String(samples.length)} runs`;
    return `  ${label.padEnd(44)} median ${value.toFixed(0)} ms  (${spread}); goal ≤ ${String(goalMs)} ms: ${value <= goalMs ? 'met' : 'NOT met'}`;
  };
  process.stdout.write(
    [
      `setup (reference gateway, native Prosody; the case: ${ONE_CASE}):`,
      line('setup, start to first case', report.setupMs, SETUP_GOAL_MS),
      line('1-case process, spawn to exit', report.oneCaseMs, ONE_CASE_GOAL_MS),
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printSetup(await benchSetup());
}
