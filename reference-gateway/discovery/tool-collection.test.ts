import { describe, expect, it } from 'vitest';
import { NS } from '../../protocol/namespaces.ts';
import { parseDiscoInfo, parseDiscoItems } from '../../protocol/stanza/index.ts';
import type { DiscoItems } from '../../protocol/stanza/index.ts';
import { encodeToolNode } from '../../protocol/tool-node.ts';
import {
  ask,
  discoInfo,
  discoItems,
  expectFault,
  expectIdenticalFaults,
  resultOf,
  resultText,
  rsmSet,
  withSettings,
} from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { MemoryCatalog, manifestJson, manifestRecord } from './test-support/memory-catalog.ts';
import { JID, buildWorld } from './test-support/world.ts';

const { catalog } = await buildWorld();

/** Names whose UTF-8 order differs from both UTF-16 order and the order of their nodes. */
const NAMES = ['A', 'b', 'Ж', '\u{E000}', '\u{10000}'];
const TOOLBOX = 'toolbox@agents.example';
const COLLECTION = 'urn:xmpp:agent-tools:0#1.0.0';
const node = (name: string, version = '1.0.0'): string => encodeToolNode(version, name);

const toolbox = new MemoryCatalog().add(
  await manifestRecord(
    manifestJson({
      jid: TOOLBOX,
      name: 'toolbox',
      // Registered in reverse, so the order cannot come from the manifest.
      tools: NAMES.toReversed().map((name) => (name === 'b' ? { name, title: 'Bee' } : { name })),
    }),
  ),
);

function items(rsm: string | undefined, request: Partial<Ask> = {}): DiscoItems {
  const xml = discoItems(COLLECTION, rsm === undefined ? '' : rsmSet(rsm));
  return parseDiscoItems(resultOf(ask(toolbox, { to: TOOLBOX, xml, ...request })));
}

const names = (result: DiscoItems): (string | undefined)[] => result.items.map((item) => item.name);

describe('tool collection (#list-tools)', () => {
  it('lists every tool of the version by UTF-8 name bytes, with the endpoint JID and tool node', () => {
    const nodes = NAMES.map((name) => node(name));
    expect(nodes.toSorted()).not.toEqual(nodes);
    expect(['\u{E000}', '\u{10000}'].toSorted()).toEqual(['\u{10000}', '\u{E000}']);
    expect(items(undefined)).toEqual({
      node: COLLECTION,
      items: NAMES.map((name) => ({ jid: TOOLBOX, node: node(name), name: name === 'b' ? 'Bee' : name })),
    });
  });

  it('pages with tool nodes as UIDs, counting every tool of the version', () => {
    expect(items('<max>2</max>')).toMatchObject({
      items: [{ name: 'A' }, { name: 'Bee' }],
      rsm: { first: { uid: node('A'), index: 0 }, last: node('b'), count: 5 },
    });
    expect(names(items(`<max>2</max><after>${node('Ж')}</after>`))).toEqual(['\u{E000}', '\u{10000}']);
    expect(names(items(`<max>2</max><before>${node('\u{10000}')}</before>`))).toEqual(['Ж', '\u{E000}']);
    expect(names(items('<max>2</max><before/>'))).toEqual(['\u{E000}', '\u{10000}']);
    expect(items('<max>2</max><index>4</index>').rsm).toEqual({
      first: { uid: node('\u{10000}'), index: 4 },
      last: node('\u{10000}'),
      count: 5,
    });
    expect(items('<max>0</max>')).toEqual({ node: COLLECTION, items: [], rsm: { count: 5 } });
  });

  it('places a well-formed node of the same version by its decoded name, even if no such tool exists', () => {
    expect(names(items(`<after>${node('B')}</after>`))).toEqual(['Bee', 'Ж', '\u{E000}', '\u{10000}']);
    expect(names(items(`<before>${node('c')}</before>`))).toEqual(['A', 'Bee']);
    expect(names(items(`<after>${node('\u{F000}')}</after>`))).toEqual(['\u{10000}']);
  });

  it('refuses malformed and other-version UIDs with item-not-found', () => {
    const uids = [
      `${node('A')}==`,
      'urn:xmpp:agent-tool:0#1.0.0#QR',
      'urn:xmpp:agent-tool:0#1.0.0#a+b',
      'urn:xmpp:agent-tool:0#1.0.0#',
      node('A', '2.0.0'),
      COLLECTION,
      'A',
    ];
    const outcomes = uids.map((uid) =>
      ask(toolbox, { to: TOOLBOX, xml: discoItems(COLLECTION, rsmSet(`<after>${uid}</after>`)) }),
    );
    expectIdenticalFaults(outcomes, 'item-not-found');
  });

  it('truncates an RSM-less listing to the page maximum with a <set/>', () => {
    const result = items(undefined, { settings: withSettings({ pageMaximum: 2 }) });
    expect(result.rsm).toEqual({ first: { uid: node('A'), index: 0 }, last: node('b'), count: 5 });
  });

  it('lists any registered version the requester may see, not only the active one', () => {
    const listing = (version: string, to: string): string =>
      resultText(ask(catalog, { to, xml: discoItems(`urn:xmpp:agent-tools:0#${version}`) }));
    expect(listing('2.0.0', JID.weather)).toContain('List Alerts');
    expect(
      parseDiscoItems(
        resultOf(ask(catalog, { to: JID.dormant, xml: discoItems('urn:xmpp:agent-tools:0#1.0.0') })),
      ).items,
    ).toEqual([{ jid: JID.dormant, node: encodeToolNode('1.0.0', 'sleep'), name: 'sleep' }]);
  });

  it('answers unknown versions, hidden and nonexistent endpoints with the same item-not-found', () => {
    const outcomes = [
      ask(catalog, { to: JID.weather, xml: discoItems('urn:xmpp:agent-tools:0#9.9.9') }),
      ask(catalog, { to: JID.weather, xml: discoItems('urn:xmpp:agent-tools:0#') }),
      ask(catalog, { to: JID.weather, xml: discoItems('urn:xmpp:agent-tools:0#bad version') }),
      ask(catalog, { to: JID.secret, xml: discoItems('urn:xmpp:agent-tools:0#1.0.0') }),
      ask(catalog, { to: JID.missing, xml: discoItems('urn:xmpp:agent-tools:0#1.0.0') }),
      ask(catalog, { to: JID.secret, xml: discoInfo('urn:xmpp:agent-tools:0#1.0.0') }),
      ask(catalog, { to: JID.missing, xml: discoInfo('urn:xmpp:agent-tools:0#1.0.0') }),
    ];
    expectIdenticalFaults(outcomes, 'item-not-found');
    // Hidden first, so a visible requester's RSM errors cannot be mistaken for existence hints.
    expectFault(
      ask(catalog, {
        to: JID.secret,
        xml: discoItems('urn:xmpp:agent-tools:0#1.0.0', rsmSet('<after>x</after><before>y</before>')),
      }),
      'item-not-found',
    );
  });

  it('answers collection-node disco#info with the agent-tool-collection identity', () => {
    const info = parseDiscoInfo(
      resultOf(ask(catalog, { to: JID.weather, xml: discoInfo('urn:xmpp:agent-tools:0#1.4.0') })),
    );
    expect(info).toEqual({
      node: 'urn:xmpp:agent-tools:0#1.4.0',
      identities: [{ category: 'automation', type: 'agent-tool-collection' }],
      features: [NS.discoInfo, NS.discoItems],
      forms: [],
    });
  });
});
