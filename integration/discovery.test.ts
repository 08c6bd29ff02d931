// #discovery over the wire: gateway, directory, endpoint, tool collection and tool disco, manifest
// and schema retrieval, from bob@server.example (local) and alice@example.com (remote, across s2s).
import type { Element } from '@xmpp/xml';
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { FEATURE, FORM_TYPE, NODE_DIRECTORY, NS } from '../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildSchemaRequest,
  buildSearchFormRequest,
  parseDiscoInfo,
  parseDiscoItems,
  parseManifest,
  parseSchema,
  type RsmRequest,
} from '../protocol/stanza/index.ts';
import { decodeToolNode, encodeCollectionNode, encodeToolNode } from '../protocol/tool-node.ts';
import type { Caller } from '../harness/driver/index.ts';
import {
  JID,
  MANIFEST,
  VISIBLE,
  fieldsOf,
  inOctetOrder,
  toolNames,
  toolSchemaDocument,
  type FixtureManifest,
} from './test-support/fixtures.ts';
import { ALICE, BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectStanzaError, resultPayload } from './test-support/wire.ts';

const GATEWAY_NAME = 'Integration Gateway';
const REPLAY_SECONDS = 3600;

const world = useGatewayFederation({
  config: {
    name: GATEWAY_NAME,
    endpointInfo: { coldStartSupported: true, requestReplaySeconds: REPLAY_SECONDS },
  },
  connect: [BOB, ALICE],
});

const bob = (): Promise<Caller> => world().caller(BOB);
const alice = (): Promise<Caller> => world().caller(ALICE);
/** bob@server.example (local) and alice@example.com (remote, across s2s): the reference world lets both see what these tests ask. */
const localAndRemote = async (): Promise<Caller[]> => [await bob(), await alice()];

async function discoInfo(
  caller: Caller,
  to: string,
  node?: string,
): Promise<ReturnType<typeof parseDiscoInfo>> {
  const exchange = await caller.exchangeIq(
    to,
    'get',
    buildDiscoInfoRequest(node === undefined ? {} : { node }),
  );
  return parseDiscoInfo(resultPayload(exchange));
}

async function discoItems(
  caller: Caller,
  to: string,
  request: { node?: string; rsm?: RsmRequest } = {},
): Promise<ReturnType<typeof parseDiscoItems>> {
  return parseDiscoItems(resultPayload(await caller.exchangeIq(to, 'get', buildDiscoItemsRequest(request))));
}

function endpointInfoExpected(
  manifest: FixtureManifest,
  coldStart: '1' | '0',
  replay: string,
): Record<string, unknown> {
  const agent = manifest.value['agent'] as Record<string, string>;
  return {
    FORM_TYPE: { type: 'hidden', values: [FORM_TYPE.endpointInfo] },
    server_name: { type: 'text-single', values: [agent['name']] },
    server_title: { type: 'text-single', values: [agent['title'] ?? agent['name']] },
    ...(agent['description'] === undefined
      ? {}
      : { description: { type: 'text-multi', values: [agent['description']] } }),
    version: { type: 'text-single', values: [agent['version']] },
    manifest_hash_algo: { type: 'text-single', values: ['sha-256'] },
    manifest_hash_value: { type: 'text-single', values: [manifest.document.hash.value] },
    cold_start_supported: { type: 'boolean', values: [coldStart] },
    request_replay_seconds: { type: 'text-single', values: [replay] },
  };
}

describe('#gateway-info', () => {
  it('#gateway-info identity automation/agent-gateway and exactly the features this gateway implements', async () => {
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, GATEWAY);
      expect(info.identities).toEqual([
        { category: 'automation', type: 'agent-gateway', name: GATEWAY_NAME },
      ]);
      // #conformance: nothing unimplemented (no task features: this gateway does not invoke yet).
      expect(info.features.toSorted()).toEqual(
        [
          NS.discoInfo,
          NS.discoItems,
          NS.rsm,
          FEATURE.directory,
          NS.search,
          NS.dataForms,
          FEATURE.admin,
          FEATURE.selfRegister,
          NS.ping,
        ].toSorted(),
      );
    }
  });

  it('#gateway-info each advertised gateway service answers: ping, search form, directory', async () => {
    const caller = await bob();
    expect((await caller.exchangeIq(GATEWAY, 'get', xml('ping', { xmlns: NS.ping }))).parsed.type).toBe(
      'result',
    );
    const form = resultPayload(await caller.exchangeIq(GATEWAY, 'get', buildSearchFormRequest()));
    expect(form.getChild('x', NS.dataForms)).toBeDefined();
    expect((await discoItems(caller, GATEWAY)).items.length).toBeGreaterThan(0);
  });
});

