// #json-encoding and #rules limits over the wire, with small documented limits
// (docs/gateway-config.md): a manifest too large, too deep, with too many tools or too large a
// schema gets <resource-constraint/> (type wait) once the sender is authorized, and an
// unauthorized sender gets its usual forbidden or item-not-found first (interp-42);
// RSM <max/> above the page maximum is clamped, as documented.
//
// The world is the reference world without toolbox (40 tools, 7.5 KB), which these limits
// would refuse at start.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/json/json-value.ts';
import {
  buildDiscoItemsRequest,
  buildSearchRequest,
  parseDiscoItems,
  parseSearchResults,
} from '../protocol/stanza/index.ts';
import { encodeCollectionNode } from '../protocol/tool-node.ts';
import { provisioningOf } from './test-support/admin.ts';
import { JID } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectIdenticalErrors, expectStanzaError, outcomeOf, resultPayload } from './test-support/wire.ts';

const LIMITS = {
  manifestMaxBytes: 3000,
  jsonMaxDepth: 12,
  schemaMaxBytes: 300,
  toolsPerManifest: 3,
  rsmPageMax: 2,
} as const;

/** A local account without admin rights: a self-registrant for its own JID only. */
const DAVE = 'dave@server.example';

const world = useGatewayFederation({
  config: { limits: LIMITS },
  world: (reference) => ({
    ...reference,
    endpoints: (Array.isArray(reference['endpoints']) ? reference['endpoints'] : []).filter(
      (endpoint) => !(isJsonObject(endpoint) && endpoint['jid'] === JID.toolbox),
    ),
  }),
  accounts: [CAROL, DAVE],
  connect: [BOB, ALICE, CAROL, DAVE],
});

function manifest(jid: string, tools: readonly JsonObject[], description = 'Limits fixture.'): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: 'limits', description, version: '1.0.0' },
    tools: [...tools],
  };
}

const tool = (name: string, inputSchema: JsonObject = { type: 'object' }): JsonObject => ({
  name,
  inputSchema,
});

/** An object schema whose properties nest `levels` deep. */
function nested(levels: number): JsonObject {
  let schema: JsonObject = { type: 'object' };
  for (let level = 0; level < levels; level += 1) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

/** The manifests over each limit, for any claimed JID. */
function overLimit(jid: string): Record<string, string> {
  const text = (value: JsonValue): string => JSON.stringify(value);
  const large = text(manifest(jid, [tool('echo')], 'x'.repeat(LIMITS.manifestMaxBytes)));
  const deep = text(manifest(jid, [tool('echo', nested(LIMITS.jsonMaxDepth))]));
  const tools = text(
    manifest(
      jid,
      ['a', 'b', 'c', 'd'].map((name) => tool(name)),
    ),
  );
  const schema = text(
    manifest(jid, [tool('echo', { type: 'object', description: 'y'.repeat(LIMITS.schemaMaxBytes) })]),
  );
  expect(Buffer.byteLength(large)).toBeGreaterThan(LIMITS.manifestMaxBytes);
  for (const within of [deep, tools, schema])
    expect(Buffer.byteLength(within)).toBeLessThan(LIMITS.manifestMaxBytes);
  return { manifestMaxBytes: large, jsonMaxDepth: deep, toolsPerManifest: tools, schemaMaxBytes: schema };
}

describe('#json-encoding manifest limits', () => {
  it('#json-encoding an admin past each documented manifest limit gets resource-constraint; nothing is registered', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const jid = 'limits@agents.example';
    for (const [limit, text] of Object.entries(overLimit(jid))) {
      expect(outcomeOf(await admin.register(text)), limit).toBe('resource-constraint/wait');
    }
    expectStanzaError(await admin.status(jid), 'item-not-found', 'cancel');
    // Within every limit the same manifest shape registers.
    const fits = JSON.stringify(manifest(jid, [tool('echo')]));
    expect(outcomeOf(await admin.register(fits))).toBe('result');
  });

  it('#json-encoding an unauthorized sender gets forbidden for the same manifests, never resource-constraint', async () => {
    const cases: [string, string][] = [
      [ALICE, 'limits@agents.example'],
      [ALICE, ALICE],
      [CAROL, CAROL],
      [DAVE, 'limits@agents.example'],
    ];
    for (const [sender, claimed] of cases) {
      const caller = await world().caller(sender);
      for (const [limit, text] of Object.entries(overLimit(claimed))) {
        expect(outcomeOf(await provisioningOf(caller).register(text)), `${sender} ${claimed} ${limit}`).toBe(
          'forbidden/auth',
        );
      }
    }
  });

  it('#json-encoding a self-registrant: an unreadable claim is forbidden, a readable own claim meets the limits', async () => {
    const dave = await world().caller(DAVE);
    const own = overLimit(DAVE);
    // Too large or too deep to parse: agent.jid was never read, so the sender is not authorized.
    expect(outcomeOf(await provisioningOf(dave).register(own['manifestMaxBytes'] ?? ''))).toBe(
      'forbidden/auth',
    );
    expect(outcomeOf(await provisioningOf(dave).register(own['jsonMaxDepth'] ?? ''))).toBe('forbidden/auth');
    // Parsed, claim checked (its own JID), then the manifest limits apply.
    expect(outcomeOf(await provisioningOf(dave).register(own['toolsPerManifest'] ?? ''))).toBe(
      'resource-constraint/wait',
    );
    expect(outcomeOf(await provisioningOf(dave).register(own['schemaMaxBytes'] ?? ''))).toBe(
      'resource-constraint/wait',
    );
  });
});

describe('#rules page maximum', () => {
  async function directory(caller: Caller, max: number): Promise<ReturnType<typeof parseDiscoItems>> {
    const request = buildDiscoItemsRequest({ rsm: { max } });
    return parseDiscoItems(resultPayload(await caller.exchangeIq(GATEWAY, 'get', request)));
  }

  it('#rules <max/> above the page maximum is clamped to it, the count stays the whole visible set', async () => {
    const bob = await world().caller(BOB);
    const page = await directory(bob, 2_147_483_647);
    expect(page.items.map((item) => item.jid)).toEqual([JID.calendar, JID.translator]);
    expect(page.rsm).toEqual({ first: { uid: JID.calendar, index: 0 }, last: JID.translator, count: 3 });
    const search = buildSearchRequest({ kind: 'legacy', fields: {}, rsm: { max: 1000 } });
    const found = parseSearchResults(resultPayload(await bob.exchangeIq(GATEWAY, 'set', search)));
    expect(found.kind === 'legacy' ? found.items.map((item) => item.jid) : []).toEqual([
      JID.calendar,
      JID.translator,
    ]);
    expect(found.rsm?.count).toBe(3);
  });

  it('#rules an unauthorized sender asking above the page maximum still gets item-not-found, as for a nonexistent endpoint', async () => {
    const carol = await world().caller(CAROL);
    const request = buildDiscoItemsRequest({
      node: encodeCollectionNode('1.0.0'),
      rsm: { max: 2_147_483_647 },
    });
    const denied = await carol.exchangeIq(JID.calendar, 'get', request);
    const missing = await carol.exchangeIq(JID.nobody, 'get', request);
    expectStanzaError(denied, 'item-not-found', 'cancel');
    expectIdenticalErrors({
      unauthorized: { exchange: denied, to: JID.calendar },
      nonexistent: { exchange: missing, to: JID.nobody },
    });
    // carol's one visible endpoint is clamped like anyone's.
    expect((await directory(carol, 1000)).rsm).toEqual({
      first: { uid: JID.weather, index: 0 },
      last: JID.weather,
      count: 1,
    });
  });
});
