// #search over the wire (XEP-0055 with the XEP-0004 extensibility form, XEP-0059 paging): the
// form, nick over localpart/name/title (case-insensitive, Unicode-aware), the tag field, RSM
// outside the form, empty queries and visible-only counts, from local and remote callers.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { FORM_TYPE, NS, NS_AGENT_API } from '../protocol/namespaces.ts';
import {
  buildSearchFormRequest,
  buildSearchRequest,
  childElementsOf,
  localNameOf,
  namespaceOf,
  parseSearchForm,
  parseSearchResults,
  type FormFieldInput,
  type RsmRequest,
  type RsmResponse,
} from '../protocol/stanza/index.ts';
import { provision } from './test-support/admin.ts';
import { JID, VISIBLE, fieldsOf } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import { expectStanzaError, normalizedReply, resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ accounts: [CAROL], connect: [BOB, ALICE, CAROL] });

/** Registered by the admin below: a title that only Unicode-aware, case-insensitive matching finds. */
const MUENCHEN = 'muenchen@agents.example';
const MUENCHEN_TITLE = 'Été à MÜNCHEN';

beforeAll(async () => {
  await provision(await world().caller(BOB), {
    manifestSpecVersion: '0',
    agent: { jid: MUENCHEN, name: 'münchen', title: MUENCHEN_TITLE, version: '1.0.0' },
    tools: [{ name: 'wetter.get', inputSchema: { type: 'object' }, [NS_AGENT_API]: { tags: ['Wetter'] } }],
  });
});

/** bob's visible set once muenchen is active, in octet order. */
const LOCAL_VISIBLE = [JID.calendar, MUENCHEN, JID.toolbox, JID.translator, JID.weather];

interface Found {
  readonly exchange: IqExchange;
  readonly jids: readonly string[];
  readonly nicks: readonly string[];
  readonly rsm: RsmResponse | undefined;
}

async function searchByForm(
  caller: Caller,
  criteria: { readonly nick?: string; readonly tag?: string },
  rsm?: RsmRequest,
): Promise<Found> {
  const fields: FormFieldInput[] = [
    { var: 'FORM_TYPE', type: 'hidden', values: [FORM_TYPE.search] },
    ...Object.entries(criteria).map(([name, value]) => ({ var: name, values: [value] })),
  ];
  const request = buildSearchRequest({
    kind: 'form',
    form: { type: 'submit', fields },
    ...(rsm === undefined ? {} : { rsm }),
  });
  const exchange = await caller.exchangeIq(GATEWAY, 'set', request);
  const results = parseSearchResults(resultPayload(exchange));
  if (results.kind !== 'form') throw new Error(`a form submission got ${results.kind} results`);
  const value = (item: readonly { var?: string; values: readonly string[] }[], name: string): string =>
    item.find((field) => field.var === name)?.values[0] ?? '';
  return {
    exchange,
    jids: results.form.items.map((item) => value(item, 'jid')),
    nicks: results.form.items.map((item) => value(item, 'nick')),
    rsm: results.rsm,
  };
}

describe('#search form', () => {
  it('#search the form has a hidden FORM_TYPE jabber:iq:search, nick and tag, beside the legacy <nick/>', async () => {
    for (const jid of [BOB, ALICE]) {
      const caller = await world().caller(jid);
      const form = parseSearchForm(
        resultPayload(await caller.exchangeIq(GATEWAY, 'get', buildSearchFormRequest())),
      );
      expect(form.legacyFields).toEqual(['nick']);
      expect(form.form?.type).toBe('form');
      expect(fieldsOf(form.form)).toEqual({
        FORM_TYPE: { type: 'hidden', values: [FORM_TYPE.search] },
        nick: { type: 'text-single', values: [] },
        tag: { type: 'text-single', values: [] },
      });
    }
  });

  it('#search a submission without FORM_TYPE is read as the search form, one of another FORM_TYPE is a bad-request, unknown fields are ignored', async () => {
    const caller = await world().caller(BOB);
    const submit = (fields: { var: string; values: string[] }[]) =>
      caller.exchangeIq(
        GATEWAY,
        'set',
        buildSearchRequest({ kind: 'form', form: { type: 'submit', fields } }),
      );
    // slixmpp-style: no FORM_TYPE, and a field this gateway does not know (XEP-0004 §3.1).
    const bare = await submit([
      { var: 'nick', values: ['weather'] },
      { var: 'x-client-hint', values: ['slixmpp'] },
    ]);
    expect(bare.parsed.type, bare.reply.xml).toBe('result');
    expect(bare.reply.xml).toContain(JID.weather);
    expectStanzaError(
      await submit([
        { var: 'FORM_TYPE', values: ['urn:example:other'] },
        { var: 'nick', values: ['weather'] },
      ]),
      'bad-request',
      'modify',
    );
  });
});