describe('#list-agents', () => {
  it('#list-agents node-less and directory-node items list the same visible endpoints, no node on items', async () => {
    for (const [caller, visible] of [
      [await bob(), VISIBLE.local],
      [await alice(), VISIBLE.alice],
    ] as const) {
      const plain = await discoItems(caller, GATEWAY);
      const directory = await discoItems(caller, GATEWAY, { node: NODE_DIRECTORY });
      expect(plain.node).toBeUndefined();
      expect(directory.node).toBe(NODE_DIRECTORY);
      expect(plain.items).toEqual(directory.items);
      expect(plain.items.map((item) => item.jid)).toEqual(visible);
      for (const item of plain.items) expect(item.node).toBeUndefined();
    }
  });

  it('#list-agents items carry the endpoint display name (agent.title)', async () => {
    for (const caller of await localAndRemote()) {
      const items = await discoItems(caller, GATEWAY, { node: NODE_DIRECTORY });
      expect(items.items.find((item) => item.jid === JID.weather)?.name).toBe('Weather Agent');
      expect(items.items.find((item) => item.jid === JID.toolbox)?.name).toBe('Toolbox');
    }
  });

  it('#list-agents the directory node answers disco#info with automation/agent-directory', async () => {
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, GATEWAY, NODE_DIRECTORY);
      expect(info.node).toBe(NODE_DIRECTORY);
      expect(info.identities).toEqual([{ category: 'automation', type: 'agent-directory' }]);
      expect(info.features.toSorted()).toEqual([NS.discoInfo, NS.discoItems].toSorted());
    }
  });
});

describe('#endpoint-info', () => {
  it('#endpoint-info identity, features and the endpoint-info form (cold_start_supported 1, request_replay_seconds)', async () => {
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, JID.weather);
      expect(info.identities).toEqual([
        { category: 'automation', type: 'agent-endpoint', name: 'Weather Agent' },
      ]);
      // weather runs on the world's conformance runtime, so it executes tasks with every feature.
      expect(info.features.toSorted()).toEqual(
        [
          NS.discoInfo,
          NS.discoItems,
          FEATURE.endpoint,
          FEATURE.manifest,
          FEATURE.schema,
          FEATURE.task,
          FEATURE.taskCancel,
          FEATURE.taskInput,
          FEATURE.taskProgress,
          NS.ping,
        ].toSorted(),
      );
      expect(info.forms).toHaveLength(1);
      expect(fieldsOf(info.forms[0])).toEqual(
        endpointInfoExpected(MANIFEST.weather, '1', String(REPLAY_SECONDS)),
      );
    }
  });

  it('#endpoint-info server_title falls back to nothing manufactured: every field from the active manifest', async () => {
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, JID.calendar);
      expect(fieldsOf(info.forms[0])).toEqual(
        endpointInfoExpected(MANIFEST.calendar, '1', String(REPLAY_SECONDS)),
      );
    }
  });

  it('#endpoint-info node-less disco#items lists the active version collection node (interp-16)', async () => {
    for (const caller of await localAndRemote()) {
      const items = await discoItems(caller, JID.weather);
      expect(items.items).toEqual([{ jid: JID.weather, node: encodeCollectionNode('1.4.0') }]);
    }
  });

  it('#endpoint-info urn:xmpp:agent-endpoint:0 used as a node is item-not-found (info and items)', async () => {
    for (const caller of await localAndRemote()) {
      const info = await caller.exchangeIq(
        JID.weather,
        'get',
        buildDiscoInfoRequest({ node: FEATURE.endpoint }),
      );
      expectStanzaError(info, 'item-not-found', 'cancel');
      const items = await caller.exchangeIq(
        JID.weather,
        'get',
        buildDiscoItemsRequest({ node: FEATURE.endpoint }),
      );
      expectStanzaError(items, 'item-not-found', 'cancel');
    }
  });
});

