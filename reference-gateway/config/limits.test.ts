// Every documented limit (config/limits.ts, docs/gateway-config.md) reaches the code that
// enforces it: a config file with one tight limit, opened as the gateway opens it, and the IQ
// that crosses the limit answered through routeIq with the router the component builds. Each
// case has a control: the same request under the default limits is not refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xml, type Element } from '@xmpp/xml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { NS } from '../../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildIq,
  buildManifestRequest,
  buildRegister,
  buildRegistrationStatus,
  buildSearchFormRequest,
  parseDiscoItems,
  parseIq,
} from '../../protocol/stanza/index.ts';
import { routeIq } from '../component/iq-router.ts';
import { gatewayRouterOf } from '../component/gateway-component.ts';
import { manifestObject, REFERENCE_WORLD } from '../registration/test-support/manifests.ts';
import { WorldProvisioningError } from '../registration/world-provisioning.ts';
import { FIXED_NOW } from '../store/test-support/temp-store.ts';
import { loadGatewayConfig } from './gateway-config.ts';
import { openGatewayState, type GatewayState } from './gateway-state.ts';
import { DEFAULT_LIMITS } from './limits.ts';

const GATEWAY = 'agents.example';
const ADMIN = 'admin@server.example/console';
const BOB = 'bob@server.example/desk';

