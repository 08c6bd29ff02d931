// #security, #errors, #rules and #privacy over the wire: deny by default for a federated account
// without grants, byte-identical errors for hidden, nonexistent and unauthorized objects, one
// visibility decision for every surface, and error replies that never echo the request's JSON.
//
// The world is the reference world without its example.com domain grant, so that
// carol@example.com is an account no grant names (the reference world lets all of example.com
// see weather); alice keeps her principal grants.
import { xml, type Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { isJsonObject } from '../protocol/json/json-value.ts';
import { NS } from '../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildSchemaRequest,
  buildSearchFormRequest,
  buildSearchRequest,
  parseDiscoItems,
  parseSearchResults,
  type Hash,
} from '../protocol/stanza/index.ts';
import { encodeCollectionNode, encodeToolNode } from '../protocol/tool-node.ts';
import { provisioningOf } from './test-support/admin.ts';
import { JID, MANIFEST, VISIBLE, type FixtureManifest } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  errorText,
  expectIdenticalErrors,
  expectStanzaError,
  outcomeOf,
  resultPayload,
} from './test-support/wire.ts';

const DAVE = 'dave@server.example';

const world = useGatewayFederation({
  world: (reference) => ({
    ...reference,
    grants: (Array.isArray(reference['grants']) ? reference['grants'] : []).filter(
      (grant) => !(isJsonObject(grant) && grant['domain'] === 'example.com'),
    ),
  }),
  accounts: [CAROL, DAVE],
  connect: [BOB, ALICE, CAROL, DAVE],
});

interface Target {
  readonly jid: string;
  readonly version: string;
  readonly tool: string;
  readonly hash: Hash;
}

function target(jid: string, manifest: FixtureManifest, tool: string): Target {
  const agent = manifest.value['agent'];
  const version = isJsonObject(agent) && typeof agent['version'] === 'string' ? agent['version'] : '';
  return { jid, version, tool, hash: manifest.document.hash };
}

const TARGETS = {
  weather: target(JID.weather, MANIFEST.weather, 'forecast.get'),
  calendar: target(JID.calendar, MANIFEST.calendar, 'events.list'),
  translator: target(JID.translator, MANIFEST.translator, 'translate'),
  vault: target(JID.vault, MANIFEST.vault, 'records.count'),
  toolbox: target(JID.toolbox, MANIFEST.toolbox, 'tool.01'),
  archive: target(JID.archive, MANIFEST.archive, 'document.fetch'),
} as const;

/** The same request at a JID that does not exist. */
const nonexistent = (like: Target): Target => ({ ...like, jid: JID.nobody });

/** Every object a visibility decision guards, as one request each (#rules). */
const SURFACES: Readonly<Record<string, (t: Target) => { type: 'get'; payload: Element }>> = {
  'endpoint info': () => ({ type: 'get', payload: buildDiscoInfoRequest({}) }),
  'endpoint items': () => ({ type: 'get', payload: buildDiscoItemsRequest({}) }),
  'collection info': (t) => ({
    type: 'get',
    payload: buildDiscoInfoRequest({ node: encodeCollectionNode(t.version) }),
  }),
  'collection items': (t) => ({
    type: 'get',
    payload: buildDiscoItemsRequest({ node: encodeCollectionNode(t.version), rsm: { max: 10 } }),
  }),
  'tool info': (t) => ({
    type: 'get',
    payload: buildDiscoInfoRequest({ node: encodeToolNode(t.version, t.tool) }),
  }),
  'tool items': (t) => ({
    type: 'get',
    payload: buildDiscoItemsRequest({ node: encodeToolNode(t.version, t.tool) }),
  }),
  'active manifest': () => ({ type: 'get', payload: buildManifestRequest({}) }),
  'exact manifest': (t) => ({ type: 'get', payload: buildManifestRequest({ version: t.version }) }),
  schema: (t) => ({
    type: 'get',
    payload: buildSchemaRequest({
      tool: t.tool,
      version: t.version,
      direction: 'input',
      manifestHash: t.hash,
    }),
  }),
};

function probe(caller: Caller, t: Target, surface: string): Promise<IqExchange> {
  const build = SURFACES[surface];
  if (build === undefined) throw new Error(`no surface ${surface}`);
  const { type, payload } = build(t);
  return caller.exchangeIq(t.jid, type, payload);
}