/** Every tool item of a collection, page by page via <after/> = the previous <last/>. */
async function walkTools(caller: Caller, jid: string, version: string, max: number): Promise<Element[]> {
  const pages: Element[] = [];
  let after: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const rsm: RsmRequest = after === undefined ? { max } : { max, after };
    const exchange = await caller.exchangeIq(
      jid,
      'get',
      buildDiscoItemsRequest({ node: encodeCollectionNode(version), rsm }),
    );
    const payload = resultPayload(exchange);
    pages.push(payload);
    const parsed = parseDiscoItems(payload);
    if (parsed.items.length < max || parsed.rsm?.last === undefined) return pages;
    after = parsed.rsm.last;
  }
  throw new Error('more than 100 pages');
}

describe('#list-tools', () => {
  const toolbox = MANIFEST.toolbox;
  const expectedOrder = inOctetOrder(toolNames(toolbox));

  it('#list-tools toolbox tools in UTF-8 octet order of their names (astral after U+E000–U+FFFF), every page counted', async () => {
    for (const caller of await localAndRemote()) {
      const pages = await walkTools(caller, JID.toolbox, '3.0.0', 7);
      const parsed = pages.map(parseDiscoItems);
      const nodes = parsed.flatMap((page) => page.items.map((item) => item.node ?? ''));
      const names = nodes.map((node) => decodeToolNode(node).toolName);
      expect(names).toEqual(expectedOrder);
      // UTF-16 code-unit order would put the surrogate pairs before U+E000: the #list-tools trap.
      const at = (name: string): number => names.indexOf(name);
      expect(at('A')).toBeLessThan(at('\u0416'));
      expect(at('\uE000.private-use')).toBeLessThan(at('\uFFEF.halfwidth'));
      expect(at('\uFFEF.halfwidth')).toBeLessThan(at('\u{10000}.linear-b'));
      expect(at('\u{10000}.linear-b')).toBeLessThan(at('\u{1F600}.grin'));
      let index = 0;
      for (const page of parsed) {
        expect(page.node).toBe(encodeCollectionNode('3.0.0'));
        expect(page.rsm?.count).toBe(expectedOrder.length);
        expect(page.rsm?.first).toEqual({ uid: page.items[0]?.node, index });
        expect(page.rsm?.last).toBe(page.items.at(-1)?.node);
        for (const item of page.items) {
          expect(item.jid).toBe(JID.toolbox);
          expect(item.name).toBe(decodeToolNode(item.node ?? '').toolName);
        }
        index += page.items.length;
      }
    }
  });

  it('#list-tools an RSM UID naming no tool continues from its decoded name, not from the node string', async () => {
    for (const caller of await localAndRemote()) {
      const node = encodeCollectionNode('3.0.0');
      const page = async (rsm: RsmRequest): Promise<string[]> =>
        (await discoItems(caller, JID.toolbox, { node, rsm })).items.map(
          (item) => decodeToolNode(item.node ?? '').toolName,
        );
      // "tool.10x" sorts between tool.10 and tool.11; "B" between A and Zeta.
      expect(await page({ max: 2, after: encodeToolNode('3.0.0', 'tool.10x') })).toEqual([
        'tool.11',
        'tool.12',
      ]);
      expect(await page({ max: 2, before: encodeToolNode('3.0.0', 'B') })).toEqual(['A']);
      // "A" encodes as QQ and "Ж" as 0JY: by node string Ж would come first; by name it is after A.
      expect(await page({ max: 1, after: encodeToolNode('3.0.0', 'A') })).toEqual(['Zeta']);
      expect(await page({ max: 1, after: encodeToolNode('3.0.0', '\u0416') })).toEqual([
        '\uE000.private-use',
      ]);
    }
  });

  it('#list-tools the collection node answers disco#info with automation/agent-tool-collection', async () => {
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, JID.weather, encodeCollectionNode('1.4.0'));
      expect(info.node).toBe(encodeCollectionNode('1.4.0'));
      expect(info.identities).toEqual([{ category: 'automation', type: 'agent-tool-collection' }]);
      expect(info.features.toSorted()).toEqual([NS.discoInfo, NS.discoItems].toSorted());
    }
  });

  it('#list-tools an exact non-active version stays listable, pinned to its own tools', async () => {
    for (const caller of await localAndRemote()) {
      const items = await discoItems(caller, JID.weather, { node: encodeCollectionNode('2.0.0') });
      expect(items.items).toEqual([
        { jid: JID.weather, node: encodeToolNode('2.0.0', 'alerts.list'), name: 'List Alerts' },
        { jid: JID.weather, node: encodeToolNode('2.0.0', 'forecast.get'), name: 'Get Forecast' },
      ]);
    }
  });
});

