// #list-agents RSM edge cases over the wire (XEP-0059; interp-13, interp-14): paging
// directions, max=0, the last page, index jumps, the page maximum, counts of visible endpoints
// only, and UIDs outside the visible set, from local and remote callers.
import { describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { NODE_DIRECTORY } from '../protocol/namespaces.ts';
import {
  buildDiscoItemsRequest,
  parseDiscoItems,
  type RsmRequest,
  type RsmResponse,
} from '../protocol/stanza/index.ts';
import { JID, VISIBLE } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectStanzaError, normalizedReply, resultPayload } from './test-support/wire.ts';

/** Smaller than bob's visible set (4), so that clamping and truncation show. */
const PAGE_MAXIMUM = 3;

const world = useGatewayFederation({
  config: { limits: { rsmPageMax: PAGE_MAXIMUM } },
  accounts: [CAROL],
  connect: [BOB, ALICE, CAROL],
});

interface Page {
  readonly exchange: IqExchange;
  readonly jids: readonly string[];
  readonly rsm: RsmResponse | undefined;
}

async function directoryPage(caller: Caller, rsm?: RsmRequest): Promise<Page> {
  const request = buildDiscoItemsRequest(
    rsm === undefined ? { node: NODE_DIRECTORY } : { node: NODE_DIRECTORY, rsm },
  );
  const exchange = await caller.exchangeIq(GATEWAY, 'get', request);
  const items = parseDiscoItems(resultPayload(exchange));
  return { exchange, jids: items.items.map((item) => item.jid), rsm: items.rsm };
}

/** Every page of the directory, forward by <after/> = the previous <last/>. */
async function traverse(caller: Caller, max: number): Promise<Page[]> {
  const pages: Page[] = [];
  let page = await directoryPage(caller, { max });
  pages.push(page);
  while (page.rsm?.last !== undefined) {
    page = await directoryPage(caller, { max, after: page.rsm.last });
    pages.push(page);
  }
  return pages;
}

describe('#list-agents paging', () => {
  it('#list-agents <after/> pages forward in octet order; <first index/> and <last/> frame each page', async () => {
    const pages = await traverse(await world().caller(BOB), 2);
    expect(pages.map((page) => page.jids)).toEqual([
      [JID.calendar, JID.toolbox],
      [JID.translator, JID.weather],
      [],
    ]);
    expect(pages.map((page) => page.rsm)).toEqual([
      { first: { uid: JID.calendar, index: 0 }, last: JID.toolbox, count: 4 },
      { first: { uid: JID.translator, index: 2 }, last: JID.weather, count: 4 },
      // XEP-0059: an empty page carries no <first/>/<last/>, only the count.
      { count: 4 },
    ]);
  });

  it('#list-agents <before/> pages backward; an empty <before/> is the last page', async () => {
    const caller = await world().caller(BOB);
    const last = await directoryPage(caller, { max: 2, before: '' });
    expect(last.jids).toEqual([JID.translator, JID.weather]);
    expect(last.rsm).toEqual({ first: { uid: JID.translator, index: 2 }, last: JID.weather, count: 4 });
    const previous = await directoryPage(caller, { max: 2, before: JID.translator });
    expect(previous.jids).toEqual([JID.calendar, JID.toolbox]);
    expect(previous.rsm?.first).toEqual({ uid: JID.calendar, index: 0 });
    const none = await directoryPage(caller, { max: 2, before: JID.calendar });
    expect(none).toMatchObject({ jids: [], rsm: { count: 4 } });
  });

  it('#list-agents <index/> jumps to a position; past the end the page is empty', async () => {
    const caller = await world().caller(BOB);
    const jump = await directoryPage(caller, { max: 2, index: 1 });
    expect(jump.jids).toEqual([JID.toolbox, JID.translator]);
    expect(jump.rsm?.first).toEqual({ uid: JID.toolbox, index: 1 });
    const beyond = await directoryPage(caller, { max: 2, index: 9 });
    expect(beyond).toMatchObject({ jids: [], rsm: { count: 4 } });
  });

  it('#list-agents max=0 answers the count alone: no items, no <first/>, no <last/> (interp-14)', async () => {
    const page = await directoryPage(await world().caller(BOB), { max: 0 });
    expect(page.jids).toEqual([]);
    expect(page.rsm).toEqual({ count: 4 });
    expect(page.exchange.reply.xml).not.toContain('<item');
  });

  it('#list-agents <max/> above the page maximum is clamped to it; the count stays the whole visible set', async () => {
    const page = await directoryPage(await world().caller(BOB), { max: 50 });
    expect(page.jids).toEqual([JID.calendar, JID.toolbox, JID.translator]);
    expect(page.rsm).toEqual({ first: { uid: JID.calendar, index: 0 }, last: JID.translator, count: 4 });
  });

  it('#list-agents without RSM a set above the page maximum comes truncated with a <set/> (interp-14)', async () => {
    const page = await directoryPage(await world().caller(BOB));
    expect(page.jids).toEqual([JID.calendar, JID.toolbox, JID.translator]);
    expect(page.rsm).toEqual({ first: { uid: JID.calendar, index: 0 }, last: JID.translator, count: 4 });
  });

  it('#list-agents <after/> together with <before/> is a bad-request', async () => {
    const caller = await world().caller(BOB);
    const request = buildDiscoItemsRequest({ rsm: { after: JID.calendar, before: JID.weather } });
    expectStanzaError(await caller.exchangeIq(GATEWAY, 'get', request), 'bad-request', 'modify');
  });

  it('#list-agents a UID that is not a bare JID has no position: item-not-found', async () => {
    const caller = await world().caller(BOB);
    const request = buildDiscoItemsRequest({ rsm: { max: 2, after: 'weather@agents.example/resource' } });
    expectStanzaError(await caller.exchangeIq(GATEWAY, 'get', request), 'item-not-found', 'cancel');
  });
});

