// Standard-client browsability (#list-agents, #search; XEP-0030, XEP-0059, XEP-0004, XEP-0055):
// a browse driven by @xmpp/client itself (its IQ caller, its parser, @xmpp/xml element
// navigation; none of our codecs), walking every directory and search page by <last/>, with
// every payload it receives validated against the XEPs' schemas. (Every payload the driver's
// callers receive in every integration file is validated the same way: test-support.)
import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestClient, type TestClient } from '../harness/federation/test-support/c2s-client.ts';
import { FEATURE, FORM_TYPE, NODE_DIRECTORY, NS } from '../protocol/namespaces.ts';
import { JID, VISIBLE } from './test-support/fixtures.ts';
import { ALICE, BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';

const world = useGatewayFederation();

const clients = new Map<string, TestClient>();
/** Every payload the library received, for the schema check at the end of each walk. */
const received: { source: string; payload: Element }[] = [];

beforeAll(async () => {
  const { federation } = world();
  for (const jid of [BOB, ALICE]) {
    clients.set(jid, await connectTestClient(federation.account(jid), federation.caCertPath, 'library'));
  }
});

afterAll(async () => {
  for (const client of clients.values()) await client.stop();
});

function client(jid: string): TestClient {
  const found = clients.get(jid);
  if (found === undefined) throw new Error(`no library client for ${jid}`);
  return found;
}

/** One IQ through the library; the payload of its result, kept for validation. */
async function ask(jid: string, type: 'get' | 'set', to: string, payload: Element): Promise<Element> {
  const reply = await client(jid).iq(xml('iq', { type, to }, payload));
  if (reply.type !== 'result')
    throw new Error(`${jid} → ${to}: ${reply.condition} (${reply.errorType ?? '?'})`);
  const [child] = reply.stanza.getChildElements();
  if (child === undefined) throw new Error(`${jid} → ${to}: an empty result`);
  received.push({ source: `${jid} ← ${to}`, payload: child });
  return child;
}

function rsmSet(max: number, after: string | undefined): Element {
  return xml(
    'set',
    { xmlns: NS.rsm },
    xml('max', {}, String(max)),
    after === undefined ? undefined : xml('after', {}, after),
  );
}

interface WalkedPage {
  readonly uids: string[];
  readonly first: string | undefined;
  readonly last: string | undefined;
  readonly count: string | undefined;
}

/** Pages through a result set by <after/> = the previous <last/>, as a client UI would. */
async function walk(page: (after: string | undefined) => Promise<WalkedPage>): Promise<WalkedPage[]> {
  const pages: WalkedPage[] = [];
  let after: string | undefined;
  for (let turn = 0; turn < 50; turn += 1) {
    const current = await page(after);
    pages.push(current);
    if (current.last === undefined) return pages;
    after = current.last;
  }
  throw new Error('more than 50 pages');
}

function setOf(query: Element): Pick<WalkedPage, 'first' | 'last' | 'count'> {
  const set = query.getChild('set', NS.rsm);
  return {
    first: set?.getChildText('first') ?? undefined,
    last: set?.getChildText('last') ?? undefined,
    count: set?.getChildText('count') ?? undefined,
  };
}

async function directoryPage(jid: string, after: string | undefined): Promise<WalkedPage> {
  const query = await ask(
    jid,
    'get',
    GATEWAY,
    xml('query', { xmlns: NS.discoItems, node: NODE_DIRECTORY }, rsmSet(2, after)),
  );
  const uids = query.getChildren('item', NS.discoItems).map((item) => String(item.attrs['jid']));
  return { uids, ...setOf(query) };
}

async function searchPage(jid: string, after: string | undefined): Promise<WalkedPage> {
  const form = xml(
    'x',
    { xmlns: NS.dataForms, type: 'submit' },
    xml('field', { var: 'FORM_TYPE', type: 'hidden' }, xml('value', {}, FORM_TYPE.search)),
    xml('field', { var: 'nick' }, xml('value', {}, 'a')),
  );
  const query = await ask(jid, 'set', GATEWAY, xml('query', { xmlns: NS.search }, rsmSet(2, after), form));
  const results = query.getChild('x', NS.dataForms);
  // XEP-0004 multi-item results hold only <reported/> and <item/>: the RSM set is the query's.
  expect(results?.getChild('set', NS.rsm)).toBeUndefined();
  const uids = (results?.getChildren('item', NS.dataForms) ?? []).map((item) => {
    const field = item
      .getChildren('field', NS.dataForms)
      .find((candidate) => candidate.attrs['var'] === 'jid');
    return field?.getChildText('value') ?? '';
  });
  return { uids, ...setOf(query) };
}

async function expectValidPayloads(): Promise<void> {
  const problems = await world().conformance.validate(received.splice(0));
  expect(problems).toEqual([]);
}

describe('standard-client browsability', () => {
  it('#gateway-info a library client finds the directory and RSM support in the gateway disco#info (XEP-0059 Determining Support)', async () => {
    const query = await ask(BOB, 'get', GATEWAY, xml('query', { xmlns: NS.discoInfo }));
    const features = query.getChildren('feature', NS.discoInfo).map((feature) => feature.attrs['var']);
    expect(features).toEqual(expect.arrayContaining([FEATURE.directory, NS.rsm, NS.search]));
    const identity = query.getChild('identity', NS.discoInfo);
    expect([identity?.attrs['category'], identity?.attrs['type']]).toEqual(['automation', 'agent-gateway']);
    await expectValidPayloads();
  });

  it('#list-agents a library client walks every directory page by <last/>, local and across s2s', async () => {
    for (const [jid, visible] of [
      [BOB, VISIBLE.local],
      [ALICE, VISIBLE.alice],
    ] as const) {
      const pages = await walk((after) => directoryPage(jid, after));
      expect(
        pages.flatMap((page) => page.uids),
        jid,
      ).toEqual(visible);
      // Every page frames its items and counts the whole visible set; the walk ends on a count-only page.
      for (const page of pages.slice(0, -1)) {
        expect([page.first, page.last, page.count], jid).toEqual([
          page.uids[0],
          page.uids.at(-1),
          String(visible.length),
        ]);
      }
      expect(pages.at(-1), jid).toEqual({
        uids: [],
        first: undefined,
        last: undefined,
        count: String(visible.length),
      });
    }
    await expectValidPayloads();
  });

  it('#search a library client walks every search result page by <last/>, the RSM set outside the form', async () => {
    // "a" occurs in the localpart, name or title of calendar, translator, weather and vault, not toolbox.
    const cases = [
      [BOB, [JID.calendar, JID.translator, JID.weather]],
      [ALICE, [JID.calendar, JID.vault, JID.weather]],
    ] as const;
    for (const [jid, expected] of cases) {
      const pages = await walk((after) => searchPage(jid, after));
      expect(
        pages.flatMap((page) => page.uids),
        jid,
      ).toEqual(expected);
    }
    await expectValidPayloads();
  });

  it('#search a library client reads the search form: legacy <nick/> and the jabber:iq:search FORM_TYPE', async () => {
    const query = await ask(BOB, 'get', GATEWAY, xml('query', { xmlns: NS.search }));
    expect(query.getChild('nick', NS.search)).toBeDefined();
    const form = query.getChild('x', NS.dataForms);
    const formType = form
      ?.getChildren('field', NS.dataForms)
      .find((field) => field.attrs['var'] === 'FORM_TYPE')
      ?.getChildText('value');
    expect(formType).toBe(FORM_TYPE.search);
    await expectValidPayloads();
  });

  it('#list-agents the schema check is live: XEP schemas present, and a broken page is caught', async (context) => {
    const { conformance } = world();
    if (!conformance.xepSchemasAvailable) {
      context.skip('NOT RUN: the shared XEP sources are absent (see the notice above)');
      return;
    }
    const query = await ask(
      BOB,
      'get',
      GATEWAY,
      xml('query', { xmlns: NS.discoItems }, rsmSet(2, undefined)),
    );
    // The same page with its <set/> children doubled and an item without its jid: both must fail.
    const broken = xml(
      'query',
      { xmlns: NS.discoItems },
      xml('item', { name: 'no jid' }),
      xml('set', { xmlns: NS.rsm }, xml('count', {}, '4'), xml('count', {}, '4')),
    );
    const problems = await conformance.validate([
      { source: 'served', payload: query },
      { source: 'broken', payload: broken },
    ]);
    expect(problems.map((problem) => problem.source)).toEqual(['broken', 'broken']);
    received.splice(0);
  });
});