describe('#tool-info', () => {
  it('#tool-info forecast.get: identity, features and the tool-info form with both hash pairs and every stated annotation', async () => {
    const node = encodeToolNode('1.4.0', 'forecast.get');
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, JID.weather, node);
      expect(info.node).toBe(node);
      expect(info.identities).toEqual([{ category: 'automation', type: 'agent-tool', name: 'Get Forecast' }]);
      // The endpoint advertises every task feature; the tool narrows them to what its manifest
      // declares (cancellation and progress), as effective support needs both (#conformance).
      expect(info.features.toSorted()).toEqual(
        [NS.discoInfo, FEATURE.tool, FEATURE.taskCancel, FEATURE.taskProgress].toSorted(),
      );
      const input = toolSchemaDocument(MANIFEST.weather, 'forecast.get', 'input');
      const output = toolSchemaDocument(MANIFEST.weather, 'forecast.get', 'output');
      expect(fieldsOf(info.forms[0])).toEqual({
        FORM_TYPE: { type: 'hidden', values: [FORM_TYPE.toolInfo] },
        name: { type: 'text-single', values: ['forecast.get'] },
        title: { type: 'text-single', values: ['Get Forecast'] },
        description: { type: 'text-multi', values: ['Gets a forecast for one city.'] },
        api_version: { type: 'text-single', values: ['1.4.0'] },
        input_schema_hash_algo: { type: 'text-single', values: ['sha-256'] },
        input_schema_hash_value: { type: 'text-single', values: [input.hash.value] },
        output_schema_hash_algo: { type: 'text-single', values: ['sha-256'] },
        output_schema_hash_value: { type: 'text-single', values: [output.hash.value] },
        read_only: { type: 'boolean', values: ['1'] },
        destructive: { type: 'boolean', values: ['0'] },
        idempotent: { type: 'boolean', values: ['1'] },
        open_world: { type: 'boolean', values: ['1'] },
      });
    }
  });

  it('#tool-info annotations and the output hash pair appear only when the manifest states them', async () => {
    for (const caller of await localAndRemote()) {
      const fields = async (jid: string, version: string, tool: string): Promise<string[]> =>
        Object.keys(
          fieldsOf((await discoInfo(caller, jid, encodeToolNode(version, tool))).forms[0]),
        ).toSorted();
      const core = ['FORM_TYPE', 'name', 'api_version', 'input_schema_hash_algo', 'input_schema_hash_value'];
      // alerts.list declares no outputSchema and no annotations.
      expect(await fields(JID.weather, '2.0.0', 'alerts.list')).toEqual(
        [...core, 'title', 'description'].toSorted(),
      );
      // forecast.get@2.0.0 states readOnlyHint and openWorldHint only.
      expect(await fields(JID.weather, '2.0.0', 'forecast.get')).toEqual(
        [
          ...core,
          'title',
          'description',
          'output_schema_hash_algo',
          'output_schema_hash_value',
          'read_only',
          'open_world',
        ].toSorted(),
      );
      // A toolbox tool: no title, no output schema, no annotations.
      expect(await fields(JID.toolbox, '3.0.0', 'tool.01')).toEqual([...core, 'description'].toSorted());
    }
  });

  it('#tool-info a tool node of an unknown tool or version is item-not-found', async () => {
    for (const caller of await localAndRemote()) {
      for (const node of [encodeToolNode('1.4.0', 'alerts.list'), encodeToolNode('9.9.9', 'forecast.get')]) {
        expectStanzaError(
          await caller.exchangeIq(JID.weather, 'get', buildDiscoInfoRequest({ node })),
          'item-not-found',
          'cancel',
        );
      }
    }
  });
});