describe('#security deny by default', () => {
  it('#security an example.com account without grants sees an empty directory: no items, count 0', async () => {
    const carol = await world().caller(CAROL);
    const plain = parseDiscoItems(
      resultPayload(await carol.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({}))),
    );
    expect(plain.items).toEqual([]);
    const counted = parseDiscoItems(
      resultPayload(await carol.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({ rsm: { max: 0 } }))),
    );
    expect(counted.rsm).toEqual({ count: 0 });
    const search = buildSearchRequest({ kind: 'legacy', fields: {}, rsm: { max: 10 } });
    const found = parseSearchResults(resultPayload(await carol.exchangeIq(GATEWAY, 'set', search)));
    expect(found).toEqual({ kind: 'empty', rsm: { count: 0 } });
  });

  it('#security every object answers that account item-not-found, byte-identical to a nonexistent endpoint', async () => {
    const carol = await world().caller(CAROL);
    for (const t of Object.values(TARGETS)) {
      for (const surface of Object.keys(SURFACES)) {
        const denied = await probe(carol, t, surface);
        const missing = await probe(carol, nonexistent(t), surface);
        expectStanzaError(denied, 'item-not-found', 'cancel');
        expectIdenticalErrors({
          [`${t.jid} ${surface}`]: { exchange: denied, to: t.jid },
          [`${JID.nobody} ${surface}`]: { exchange: missing, to: JID.nobody },
        });
      }
    }
  });

  it('#security a principal grant opens exactly what it names: alice sees her endpoints, not translator', async () => {
    const alice = await world().caller(ALICE);
    const listed = parseDiscoItems(
      resultPayload(await alice.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({}))),
    );
    expect(listed.items.map((item) => item.jid)).toEqual(VISIBLE.alice);
    expect(outcomeOf(await probe(alice, TARGETS.vault, 'endpoint info'))).toBe('result');
    expect(outcomeOf(await probe(alice, TARGETS.translator, 'endpoint info'))).toBe('item-not-found/cancel');
  });
});

describe('#errors hidden, nonexistent and unauthorized objects', () => {
  it('#errors hidden and nonexistent answer byte-identical errors to a local caller, on every surface', async () => {
    const bob = await world().caller(BOB);
    for (const surface of Object.keys(SURFACES)) {
      expectIdenticalErrors({
        [`hidden vault ${surface}`]: { exchange: await probe(bob, TARGETS.vault, surface), to: JID.vault },
        [`nonexistent ${surface}`]: {
          exchange: await probe(bob, nonexistent(TARGETS.vault), surface),
          to: JID.nobody,
        },
      });
    }
  });

  it('#errors unauthorized, hidden and nonexistent answer byte-identical errors to remote callers, on every surface', async () => {
    const alice = await world().caller(ALICE);
    const carol = await world().caller(CAROL);
    const bob = await world().caller(BOB);
    for (const surface of Object.keys(SURFACES)) {
      const aliceUnauthorized = await probe(alice, TARGETS.translator, surface);
      expectIdenticalErrors({
        [`alice: unauthorized translator ${surface}`]: { exchange: aliceUnauthorized, to: JID.translator },
        [`alice: nonexistent ${surface}`]: {
          exchange: await probe(alice, nonexistent(TARGETS.translator), surface),
          to: JID.nobody,
        },
      });
      const carolUnauthorized = await probe(carol, TARGETS.weather, surface);
      expectIdenticalErrors({
        [`carol: unauthorized weather ${surface}`]: { exchange: carolUnauthorized, to: JID.weather },
        [`carol: hidden vault ${surface}`]: {
          exchange: await probe(carol, TARGETS.vault, surface),
          to: JID.vault,
        },
        [`carol: nonexistent ${surface}`]: {
          exchange: await probe(carol, nonexistent(TARGETS.weather), surface),
          to: JID.nobody,
        },
      });
      // Across callers, local or remote, the <error/> element itself is the same bytes.
      const bobHidden = await probe(bob, TARGETS.vault, surface);
      expect([errorText(aliceUnauthorized), errorText(carolUnauthorized)], surface).toEqual([
        errorText(bobHidden),
        errorText(bobHidden),
      ]);
    }
  });
});

