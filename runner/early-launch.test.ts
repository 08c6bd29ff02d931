import { describe, expect, it } from 'vitest';

import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import { GENERATED_SECRET, type SutConfig } from '../harness/sut/sut-config.ts';
import { EarlyLaunch, launchesWhileBooting } from './early-launch.ts';

function config(overrides: Record<string, unknown> = {}): SutConfig {
  return {
    launch: { command: 'node', args: [] },
    fixtures: 'world-file',
    component: { domain: 'agents.example', secret: GENERATED_SECRET },
    ...overrides,
  } as unknown as SutConfig;
}

describe('launchesWhileBooting', () => {
  it('launches a harness-started gateway on a link of the run’s own while the servers boot', () => {
    expect(launchesWhileBooting(config())).toBe(true);
  });

  it('keeps the stale-gateway probe before the launch when the SUT file fixes the port or the secret', () => {
    expect(
      launchesWhileBooting(config({ component: { domain: 'agents.example', secret: 'fixed', port: 5347 } })),
    ).toBe(false);
    expect(launchesWhileBooting(config({ component: { domain: 'agents.example', secret: 'fixed' } }))).toBe(
      false,
    );
    expect(
      launchesWhileBooting(
        config({ component: { domain: 'agents.example', secret: GENERATED_SECRET, port: 5347 } }),
      ),
    ).toBe(false);
  });

  it('waits for the servers when something must happen first, or when the harness does not launch it', () => {
    expect(launchesWhileBooting(config({ launch: 'external' }))).toBe(false);
    expect(launchesWhileBooting(config({ conformanceTools: 'mcp-http' }))).toBe(false);
    expect(launchesWhileBooting(config({ fixtures: 'admin-iq' }))).toBe(false);
  });
});

describe('EarlyLaunch', () => {
  const federation = {} as Federation;

  it('stops the gateway it launched when the boot fails', async () => {
    const stopped: number[] = [];
    const sut = { stop: (graceMs = 2_000) => Promise.resolve(void stopped.push(graceMs)) } as SutInstance;
    const early = new EarlyLaunch(() => Promise.resolve(sut));
    early.start(federation);
    await early.abandon();
    expect(stopped).toEqual([0]);
  });

  it('hands on a failed launch once the servers are up, and abandons it quietly', async () => {
    const early = new EarlyLaunch(() => Promise.reject(new Error('no such command')));
    expect(early.launched).toBeUndefined();
    early.start(federation);
    await expect(early.launched).rejects.toThrow('no such command');
    await expect(early.abandon()).resolves.toBeUndefined();
  });
});
