/**
 * A shell script as an operator runs it (`sh SCRIPT ARGS`), its stdout and stderr kept together
 * in the order they arrive: for the tests of the example and CI scripts, which judge a run by its
 * exit code, what it printed and the reports it wrote.
 */
import { spawn } from 'node:child_process';

export interface ScriptRun {
  readonly code: number | null;
  readonly output: string;
}

export function runScript(
  script: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [script, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, output });
    });
  });
}
