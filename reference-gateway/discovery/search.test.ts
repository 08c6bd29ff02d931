import { describe, expect, it } from 'vitest';
import { FORM_TYPE } from '../../protocol/namespaces.ts';
import { parseSearchForm, parseSearchResults, parseXml } from '../../protocol/stanza/index.ts';
import type { SearchResults } from '../../protocol/stanza/index.ts';
import {
  GATEWAY,
  ask,
  expectFault,
  expectIdenticalFaults,
  resultOf,
  resultText,
  rsmSet,
  withSettings,
} from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { MemoryCatalog, manifestJson, manifestRecord, onlyTo } from './test-support/memory-catalog.ts';
import { foldForSearch } from './search-match.ts';
import { ROMEO, readFixtureManifest } from './test-support/world.ts';

const J = {
  weather: 'weather@agents.example',
  aerger: 'aerger@agents.example',
  zeta: 'zeta-bot@agents.example',
  secret: 'secret@agents.example',
  quiet: 'quiet@agents.example',
} as const;

const catalog = new MemoryCatalog()
  .add(await manifestRecord(readFixtureManifest('weather-full.json')))
  .add(await manifestRecord(manifestJson({ jid: J.aerger, name: 'complaints', title: 'Ärger Desk' })))
  .add(
    await manifestRecord(
      manifestJson({
        jid: J.zeta,
        name: 'z',
        title: 'Zed',
        tools: [{ name: 'x', extension: { tags: ['Maps'] } }],
      }),
    ),
  )
  .add(await manifestRecord(manifestJson({ jid: J.quiet, name: 'quiet' })))
  .add(
    await manifestRecord(
      manifestJson({
        jid: J.secret,
        name: 'secret',
        title: 'Secret Weather',
        tools: [{ name: 'y', extension: { tags: ['weather'] } }],
      }),
    ),
    onlyTo('romeo@example.net'),
  );

const ALL_VISIBLE = [J.aerger, J.quiet, J.weather, J.zeta];

const legacy = (fields: string, rsm = ''): string =>
  `<query xmlns='jabber:iq:search'>${fields}${rsm}</query>`;

function form(
  fields: Record<string, string | readonly string[]>,
  formType: string = FORM_TYPE.search,
  rsm = '',
): string {
  const typeField =
    formType === '' ? '' : `<field var='FORM_TYPE' type='hidden'><value>${formType}</value></field>`;
  const rest = Object.entries(fields)
    .map(([name, value]) => {
      const values = (typeof value === 'string' ? [value] : value)
        .map((text) => `<value>${text}</value>`)
        .join('');
      return `<field var='${name}'>${values}</field>`;
    })
    .join('');
  return `<query xmlns='jabber:iq:search'>${rsm}<x xmlns='jabber:x:data' type='submit'>${typeField}${rest}</x></query>`;
}

function search(xml: string, request: Partial<Ask> = {}): SearchResults {
  return parseSearchResults(
    parseXml(resultText(ask(catalog, { to: GATEWAY, iqType: 'set', xml, ...request }))),
  );
}

function jids(results: SearchResults): string[] {
  if (results.kind === 'empty') return [];
  if (results.kind === 'legacy') return results.items.map((item) => item.jid);
  return results.form.items.map((item) => item.find((field) => field.var === 'jid')?.values[0] ?? '');
}

