import { afterEach, describe, expect, it } from 'vitest';

import { isProcessAlive } from '../federation/test-support/process-liveness.ts';
import { ManagedProcess, ProcessExitedError } from './managed-process.ts';

const started: ManagedProcess[] = [];

async function node(script: string, env: Record<string, string> = {}): Promise<ManagedProcess> {
  const child = await ManagedProcess.start({
    name: 'test child',
    command: process.execPath,
    args: ['-e', script],
    env,
  });
  started.push(child);
  return child;
}

/** Prints its pid and that of a grandchild in its process group, then waits forever. */
const PARENT_OF_SLEEPER = `
const { spawn } = require('node:child_process');
const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
console.log('pids ' + process.pid + ' ' + sleeper.pid + ' ' + (process.env.GREETING ?? ''));
setInterval(() => {}, 1000);
`;

afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.kill9()));
});

describe('ManagedProcess', () => {
  it('captures output, passes the environment and kills the whole process group with kill9', async () => {
    const child = await node(PARENT_OF_SLEEPER, { GREETING: 'hello' });
    const line = await child.waitForOutput(/pids \d+ \d+ hello/);
    const [, parentPid, sleeperPid] = line.split(' ').map(Number);
    expect(parentPid).toBe(child.pid);
    expect(await isProcessAlive(sleeperPid ?? 0)).toBe(true);

    const status = await child.kill9();
    expect(status).toEqual({ code: null, signal: 'SIGKILL' });
    expect(child.running).toBe(false);
    expect(await isProcessAlive(parentPid ?? 0)).toBe(false);
    expect(await isProcessAlive(sleeperPid ?? 0)).toBe(false);
  });

  it('restarts with the same command, and waits for output of the new run only', async () => {
    const child = await node(PARENT_OF_SLEEPER);
    await child.waitForOutput(`pids ${String(child.pid)} `);
    const firstPid = child.pid;
    await child.restart();
    expect(child.pid).not.toBe(firstPid);
    expect(child.starts).toBe(2);
    expect(child.runOutput).not.toContain(`pids ${String(firstPid)} `);
    await child.waitForOutput(`pids ${String(child.pid)} `);
    expect(child.output).toContain(`pids ${String(firstPid)} `);
  });

  it('stops politely when the process honours SIGTERM, forcibly when it does not', async () => {
    const polite = await node(
      `process.on('SIGTERM', () => process.exit(0)); console.log('up'); setInterval(() => {}, 1000);`,
    );
    await polite.waitForOutput('up');
    expect(await polite.stop()).toEqual({ code: 0, signal: null });

    const stubborn = await node(
      `process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000);`,
    );
    await stubborn.waitForOutput('up');
    expect(await stubborn.stop('SIGTERM', 100)).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('rejects output waits when the process exits first, with its output', async () => {
    const child = await node(`console.log('about to fail'); process.exit(3);`);
    const error: unknown = await child.waitForOutput('never printed').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessExitedError);
    expect((error as ProcessExitedError).status.code).toBe(3);
    expect((error as ProcessExitedError).message).toContain('about to fail');
  });

  it('fails to start a command that does not exist', async () => {
    await expect(ManagedProcess.start({ command: '/nonexistent/agentconf-command' })).rejects.toThrow(
      /cannot start/,
    );
  });
});
