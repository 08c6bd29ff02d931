import { describe, expect, it } from 'vitest';
import { NODE_DIRECTORY } from '../../protocol/namespaces.ts';
import { parseDiscoItems } from '../../protocol/stanza/index.ts';
import type { DiscoItems } from '../../protocol/stanza/index.ts';
import {
  GATEWAY,
  ask,
  discoItems,
  expectFault,
  resultOf,
  resultText,
  rsmSet,
  withSettings,
} from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { MemoryCatalog, manifestJson, manifestRecord, onlyTo } from './test-support/memory-catalog.ts';
import { JID, ROMEO, buildWorld } from './test-support/world.ts';

const { catalog } = await buildWorld();

function list(request: Partial<Ask> & { rsm?: string }, world: MemoryCatalog = catalog): DiscoItems {
  const xml = discoItems(NODE_DIRECTORY, request.rsm === undefined ? '' : rsmSet(request.rsm));
  return parseDiscoItems(resultOf(ask(world, { to: GATEWAY, xml, ...request })));
}

const jids = (result: DiscoItems): string[] => result.items.map((item) => item.jid);

describe('directory listing (#list-agents)', () => {
  it('lists visible active endpoints in octet order, named by title or else name, without nodes', () => {
    const expected = {
      items: [
        { jid: JID.alpha, name: 'alpha' },
        { jid: JID.calendar, name: 'Calendar Agent' },
        { jid: JID.weather, name: 'Weather Agent' },
      ],
    };
    expect(list({})).toEqual({ node: NODE_DIRECTORY, ...expected });
    expect(parseDiscoItems(resultOf(ask(catalog, { to: GATEWAY, xml: discoItems() })))).toEqual(expected);
  });

  it('lists what each requester may see: hidden endpoints are neither listed nor counted', () => {
    expect(list({ rsm: '<max>10</max>' }).rsm?.count).toBe(3);
    const romeo = list({ from: ROMEO, rsm: '<max>10</max>' });
    expect(jids(romeo)).toEqual([JID.alpha, JID.calendar, JID.secret, JID.weather]);
    expect(romeo.rsm).toEqual({ first: { uid: JID.alpha, index: 0 }, last: JID.weather, count: 4 });
  });

  it('answers max=0 with the count only', () => {
    const text = resultText(
      ask(catalog, { to: GATEWAY, xml: discoItems(undefined, rsmSet('<max>0</max>')) }),
    );
    expect(text).not.toMatch(/<item|<first|<last/);
    expect(list({ rsm: '<max>0</max>' })).toEqual({ node: NODE_DIRECTORY, items: [], rsm: { count: 3 } });
  });

  it('pages with after, before, empty before and index', () => {
    expect(list({ rsm: `<max>1</max><after>${JID.alpha}</after>` })).toMatchObject({
      items: [{ jid: JID.calendar }],
      rsm: { first: { uid: JID.calendar, index: 1 }, last: JID.calendar, count: 3 },
    });
    expect(jids(list({ rsm: `<max>2</max><before>${JID.weather}</before>` }))).toEqual([
      JID.alpha,
      JID.calendar,
    ]);
    expect(list({ rsm: '<max>2</max><before/>' }).rsm).toEqual({
      first: { uid: JID.calendar, index: 1 },
      last: JID.weather,
      count: 3,
    });
    expect(list({ rsm: '<max>1</max><index>2</index>' }).rsm).toEqual({
      first: { uid: JID.weather, index: 2 },
      last: JID.weather,
      count: 3,
    });
    expect(list({ rsm: '<max>1</max><index>3</index>' })).toEqual({
      node: NODE_DIRECTORY,
      items: [],
      rsm: { count: 3 },
    });
  });

  it('continues identically after or before a hidden and a nonexistent JID at the same position', () => {
    for (const side of ['after', 'before'] as const) {
      const page = (uid: string): string =>
        resultText(
          ask(catalog, {
            to: GATEWAY,
            xml: discoItems(NODE_DIRECTORY, rsmSet(`<max>5</max><${side}>${uid}</${side}>`)),
          }),
        );
      expect(page(JID.secret)).toBe(page(JID.missing));
    }
    expect(jids(list({ rsm: `<after>${JID.secret}</after>` }))).toEqual([JID.weather]);
    expect(jids(list({ rsm: `<before>${JID.secret}</before>` }))).toEqual([JID.alpha, JID.calendar]);
  });

  it('places a UID by its normalized JID and refuses one that is not a bare JID', () => {
    expect(list({ rsm: '<after>CALENDAR@Agents.Example</after>' })).toEqual(
      list({ rsm: `<after>${JID.calendar}</after>` }),
    );
    for (const uid of ['', 'not a jid', `${JID.weather}/resource`, '@agents.example']) {
      const xml = discoItems(NODE_DIRECTORY, rsmSet(`<after>${uid}</after>`));
      expectFault(ask(catalog, { to: GATEWAY, xml }), 'item-not-found');
    }
  });

  it('clamps to the page maximum, and truncates an RSM-less request only with a <set/>', () => {
    const settings = withSettings({ pageMaximum: 2 });
    expect(list({ settings, rsm: '<max>10</max>' }).items).toHaveLength(2);
    expect(list({ settings })).toEqual({
      node: NODE_DIRECTORY,
      items: [
        { jid: JID.alpha, name: 'alpha' },
        { jid: JID.calendar, name: 'Calendar Agent' },
      ],
      rsm: { first: { uid: JID.alpha, index: 0 }, last: JID.calendar, count: 3 },
    });
  });

  it('answers an empty visible set with an empty query, and a count of 0 when RSM was asked for', () => {
    const empty = new MemoryCatalog();
    expect(list({}, empty)).toEqual({ node: NODE_DIRECTORY, items: [] });
    expect(list({ rsm: '<max>5</max>' }, empty)).toEqual({
      node: NODE_DIRECTORY,
      items: [],
      rsm: { count: 0 },
    });
  });

  it('refuses other gateway nodes with item-not-found', () => {
    expectFault(
      ask(catalog, { to: GATEWAY, xml: discoItems('urn:xmpp:agent-directory:1') }),
      'item-not-found',
    );
  });

  it('orders by UTF-8 octets, not UTF-16 code units', async () => {
    const astral = 'x\u{10000}@agents.example';
    const privateUse = 'x\u{E000}@agents.example';
    const world = new MemoryCatalog()
      .add(await manifestRecord(manifestJson({ jid: astral, name: 'astral' })))
      .add(await manifestRecord(manifestJson({ jid: privateUse, name: 'private' })));
    // JavaScript's default order (UTF-16 code units) puts the astral JID first.
    expect([privateUse, astral].toSorted()).toEqual([astral, privateUse]);
    expect(jids(list({}, world))).toEqual([privateUse, astral]);
    expect(jids(list({ rsm: `<after>${privateUse}</after>` }, world))).toEqual([astral]);
  });

  it('counts exactly what a full traversal returns, whatever is hidden', async () => {
    const world = new MemoryCatalog();
    for (let n = 0; n < 23; n += 1) {
      const jid = `agent${String(n).padStart(2, '0')}@agents.example`;
      const record = await manifestRecord(manifestJson({ jid, name: `agent${n}` }));
      world.add(record, n % 3 === 0 ? onlyTo('romeo@example.net') : () => true);
    }
    const settings = withSettings({ pageMaximum: 4 });
    const seen: string[] = [];
    let page = list({ settings, rsm: '<max>10</max>' }, world);
    while (page.items.length > 0) {
      expect(page.rsm?.count).toBe(15);
      expect(page.rsm?.first?.index).toBe(seen.length);
      seen.push(...jids(page));
      page = list({ settings, rsm: `<max>10</max><after>${page.rsm?.last ?? ''}</after>` }, world);
    }
    expect(seen).toHaveLength(15);
    expect(seen).toEqual(jids(list({ settings: withSettings({ pageMaximum: 100 }) }, world)));
  });
});
