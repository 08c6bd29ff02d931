import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Requester } from '../catalog/catalog.ts';
import { manifestText, principal, REFERENCE_WORLD } from '../registration/test-support/manifests.ts';
import { FIXED_NOW } from '../store/test-support/temp-store.ts';
import { loadGatewayConfig, type GatewayConfig } from './gateway-config.ts';
import { openGatewayState, type GatewayState } from './gateway-state.ts';

function requester(bareJid: string): Requester {
  return { fullJid: `${bareJid}/r`, ...principal(bareJid) };
}

const BOB = requester('bob@server.example');
const ADMIN = principal('admin@server.example');

let dir: string;
let config: GatewayConfig;
const opened: GatewayState[] = [];

async function start(): Promise<GatewayState> {
  const state = await openGatewayState(config, () => FIXED_NOW);
  opened.push(state);
  return state;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-state-'));
  const path = join(dir, 'gateway.json');
  writeFileSync(
    path,
    JSON.stringify({
      component: { domain: 'agents.example', host: '127.0.0.1', port: 5347, secret: 'x' },
      database: 'gateway.sqlite',
      world: REFERENCE_WORLD,
      localDomains: ['server.example'],
      admins: ['admin@server.example'],
      policy: { grants: [{ principal: 'carol@example.com', see: ['toolbox@agents.example'] }] },
    }),
  );
  config = loadGatewayConfig(path);
});
afterEach(() => {
  for (const state of opened.splice(0)) state.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('openGatewayState', () => {
  it('loads the world and the config policy, and serves the catalog', async () => {
    const state = await start();
    expect(state.world).toMatchObject({ created: 10, pointersApplied: 9 });
    expect(state.catalog.visibleEndpoints(BOB).map((e) => e.jid)).toEqual([
      'calendar@agents.example',
      'conformance@agents.example',
      'toolbox@agents.example',
      'translator@agents.example',
      'weather@agents.example',
      '\ufa0e@agents.example',
      '\u{20000}@agents.example',
    ]);
    // The config's grant and the world's domain grant both apply.
    expect(state.catalog.visibleEndpoints(requester('carol@example.com')).map((e) => e.jid)).toEqual([
      'toolbox@agents.example',
      'weather@agents.example',
    ]);
    expect(state.policy.canInvoke(BOB, 'vault@agents.example', 'records.count')).toBe(true);
    expect(state.rateLimiter.take('discovery', BOB.bareJid).allowed).toBe(true);
  });

  it('keeps every registration across a restart, and the same world changes nothing', async () => {
    const first = await start();
    const registered = await first.provisioning.register(ADMIN, manifestText({ jid: 'new@agents.example' }));
    if (!registered.ok) expect.fail(registered.fault.reason);
    expect(first.provisioning.activate(ADMIN, registered.value.registered).ok).toBe(true);
    expect(first.provisioning.deactivate(ADMIN, { jid: 'weather@agents.example' }).ok).toBe(true);
    const before = first.catalog.visibleEndpoints(BOB).map((e) => `${e.jid} ${e.active.version}`);
    first.close();

    const second = await start();
    expect(second.world).toMatchObject({ created: 0, pointersApplied: 0, policyChanged: false });
    expect(second.catalog.visibleEndpoints(BOB).map((e) => `${e.jid} ${e.active.version}`)).toEqual(before);
    expect(before).toContain('new@agents.example 1.0.0');
    expect(before.some((line) => line.startsWith('weather@'))).toBe(false);
  });

  it('maps every world endpoint that names a runtime to the conformance runtime (#model-boundary)', async () => {
    const state = await start();
    expect([...state.runtimes.keys()].toSorted()).toEqual([
      'archive@agents.example',
      'calendar@agents.example',
      'conformance@agents.example',
      'toolbox@agents.example',
      'translator@agents.example',
      'vault@agents.example',
      'weather@agents.example',
      '\u{20000}@agents.example',
      '\ufa0e@agents.example',
    ]);
    expect(new Set([...state.runtimes.values()].map((runtime) => runtime.name))).toEqual(
      new Set(['conformance']),
    );
  });

  it('refuses to start, before writing anything, with a runtime name the gateway lacks', async () => {
    const worldPath = join(dir, 'unknown-runtime.json');
    writeFileSync(
      worldPath,
      JSON.stringify({
        endpoints: [
          {
            jid: 'fresh@agents.example',
            runtime: 'no-such-runtime',
            versions: [{ manifest: JSON.parse(manifestText({ jid: 'fresh@agents.example' })) as object }],
            active: '1.0.0',
          },
        ],
      }),
    );
    config = { ...config, world: worldPath };
    await expect(start()).rejects.toThrow(/no tool runtime named "no-such-runtime"/);
    config = { ...config, world: undefined };
    const empty = await start();
    expect(empty.registry.status('fresh@agents.example').ok).toBe(false);
    expect(empty.runtimes.size).toBe(0);
  });

  it('refuses to start with a world that conflicts with the database', async () => {
    const first = await start();
    const weather = JSON.parse(manifestText({ version: '1.4.0', title: 'Not the registered one' })) as object;
    first.close();
    const worldPath = join(dir, 'conflicting-world.json');
    writeFileSync(
      worldPath,
      JSON.stringify({ endpoints: [{ jid: 'weather@agents.example', versions: [{ manifest: weather }] }] }),
    );
    config = { ...config, world: worldPath };
    await expect(start()).rejects.toThrow(/version 1.4.0 is registered with different content/);
  });
});
