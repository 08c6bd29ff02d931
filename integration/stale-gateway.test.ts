// One run, one gateway: a reference gateway left over from an earlier run whose SUT file fixed
// the component port and secret keeps reconnecting, and reaches the next run's server before the
// gateway that run launches. The run must stop with exit 3 and name it (domain, address, PID),
// not judge it in place of the launched one.
//
// The leftover is made as a user would: started with `agentconf gateway --config` against a
// federation on that port, which then stops (the end of the earlier run); the gateway retries
// every 0.1 s at most. Whether it reconnects before the run's probe or between the probe and
// the launched gateway's handshake, the run names it (the probe, or the launched gateway's
// `conflict`); the launched gateway needs a node start-up and a database after the probe, the
// leftover one retry, so it is never last.
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { nativeProvider } from '../harness/federation/native-provider.ts';
import { FIXED_COMPONENT_HOST } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { agentconfProcesses } from './test-support/agentconf-process.ts';

const WORLD = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');
const DOMAIN = 'agents.example';

const { agentconf, tempDir } = agentconfProcesses('agentconf-stale-');

/** A port on 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, FIXED_COMPONENT_HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('a gateway left over from an earlier run', () => {
  it('stops the run with exit 3, naming the domain, the address and the process that holds the component connection', async () => {
    const dir = tempDir();
    const port = await freePort();
    const secret = 'a-secret-fixed-in-the-sut-file';

    // The earlier run: its federation on the fixed port, its gateway connected to it.
    const earlier = await nativeProvider.start({ component: { port, secret } });
    const staleConfig = join(dir, 'stale-gateway.json');
    writeFileSync(
      staleConfig,
      JSON.stringify({
        component: { host: FIXED_COMPONENT_HOST, port, domain: DOMAIN, secret },
        database: join(dir, 'stale.sqlite'),
        world: WORLD,
        localDomains: ['server.example'],
        reconnect: { initialDelaySeconds: 0.05, maxDelaySeconds: 0.1 },
      }),
    );
    const stale = agentconf(['gateway', '--config', staleConfig]);
    try {
      await stale.shows(/online via/);
    } finally {
      await earlier.stop();
    }
    await stale.shows(/reconnect attempt/);
    const stalePid = stale.child.pid ?? 0;

    // The next run: the reference gateway's SUT file with that port and secret fixed.
    const reference = JSON.parse(
      readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
    ) as { launch: Record<string, unknown> } & Record<string, unknown>;
    const sut = join(dir, 'sut.json');
    writeFileSync(
      sut,
      JSON.stringify({
        ...reference,
        $schema: undefined,
        component: { domain: DOMAIN, port, secret },
        launch: { ...reference.launch, cwd: REPO_ROOT },
      }),
    );
    const out = join(dir, 'out');
    const run = agentconf(['run', '--provider', 'native', '--sut', sut, '--out', out]);
    const { code } = await run.exited;
    const output = run.output();
    expect(code, output).toBe(3);
    expect(output).toMatch(
      /something already answers as agents\.example before the harness launched|the gateway the harness launched was refused with a conflict stream error|another process than the gateway the harness launched is connected/,
    );
    expect(output).toContain(`${FIXED_COMPONENT_HOST}:${String(port)}`);
    expect(output).toContain(
      `PID ${String(stalePid)} (${process.execPath} bin/agentconf.js gateway --config ${staleConfig})`,
    );
    expect(output).toContain(`kill ${String(stalePid)}`);
    expect(output).not.toContain(secret);
    // The servers' logs of the failed start are kept (startSession's logsDirOnFailure), redacted.
    const logs = readdirSync(join(out, 'logs')).filter((name) => /^server-[a-z]+\.log$/.test(name));
    expect(logs).not.toEqual([]);
    for (const name of logs) expect(readFileSync(join(out, 'logs', name), 'utf8')).not.toContain(secret);
    // The leftover was left alone: named, not killed (it is not the run's to stop).
    expect(stale.child.exitCode).toBeNull();
    stale.child.kill('SIGTERM');
    await stale.exited;
  }, 180_000);
});