describe('#search matching', () => {
  it('#search nick matches the localpart, agent.name or agent.title, case-insensitively', async () => {
    const caller = await world().caller(BOB);
    expect((await searchByForm(caller, { nick: 'WEATH' })).jids).toEqual([JID.weather]);
    // "Agent" is in the titles of calendar and weather only.
    expect((await searchByForm(caller, { nick: 'agent' })).jids).toEqual([JID.calendar, JID.weather]);
    // "box" is in toolbox's localpart (and name).
    expect((await searchByForm(caller, { nick: 'BoX' })).jids).toEqual([JID.toolbox]);
    // "muenchen" is only the localpart: name and title say münchen.
    expect((await searchByForm(caller, { nick: 'uench' })).jids).toEqual([MUENCHEN]);
    const found = await searchByForm(caller, { nick: 'translat' });
    expect(found.jids).toEqual([JID.translator]);
    expect(found.nicks).toEqual(['Translator']);
  });

  it('#search nick is Unicode-aware: case folding beyond ASCII and NFC-equivalent spellings match', async () => {
    const caller = await world().caller(BOB);
    for (const nick of ['été', 'ÉTÉ', 'münchen', 'MÜNCHEN', 'mu\u0308nchen', 'E\u0301te\u0301']) {
      const found = await searchByForm(caller, { nick });
      expect(found.jids, nick).toEqual([MUENCHEN]);
      expect(found.nicks, nick).toEqual([MUENCHEN_TITLE]);
    }
    expect((await searchByForm(caller, { nick: 'munchen' })).jids).toEqual([]);
  });

  it('#search the tag field matches a tool tag exactly, case-insensitively, and combines with nick', async () => {
    const caller = await world().caller(BOB);
    expect((await searchByForm(caller, { tag: 'forecast' })).jids).toEqual([JID.weather]);
    expect((await searchByForm(caller, { tag: 'FORECAST' })).jids).toEqual([JID.weather]);
    expect((await searchByForm(caller, { tag: 'wetter' })).jids).toEqual([MUENCHEN]);
    expect((await searchByForm(caller, { tag: 'fore' })).jids).toEqual([]);
    expect((await searchByForm(caller, { tag: 'calendar' })).jids).toEqual([JID.calendar]);
    expect((await searchByForm(caller, { nick: 'agent', tag: 'booking' })).jids).toEqual([JID.calendar]);
    expect((await searchByForm(caller, { nick: 'weather', tag: 'booking' })).jids).toEqual([]);
  });

  it('#search a legacy <nick/> submission gets legacy items', async () => {
    const caller = await world().caller(BOB);
    const request = buildSearchRequest({ kind: 'legacy', fields: { nick: 'Weather' } });
    const results = parseSearchResults(resultPayload(await caller.exchangeIq(GATEWAY, 'set', request)));
    expect(results).toEqual({ kind: 'legacy', items: [{ jid: JID.weather, nick: 'Weather Agent' }] });
  });
});

describe('#search results and paging', () => {
  it('#search the result form holds only <reported/> and <item/>; the RSM <set/> is outside it', async () => {
    const found = await searchByForm(await world().caller(BOB), {}, { max: 2 });
    const query = resultPayload(found.exchange);
    const children = childElementsOf(query).map(
      (child) => `{${namespaceOf(child) ?? ''}}${localNameOf(child)}`,
    );
    expect(children).toEqual([`{${NS.dataForms}}x`, `{${NS.rsm}}set`]);
    const form = query.getChild('x', NS.dataForms);
    const formChildren = childElementsOf(form ?? query).map(localNameOf);
    expect(formChildren).toEqual(['reported', 'item', 'item']);
  });

  it('#search RSM pages the results in octet order of the bare JIDs', async () => {
    const caller = await world().caller(BOB);
    const first = await searchByForm(caller, {}, { max: 2 });
    expect(first.jids).toEqual(LOCAL_VISIBLE.slice(0, 2));
    expect(first.rsm).toEqual({ first: { uid: JID.calendar, index: 0 }, last: MUENCHEN, count: 5 });
    const second = await searchByForm(caller, {}, { max: 2, after: MUENCHEN });
    expect(second.jids).toEqual(LOCAL_VISIBLE.slice(2, 4));
    const last = await searchByForm(caller, {}, { max: 2, before: '' });
    expect(last.jids).toEqual(LOCAL_VISIBLE.slice(3));
    const countOnly = await searchByForm(caller, { nick: 'agent' }, { max: 0 });
    expect(countOnly).toMatchObject({ jids: [], rsm: { count: 2 } });
  });

  it('#search an empty query lists every visible endpoint; counts include only visible matches', async () => {
    const cases = [
      [BOB, LOCAL_VISIBLE],
      [ALICE, VISIBLE.alice],
      [CAROL, VISIBLE.remote],
    ] as const;
    for (const [jid, visible] of cases) {
      const caller = await world().caller(jid);
      const found = await searchByForm(caller, {}, { max: 10 });
      expect(found.jids, jid).toEqual(visible);
      expect(found.rsm?.count, jid).toBe(visible.length);
      const legacy = parseSearchResults(
        resultPayload(
          await caller.exchangeIq(GATEWAY, 'set', buildSearchRequest({ kind: 'legacy', fields: {} })),
        ),
      );
      expect(legacy.kind === 'legacy' ? legacy.items.map((item) => item.jid) : [], jid).toEqual(visible);
    }
  });

  it('#search a hidden or unauthorized endpoint is never found: the same empty result as a nonexistent one', async () => {
    const bob = await world().caller(BOB);
    const hidden = await searchByForm(bob, { nick: 'vault' }, { max: 5 });
    const missing = await searchByForm(bob, { nick: 'nosuchagent' }, { max: 5 });
    expect(hidden).toMatchObject({ jids: [], rsm: { count: 0 } });
    expect(normalizedReply(hidden.exchange, GATEWAY)).toBe(normalizedReply(missing.exchange, GATEWAY));
    // alice's grant names the hidden vault.
    expect((await searchByForm(await world().caller(ALICE), { nick: 'vault' })).jids).toEqual([JID.vault]);
    // carol may see weather only: calendar exists, but her search cannot tell.
    const carol = await world().caller(CAROL);
    const unauthorized = await searchByForm(carol, { nick: 'calendar' }, { max: 5 });
    const nothing = await searchByForm(carol, { nick: 'nosuchagent' }, { max: 5 });
    expect(unauthorized).toMatchObject({ jids: [], rsm: { count: 0 } });
    expect(normalizedReply(unauthorized.exchange, GATEWAY)).toBe(normalizedReply(nothing.exchange, GATEWAY));
  });
});