describe('#manifest-retrieval', () => {
  async function manifest(
    caller: Caller,
    jid: string,
    version?: string,
  ): Promise<ReturnType<typeof parseManifest>> {
    const request = buildManifestRequest(version === undefined ? {} : { version });
    return parseManifest(resultPayload(await caller.exchangeIq(jid, 'get', request)));
  }

  it('#manifest-retrieval the active manifest: <json/> is byte-exactly the canonical bytes and <hash/> their sha-256', async () => {
    for (const caller of await localAndRemote()) {
      const served = await manifest(caller, JID.weather);
      expect(served.version).toBe('1.4.0');
      expect(Buffer.from(served.json, 'utf8').equals(MANIFEST.weather.document.bytes)).toBe(true);
      expect(served.hash).toEqual(MANIFEST.weather.document.hash);
    }
  });

  it('#manifest-retrieval an exact registered version is served with its own bytes and hash', async () => {
    for (const caller of await localAndRemote()) {
      const served = await manifest(caller, JID.weather, '2.0.0');
      expect(served.version).toBe('2.0.0');
      expect(Buffer.from(served.json, 'utf8').equals(MANIFEST.weatherNext.document.bytes)).toBe(true);
      expect(served.hash).toEqual(MANIFEST.weatherNext.document.hash);
    }
  });

  it('#manifest-retrieval a deactivated endpoint: exact version addressable, no active manifest (interp-23)', async () => {
    for (const caller of await localAndRemote()) {
      const exact = await manifest(caller, JID.archive, '1.0.0');
      expect(Buffer.from(exact.json, 'utf8').equals(MANIFEST.archive.document.bytes)).toBe(true);
      const active = await caller.exchangeIq(JID.archive, 'get', buildManifestRequest({}));
      expectStanzaError(active, 'item-not-found', 'cancel');
    }
  });
});

describe('#schemas', () => {
  it('#schemas input and output schemas: canonical bytes, hashes, pinned manifest hash', async () => {
    for (const caller of await localAndRemote()) {
      for (const direction of ['input', 'output'] as const) {
        const request = buildSchemaRequest({
          tool: 'forecast.get',
          version: '1.4.0',
          direction,
          manifestHash: MANIFEST.weather.document.hash,
        });
        const schema = parseSchema(resultPayload(await caller.exchangeIq(JID.weather, 'get', request)));
        const expected = toolSchemaDocument(MANIFEST.weather, 'forecast.get', direction);
        expect(Buffer.from(schema.json, 'utf8').equals(expected.bytes)).toBe(true);
        expect(schema.schemaHash).toEqual(expected.hash);
        expect(schema.manifestHash).toEqual(MANIFEST.weather.document.hash);
        expect({ tool: schema.tool, version: schema.version, direction: schema.direction }).toEqual({
          tool: 'forecast.get',
          version: '1.4.0',
          direction,
        });
      }
    }
  });

  it('#schemas a stale manifest hash (another version of the same endpoint) is a conflict', async () => {
    for (const caller of await localAndRemote()) {
      const stale = buildSchemaRequest({
        tool: 'forecast.get',
        version: '2.0.0',
        direction: 'input',
        manifestHash: MANIFEST.weather.document.hash,
      });
      expectStanzaError(await caller.exchangeIq(JID.weather, 'get', stale), 'conflict', 'cancel');
    }
  });
});

// Last in the file: it restarts the gateway with another config.
describe('#endpoint-info deployment values', () => {
  it('#endpoint-info cold_start_supported 0 and the documented default request_replay_seconds (86400)', async () => {
    await world().restartGateway({ endpointInfo: {} });
    for (const caller of await localAndRemote()) {
      const info = await discoInfo(caller, JID.weather);
      expect(fieldsOf(info.forms[0])).toEqual(endpointInfoExpected(MANIFEST.weather, '0', '86400'));
    }
  });
});