describe('Jabber Search (#search)', () => {
  it('offers instructions, the legacy <nick/> and a form with FORM_TYPE, nick and tag', () => {
    const offered = parseSearchForm(
      resultOf(ask(catalog, { to: GATEWAY, xml: "<query xmlns='jabber:iq:search'/>" })),
    );
    expect(offered.instructions).toMatch(/agent/);
    expect(offered.legacyFields).toEqual(['nick']);
    expect(offered.form?.type).toBe('form');
    expect(offered.form?.fields.map((field) => [field.var, field.type, field.values])).toEqual([
      ['FORM_TYPE', 'hidden', [FORM_TYPE.search]],
      ['nick', 'text-single', []],
      ['tag', 'text-single', []],
    ]);
  });

  it('answers a legacy submission with legacy items', () => {
    expect(search(legacy('<nick>weather</nick>'))).toEqual({
      kind: 'legacy',
      items: [{ jid: J.weather, nick: 'Weather Agent' }],
    });
    expect(search(legacy('<nick>nobody-here</nick>'))).toEqual({ kind: 'empty' });
  });

  it('answers a form submission with a result form of only <reported/> and <item/>, RSM outside', () => {
    const text = resultText(
      ask(catalog, {
        to: GATEWAY,
        iqType: 'set',
        xml: form({ nick: 'weather' }, FORM_TYPE.search, rsmSet('<max>5</max>')),
      }),
    );
    expect(text).toMatch(/<\/x><set xmlns='http:\/\/jabber.org\/protocol\/rsm'>/);
    const results = parseSearchResults(parseXml(text));
    if (results.kind !== 'form') throw new Error('expected a result form');
    expect(results.form.fields).toEqual([]);
    expect(results.form.title).toBeUndefined();
    expect(results.form.instructions).toEqual([]);
    expect(results.form.reported?.map((field) => field.var)).toEqual(['jid', 'nick']);
    expect(results.form.items).toEqual([
      [
        { var: 'jid', required: false, values: [J.weather], options: [] },
        { var: 'nick', required: false, values: ['Weather Agent'], options: [] },
      ],
    ]);
    expect(results.rsm).toEqual({ first: { uid: J.weather, index: 0 }, last: J.weather, count: 1 });
    const none = search(form({ nick: 'nobody-here' }));
    expect(none.kind === 'form' ? none.form.items : undefined).toEqual([]);
  });

  it('refuses a form of another FORM_TYPE, and other unusable submissions', () => {
    const outcomes = [
      form({ nick: 'weather' }, 'urn:example:other'),
      form({ nick: ['a', 'b'] }),
      legacy('<email>a@example</email>'),
      "<query xmlns='jabber:iq:search'><x xmlns='jabber:x:data' type='cancel'/></query>",
    ].map((xml) => ask(catalog, { to: GATEWAY, iqType: 'set', xml }));
    expectIdenticalFaults(outcomes, 'bad-request');
    expect(jids(search(form({ nick: 'weather', email: '' })))).toEqual([J.weather]);
    expect(jids(search(legacy('<first/><nick>weather</nick><last/>')))).toEqual([J.weather]);
  });

  it('ignores form fields it does not understand (XEP-0004 §3.1) and reads a form without FORM_TYPE as the search form', () => {
    expect(jids(search(form({ nick: 'weather', email: 'a@example', 'x-client-hint': 'slixmpp' })))).toEqual([
      J.weather,
    ]);
    expect(jids(search(form({ nick: 'weather' }, '')))).toEqual([J.weather]);
  });

  it('matches nick as a Unicode-aware, case-insensitive substring of localpart, name and title', () => {
    expect(jids(search(legacy('<nick>WEATHER AG</nick>')))).toEqual([J.weather]);
    expect(jids(search(legacy('<nick>a\u0308RGER</nick>')))).toEqual([J.aerger]);
    expect(jids(search(legacy('<nick>aerger</nick>')))).toEqual([J.aerger]);
    expect(jids(search(legacy('<nick>complaint</nick>')))).toEqual([J.aerger]);
    expect(jids(search(legacy('<nick>-BOT</nick>')))).toEqual([J.zeta]);
    expect(jids(search(legacy('<nick>e</nick>')))).toEqual([J.aerger, J.quiet, J.weather, J.zeta]);
    expect(foldForSearch('\u0130')).toBe('i\u0307');
    expect(foldForSearch('TITLE')).toBe('title');
  });

  it('matches tag exactly and case-insensitively against any tool tag, together with nick', () => {
    expect(jids(search(form({ tag: 'FORECAST' })))).toEqual([J.weather]);
    expect(jids(search(form({ tag: 'maps' })))).toEqual([J.zeta]);
    expect(jids(search(form({ tag: 'fore' })))).toEqual([]);
    expect(jids(search(form({ tag: 'weather', nick: 'zed' })))).toEqual([]);
    expect(jids(search(form({ tag: 'weather', nick: 'weather' })))).toEqual([J.weather]);
  });

  it('lists every visible endpoint for an empty query, in octet order', () => {
    expect(jids(search(legacy('')))).toEqual(ALL_VISIBLE);
    expect(jids(search(legacy('<nick/>')))).toEqual(ALL_VISIBLE);
    expect(jids(search(legacy('<nick>  </nick>')))).toEqual(ALL_VISIBLE);
    expect(jids(search(form({})))).toEqual(ALL_VISIBLE);
    expect(jids(search(form({ nick: '', tag: '' })))).toEqual(ALL_VISIBLE);
  });

  it('counts visible matches only, and pages them like the directory', () => {
    expect(search(form({ tag: 'weather' }), { from: ROMEO }).rsm).toBeUndefined();
    expect(jids(search(form({ tag: 'weather' }), { from: ROMEO }))).toEqual([J.secret, J.weather]);
    expect(search(form({ tag: 'weather' }, FORM_TYPE.search, rsmSet('<max>0</max>')))).toMatchObject({
      rsm: { count: 1 },
    });
    expect(search(legacy('', rsmSet('<max>0</max>')))).toEqual({ kind: 'empty', rsm: { count: 4 } });
    expect(search(legacy('', rsmSet('<max>2</max><before/>')))).toMatchObject({
      rsm: { first: { uid: J.weather, index: 2 }, last: J.zeta, count: 4 },
    });
    expect(jids(search(legacy('', rsmSet('<max>1</max><index>1</index>'))))).toEqual([J.quiet]);
    const after = (uid: string): string =>
      resultText(
        ask(catalog, { to: GATEWAY, iqType: 'set', xml: legacy('', rsmSet(`<after>${uid}</after>`)) }),
      );
    expect(after(J.secret)).toBe(after('sea@agents.example'));
    expect(jids(search(legacy('', rsmSet(`<after>${J.secret}</after>`))))).toEqual([J.weather, J.zeta]);
    expectFault(
      ask(catalog, { to: GATEWAY, iqType: 'set', xml: legacy('', rsmSet('<after>a b</after>')) }),
      'item-not-found',
    );
    expect(jids(search(legacy(''), { settings: withSettings({ pageMaximum: 3 }) }))).toHaveLength(3);
  });

  it('is a gateway service that must be switched on', () => {
    const disabled = withSettings({ searchEnabled: false });
    const outcomes = [
      ask(catalog, { to: GATEWAY, xml: "<query xmlns='jabber:iq:search'/>", settings: disabled }),
      ask(catalog, { to: GATEWAY, iqType: 'set', xml: legacy('<nick>w</nick>'), settings: disabled }),
      ask(catalog, { to: J.weather, xml: "<query xmlns='jabber:iq:search'/>" }),
      ask(catalog, { to: 'nobody@agents.example', xml: "<query xmlns='jabber:iq:search'/>" }),
    ];
    expectIdenticalFaults(outcomes, 'service-unavailable');
  });
});
