// No server, proxy or run directory outlives its federation, however the run ends.
import { access } from 'node:fs/promises';
import { connect } from 'node:net';

import { beforeAll, describe, expect, it } from 'vitest';

import type { Endpoint } from '../faults/fault-proxy.ts';
import { ensureProsody } from './debian-packages.ts';
import { liveFederations } from './live-federations.ts';
import { nativeProvider } from './native-provider.ts';
import { isProcessAlive, waitUntilGone } from './test-support/process-liveness.ts';
import { startTsProcess } from './test-support/run-ts-process.ts';

const CHILD = new URL('./test-support/federation-child.ts', import.meta.url);

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function refuses({ host, port }: Endpoint): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      resolve(true);
    });
  });
}

/**
 * Probes until the directory is gone. Only the SIGKILL case needs more than one probe: there, the
 * cleanup is done by the watchdog shell, which we cannot wait for directly.
 */
async function waitUntilRemoved(dir: string, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (await exists(dir)) {
    if (Date.now() > deadline) throw new Error(`${dir} still exists after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface ChildReport {
  readonly pids: number[];
  readonly runDir: string;
  readonly proxy: Endpoint;
}

describe('teardown', () => {
  // A first run on a fresh machine installs Prosody here, not inside a test's own time limit.
  beforeAll(async () => {
    await ensureProsody();
  }, 300_000);

  it('stop() kills every server, closes the proxies and removes the run directory', async () => {
    const federation = await nativeProvider.start({ hostile: true });
    expect(liveFederations()).toContain(federation);
    const { a, b, hostile } = federation.servers;
    const pids = [a.pid, b.pid, hostile?.pid].map((pid) => pid ?? 0);
    for (const pid of pids) expect(await isProcessAlive(pid)).toBe(true);
    expect(await exists(federation.runDir)).toBe(true);

    await federation.stop();
    expect(federation.stopped).toBe(true);
    expect(liveFederations()).not.toContain(federation);
    for (const pid of pids) expect(await isProcessAlive(pid)).toBe(false);
    expect(await exists(federation.runDir)).toBe(false);
    for (const link of [federation.links.s2sAToB, federation.links.s2sBToA, federation.links.component]) {
      expect(await refuses(link.listen)).toBe(true);
    }
    // Stopping twice is harmless.
    await federation.stop();
  });

  it.concurrent.each([
    ['an uncaught exception', 'throw', undefined],
    ['an unhandled rejection', 'reject', undefined],
    ['SIGINT', 'wait', 'SIGINT'],
    ['SIGTERM', 'wait', 'SIGTERM'],
    ['SIGKILL (the orphan watchdog cleans up)', 'wait', 'SIGKILL'],
  ] as const)('leaves nothing behind when the process dies of %s', async (_, ending, signal) => {
    const child = await startTsProcess('federation child', CHILD, [ending]);
    try {
      const line = await child.waitForOutput(/^\{.*\}$/m, 60_000);
      const report = JSON.parse(line) as ChildReport;
      expect(report.pids).toHaveLength(2);
      for (const pid of report.pids) expect(await isProcessAlive(pid)).toBe(true);
      if (child.pid !== undefined) process.kill(child.pid, signal ?? 'SIGUSR2');

      const status = await child.waitForExit();
      if (signal === undefined) expect(status.code).toBe(1);
      else expect(status.signal).toBe(signal);
      await waitUntilGone(report.pids);
      await waitUntilRemoved(report.runDir);
      expect(await refuses(report.proxy)).toBe(true);
    } finally {
      await child.kill9();
    }
  });
});
