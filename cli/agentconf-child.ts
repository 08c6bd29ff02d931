/**
 * `agentconf ARGS` as a child process of the repository, for the tools that judge many whole runs
 * (bench/, mutants/): they read each run's report from its --out folder, so the child's stdout
 * is dropped and only its stderr (a run that could not start) reaches the terminal.
 */
import { spawn } from 'node:child_process';

import { REPO_ROOT } from '../harness/repo-root.ts';

/** Resolves with the child's exit code (-1 when a signal ended it). */
export function agentconfExitCode(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/agentconf.js', ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      resolve(code ?? -1);
    });
  });
}

/** A run that reached a verdict: exit 0 or 1 (see `agentconf run --help`); anything else rejects. */
export async function agentconfVerdictRun(args: readonly string[]): Promise<void> {
  const code = await agentconfExitCode(['run', ...args]);
  if (code !== 0 && code !== 1) throw new Error(`agentconf run exited ${String(code)}`);
}