let dir: string;
const opened: GatewayState[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-limits-'));
});
afterEach(() => {
  for (const state of opened.splice(0)) state.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Gateway {
  readonly state: GatewayState;
  /** Routes one IQ and returns its reply's type and error condition ('result' for a result). */
  ask(from: string, to: string, type: 'get' | 'set', payload: Element): Promise<string>;
  /** Routes one IQ and returns its result payload. */
  payload(from: string, to: string, type: 'get' | 'set', payload: Element): Promise<Element>;
}

let counter = 0;

/** The gateway as `agentconf gateway` opens it from a file, with `limits` and `extra` members. */
async function gateway(limits: JsonObject | undefined, extra: JsonObject = {}): Promise<Gateway> {
  const path = join(dir, `gateway-${String(++counter)}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      component: { domain: GATEWAY, host: '127.0.0.1', port: 5347, secret: 'x' },
      database: `gateway-${String(counter)}.sqlite`,
      localDomains: ['server.example'],
      admins: ['admin@server.example'],
      ...(limits === undefined ? {} : { limits }),
      ...extra,
    }),
  );
  // A clock that stands still: token buckets never refill during a test.
  const state = await openGatewayState(loadGatewayConfig(path), () => FIXED_NOW);
  opened.push(state);
  const router = gatewayRouterOf(state);
  const reply = async (from: string, to: string, type: 'get' | 'set', payload: Element) => {
    const iq = buildIq({ id: `iq-${String(++counter)}`, type, from, to }, payload);
    return routeIq(iq, router);
  };
  return {
    state,
    async payload(from, to, type, payload) {
      const answer = await reply(from, to, type, payload);
      const parsed = answer === undefined ? undefined : parseIq(answer);
      if (parsed?.type !== 'result' || parsed.payload === undefined) throw new Error('no result payload');
      return parsed.payload;
    },
    async ask(from, to, type, payload) {
      const answer = await reply(from, to, type, payload);
      if (answer === undefined) return 'none';
      const parsed = parseIq(answer);
      return parsed.type === 'error' ? parsed.error.condition : parsed.type;
    },
  };
}

function register(g: Gateway, manifest: JsonObject, from = ADMIN): Promise<string> {
  return g.ask(from, GATEWAY, 'set', buildRegister({ manifestJson: JSON.stringify(manifest) }));
}

const tools = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ name: `tool.${String(i)}`, inputSchema: { type: 'object' } }));

const TOOL = { name: 'forecast.get', inputSchema: { type: 'object' } };

/** Manifest intake limits: each manifest breaks exactly the one limit named. */
const INTAKE_CASES: readonly (readonly [string, JsonObject, JsonObject])[] = [
  [
    'manifestMaxBytes',
    { manifestMaxBytes: 300 },
    manifestObject({ tools: [{ ...TOOL, description: 'x'.repeat(300) }] }),
  ],
  ['jsonMaxStringLength', { jsonMaxStringLength: 30 }, manifestObject({ title: 'y'.repeat(31) })],
  [
    'jsonMaxDepth',
    { jsonMaxDepth: 6 },
    manifestObject({
      tools: [
        {
          name: 'deep',
          inputSchema: { type: 'object', properties: { a: { type: 'object', properties: {} } } },
        },
      ],
    }),
  ],
  ['jsonMaxObjectMembers', { jsonMaxObjectMembers: 3 }, manifestObject({ title: 'four members in agent' })],
  ['jsonMaxArrayItems', { jsonMaxArrayItems: 2 }, manifestObject({ tools: tools(3) })],
  ['toolsPerManifest', { toolsPerManifest: 2 }, manifestObject({ tools: tools(3) })],
  [
    'schemaMaxBytes',
    { schemaMaxBytes: 40 },
    manifestObject({
      tools: [{ name: 'wordy', inputSchema: { type: 'object', description: 'z'.repeat(40) } }],
    }),
  ],
];

describe('manifest intake limits reach registration', () => {
  it.each(INTAKE_CASES)('%s', async (_name, limits, manifest) => {
    expect(await register(await gateway(limits), manifest)).toBe('resource-constraint');
    expect(await register(await gateway(undefined), manifest)).toBe('result');
  });

  it('reach the fixture world too: a world manifest over a limit stops the start', async () => {
    // The reference world's toolbox has 40 tools.
    await expect(gateway({ toolsPerManifest: 39 }, { world: REFERENCE_WORLD })).rejects.toThrow(
      WorldProvisioningError,
    );
    await expect(gateway({ toolsPerManifest: 40 }, { world: REFERENCE_WORLD })).resolves.toBeDefined();
  });

  it('are the defaults when the config names none', async () => {
    expect((await gateway(undefined)).state.config.limits).toEqual(DEFAULT_LIMITS);
  });
});

describe('limits.rsmPageMax reaches the discovery page maximum', () => {
  it('caps a directory listing without RSM and a larger <max/>', async () => {
    const control = await gateway(undefined, { world: REFERENCE_WORLD });
    const all = parseDiscoItems(await control.payload(BOB, GATEWAY, 'get', buildDiscoItemsRequest({}))).items;
    expect(all.length).toBeGreaterThan(2);
    const g = await gateway({ rsmPageMax: 2 }, { world: REFERENCE_WORLD });
    const plain = parseDiscoItems(await g.payload(BOB, GATEWAY, 'get', buildDiscoItemsRequest({})));
    expect(plain.items).toEqual(all.slice(0, 2));
    expect(plain.rsm?.count).toBe(all.length);
    const asked = parseDiscoItems(
      await g.payload(BOB, GATEWAY, 'get', buildDiscoItemsRequest({ rsm: { max: 3 } })),
    );
    expect(asked.items).toHaveLength(2);
  });
});

describe('limits.rateLimits reach every operation that is wired', () => {
  const ONE = { burst: 1, perSecond: 0.001 };

  it('discovery: an authorized request is limited; hidden and nonexistent stay item-not-found', async () => {
    const g = await gateway(
      { rateLimits: { discovery: { burst: 2, perSecond: 0.001 } } },
      { world: REFERENCE_WORLD },
    );
    const info = buildDiscoInfoRequest({});
    expect(await g.ask(BOB, GATEWAY, 'get', info)).toBe('result');
    expect(await g.ask(BOB, 'weather@agents.example', 'get', info)).toBe('result');
    expect(await g.ask(BOB, GATEWAY, 'get', info)).toBe('resource-constraint');
    expect(await g.ask(BOB, 'weather@agents.example', 'get', info)).toBe('resource-constraint');
    // vault is hidden from local callers: limited or not, it must look like nobody@.
    expect(await g.ask(BOB, 'vault@agents.example', 'get', info)).toBe('item-not-found');
    expect(await g.ask(BOB, 'nobody@agents.example', 'get', info)).toBe('item-not-found');
    // Buckets are per principal.
    expect(await g.ask('carol@server.example/x', GATEWAY, 'get', info)).toBe('result');
    // And the XEP-0199 ping is not discovery.
    expect(await g.ask(BOB, GATEWAY, 'get', xml('ping', { xmlns: NS.ping }))).toBe('result');
  });

  it('search', async () => {
    const g = await gateway({ rateLimits: { search: ONE } });
    expect(await g.ask(BOB, GATEWAY, 'get', buildSearchFormRequest())).toBe('result');
    expect(await g.ask(BOB, GATEWAY, 'get', buildSearchFormRequest())).toBe('resource-constraint');
  });

  it('metadata (manifest and schema retrieval)', async () => {
    const g = await gateway({ rateLimits: { metadata: ONE } }, { world: REFERENCE_WORLD });
    const manifest = buildManifestRequest({});
    expect(await g.ask(BOB, 'weather@agents.example', 'get', manifest)).toBe('result');
    expect(await g.ask(BOB, 'weather@agents.example', 'get', manifest)).toBe('resource-constraint');
    expect(await g.ask(BOB, 'vault@agents.example', 'get', manifest)).toBe('item-not-found');
  });

  it('registration (self-registration by a local sender)', async () => {
    const g = await gateway({ rateLimits: { registration: ONE } });
    const carol = 'carol@server.example/x';
    const own = (version: string) => manifestObject({ jid: 'carol@server.example', version });
    expect(await register(g, own('1.0.0'), carol)).toBe('result');
    expect(await register(g, own('2.0.0'), carol)).toBe('resource-constraint');
  });

  it('administration', async () => {
    const g = await gateway({ rateLimits: { administration: ONE } }, { world: REFERENCE_WORLD });
    const status = buildRegistrationStatus({ jid: 'weather@agents.example' });
    expect(await g.ask(ADMIN, GATEWAY, 'get', status)).toBe('result');
    expect(await g.ask(ADMIN, GATEWAY, 'get', status)).toBe('resource-constraint');
  });

  it('invocation: the configured bucket is in the limiter the task engine is given', async () => {
    // Invocation is not routed yet (the task engine lands separately); its admission takes
    // 'invocation' tokens from state.rateLimiter, which must hold the configured rule.
    const g = await gateway({ rateLimits: { invocation: ONE } });
    expect(g.state.rateLimiter.take('invocation', 'bob@server.example').allowed).toBe(true);
    expect(g.state.rateLimiter.take('invocation', 'bob@server.example').allowed).toBe(false);
  });
});
