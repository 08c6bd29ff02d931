// No container, network or run directory outlives its container federation, however the run ends.
import { access } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import { listContainers, networkExists } from '../containers/test-support/engine-queries.ts';
import { containerProvider, FEDERATION_LABEL } from './container-provider.ts';
import { liveFederations } from './live-federations.ts';
import { startTsProcess } from './test-support/run-ts-process.ts';

const CHILD = new URL('./test-support/container-federation-child.ts', import.meta.url);

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function leftovers(runId: string, network: string): Promise<string[]> {
  const containers = await listContainers(`${FEDERATION_LABEL}=${runId}`);
  const found = containers.map((container) => `container ${container.names.join(',')} (${container.state})`);
  if (await networkExists(network)) found.push(`network ${network}`);
  return found;
}

/**
 * Probes until nothing of the run is left. Only the SIGKILL case needs more than one probe: there
 * the removal is done by the watchdog process, which we cannot wait for directly.
 */
async function waitUntilCleared(runId: string, network: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const left = await leftovers(runId, network);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still there after 30 s: ${left.join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ChildReport {
  readonly runId: string;
  readonly network: string;
  readonly runDir: string;
}

describe('container teardown', () => {
  it('stop() removes every container and the network, closes the proxies and removes the run directory', async () => {
    const federation = await containerProvider.start();
    expect(liveFederations()).toContain(federation);
    const { runId, networkName } = federation;
    expect(await leftovers(runId, networkName)).toHaveLength(3);

    await federation.stop();
    expect(federation.stopped).toBe(true);
    expect(liveFederations()).not.toContain(federation);
    expect(await leftovers(runId, networkName)).toEqual([]);
    expect(await exists(federation.runDir)).toBe(false);
    await federation.stop();
  });

  it.concurrent.each([
    ['an uncaught exception', 'throw', undefined],
    ['SIGINT', 'wait', 'SIGINT'],
    ['SIGKILL (the watchdog removes them)', 'wait', 'SIGKILL'],
  ] as const)('leaves no container when the process dies of %s', async (_, ending, signal) => {
    const child = await startTsProcess('container federation child', CHILD, [ending]);
    try {
      const line = await child.waitForOutput(/^\{.*\}$/m, 120_000);
      const report = JSON.parse(line) as ChildReport;
      expect(await leftovers(report.runId, report.network)).toHaveLength(3);
      if (child.pid !== undefined) process.kill(child.pid, signal ?? 'SIGUSR2');

      const status = await child.waitForExit();
      if (signal === undefined) expect(status.code).toBe(1);
      else expect(status.signal).toBe(signal);
      await waitUntilCleared(report.runId, report.network);
      expect(await exists(report.runDir)).toBe(false);
    } finally {
      await child.kill9();
    }
  });
});
