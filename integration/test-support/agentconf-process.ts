/**
 * `agentconf` as a user runs it, for the integration tests of the flows around a gateway the
 * harness does not start: `node bin/agentconf.js ARGS` as a child process of the repository, its
 * stdout and stderr kept together in the order they arrive, waited on by what it prints.
 *
 * `agentconfProcesses(prefix)`, called once at the top of a test file, registers an afterAll that
 * kills whatever is still running and removes the folders `tempDir()` made: a failed test would
 * otherwise leave a gateway reconnecting to the next file's servers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';

export interface AgentconfProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves once the output so far matches; rejects when the process exits first. */
  shows(pattern: RegExp): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function agentconfProcesses(prefix: string): {
  readonly agentconf: (args: readonly string[]) => AgentconfProcess;
  readonly tempDir: () => string;
} {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    agentconf: (args) => {
      const child = spawn(process.execPath, ['bin/agentconf.js', ...args], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      const waiters: { pattern: RegExp; resolve: () => void }[] = [];
      const take = (chunk: string): void => {
        output += chunk;
        for (const waiter of [...waiters]) {
          if (waiter.pattern.test(output)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      };
      child.stdout.setEncoding('utf8').on('data', take);
      child.stderr.setEncoding('utf8').on('data', take);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        child.once('exit', (code, signal) => {
          resolve({ code, signal });
        });
      });
      return {
        child,
        output: () => output,
        exited,
        shows: (pattern) =>
          new Promise<void>((resolve, reject) => {
            if (pattern.test(output)) {
              resolve();
              return;
            }
            waiters.push({ pattern, resolve });
            void exited.then((status) => {
              reject(new Error(`exited (${JSON.stringify(status)}) before ${String(pattern)}:\n${output}`));
            });
          }),
      };
    },
    tempDir: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