describe('#privacy answers decided before visibility', () => {
  it('#privacy a full JID, a ping, a wrong IQ type and search at an endpoint answer hidden and nonexistent alike', async () => {
    const bob = await world().caller(BOB);
    const asks: [string, (jid: string) => Promise<IqExchange>][] = [
      [
        'disco#info at a full JID',
        (jid) => bob.exchangeIq(`${jid}/runtime`, 'get', buildDiscoInfoRequest({})),
      ],
      ['ping', (jid) => bob.exchangeIq(jid, 'get', xml('ping', { xmlns: NS.ping }))],
      ['disco#info as IQ set', (jid) => bob.exchangeIq(jid, 'set', buildDiscoInfoRequest({}))],
      ['search at an endpoint', (jid) => bob.exchangeIq(jid, 'get', buildSearchFormRequest())],
    ];
    for (const [name, ask] of asks) {
      const hidden = await ask(JID.vault);
      const missing = await ask(JID.nobody);
      expect(outcomeOf(hidden), name).toBe(outcomeOf(missing));
      const to = (jid: string): string => (name === 'disco#info at a full JID' ? `${jid}/runtime` : jid);
      if (hidden.parsed.type === 'error') {
        expectIdenticalErrors({
          [`hidden ${name}`]: { exchange: hidden, to: to(JID.vault) },
          [`nonexistent ${name}`]: { exchange: missing, to: to(JID.nobody) },
        });
      }
    }
  });
});

describe('#rules one visibility decision', () => {
  it('#rules directory, search, endpoint info, manifest, tool info and schemas agree for every caller and endpoint', async () => {
    const callers = [await world().caller(BOB), await world().caller(ALICE), await world().caller(CAROL)];
    for (const caller of callers) {
      const listed = parseDiscoItems(
        resultPayload(await caller.exchangeIq(GATEWAY, 'get', buildDiscoItemsRequest({}))),
      ).items.map((item) => item.jid);
      const search = buildSearchRequest({ kind: 'legacy', fields: {} });
      const found = parseSearchResults(resultPayload(await caller.exchangeIq(GATEWAY, 'set', search)));
      expect(found.kind === 'legacy' ? found.items.map((item) => item.jid) : [], caller.bareJid).toEqual(
        listed,
      );
      // archive is deactivated: never listed, and no active object to answer (interp-23).
      for (const t of Object.values(TARGETS).filter((candidate) => candidate.jid !== JID.archive)) {
        const expected = listed.includes(t.jid) ? 'result' : 'item-not-found/cancel';
        for (const surface of Object.keys(SURFACES)) {
          expect(outcomeOf(await probe(caller, t, surface)), `${caller.bareJid} ${t.jid} ${surface}`).toBe(
            expected,
          );
        }
      }
    }
  });
});

describe('#errors no reflection of request JSON', () => {
  const CANARY = 'agentconf-canary-5d41402abc4b2a76';

  function expectNoEcho(exchange: IqExchange, condition: string): void {
    expect(outcomeOf(exchange), exchange.reply.xml).toBe(condition);
    expect(exchange.reply.xml).not.toContain(CANARY);
    expect(exchange.reply.xml).not.toContain('<register');
  }

  it('#errors refused registrations never echo the submitted JSON, whatever the refusal', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const invalid = JSON.stringify({
      manifestSpecVersion: '0',
      agent: { jid: 'echo@agents.example', name: CANARY, version: '1.0.0' },
      tools: [{ name: 'echo', inputSchema: { type: CANARY } }],
    });
    expectNoEcho(await admin.register(invalid), 'not-acceptable/modify');
    expectNoEcho(await admin.register(`{"agent": "${CANARY}`), 'bad-request/modify');
    expectNoEcho(await admin.register(`{"a": "${CANARY}", "a": "${CANARY}"}`), 'not-acceptable/modify');
    for (const sender of [DAVE, ALICE, CAROL]) {
      expectNoEcho(await provisioningOf(await world().caller(sender)).register(invalid), 'forbidden/auth');
    }
  });

  it('#errors discovery errors never echo the request either', async () => {
    const bob = await world().caller(BOB);
    for (const jid of [JID.weather, JID.vault]) {
      const request = buildSchemaRequest({
        tool: CANARY,
        version: '1.0.0',
        direction: 'input',
        manifestHash: MANIFEST.vault.document.hash,
      });
      const exchange = await bob.exchangeIq(jid, 'get', request);
      expect(exchange.parsed.type).toBe('error');
      expect(exchange.reply.xml).not.toContain(CANARY);
      expect(exchange.reply.xml).not.toContain('<schema-request');
    }
  });
});