describe('#list-agents counts and visibility', () => {
  it('#list-agents count counts only endpoints visible to the requester: bob, alice and carol differ', async () => {
    const cases = [
      [BOB, VISIBLE.local],
      [ALICE, VISIBLE.alice],
      [CAROL, VISIBLE.remote],
    ] as const;
    for (const [jid, visible] of cases) {
      const caller = await world().caller(jid);
      const countOnly = await directoryPage(caller, { max: 0 });
      expect(countOnly.rsm, jid).toEqual({ count: visible.length });
      const pages = await traverse(caller, 2);
      expect(
        pages.flatMap((page) => page.jids),
        jid,
      ).toEqual(visible);
      for (const page of pages) expect(page.rsm?.count, jid).toBe(visible.length);
    }
  });

  it('#list-agents after a hidden UID continues in octet order, byte-identical to a nonexistent UID there', async () => {
    // For bob, vault is hidden and "unknown" does not exist: both sit between translator and weather.
    const caller = await world().caller(BOB);
    const hidden = await directoryPage(caller, { max: 2, after: JID.vault });
    const missing = await directoryPage(caller, { max: 2, after: JID.nobody });
    expect(hidden.jids).toEqual([JID.weather]);
    expect(hidden.rsm).toEqual({ first: { uid: JID.weather, index: 3 }, last: JID.weather, count: 4 });
    expect(normalizedReply(hidden.exchange, GATEWAY)).toBe(normalizedReply(missing.exchange, GATEWAY));
  });

  it('#list-agents before a hidden UID pages back from its octet position, byte-identical to a nonexistent UID', async () => {
    const caller = await world().caller(BOB);
    const hidden = await directoryPage(caller, { max: 2, before: JID.vault });
    const missing = await directoryPage(caller, { max: 2, before: JID.nobody });
    expect(hidden.jids).toEqual([JID.toolbox, JID.translator]);
    expect(normalizedReply(hidden.exchange, GATEWAY)).toBe(normalizedReply(missing.exchange, GATEWAY));
  });

  it('#list-agents a remote caller: UIDs of endpoints it may not see act like nonexistent ones', async () => {
    // carol sees weather only; calendar and translator exist, archive is deactivated.
    const caller = await world().caller(CAROL);
    const replies = [];
    for (const uid of [JID.calendar, JID.archive, 'cal@agents.example', JID.translator, JID.nobody]) {
      const page = await directoryPage(caller, { max: 2, after: uid });
      expect(page.jids, uid).toEqual([JID.weather]);
      replies.push(normalizedReply(page.exchange, GATEWAY));
    }
    expect(new Set(replies).size).toBe(1);
    const afterWeather = await directoryPage(caller, { max: 2, after: JID.weather });
    expect(afterWeather.jids).toEqual([]);
  });

  it('#list-agents alice sees the hidden vault through her grant, and pages over it', async () => {
    const caller = await world().caller(ALICE);
    const page = await directoryPage(caller, { max: 2, after: JID.toolbox });
    expect(page.jids).toEqual([JID.vault, JID.weather]);
    expect(page.rsm).toEqual({ first: { uid: JID.vault, index: 2 }, last: JID.weather, count: 4 });
  });
});
