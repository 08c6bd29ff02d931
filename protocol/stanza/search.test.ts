import { describe, expect, it } from 'vitest';
import { FORM_TYPE, NS } from '../namespaces.ts';
import { formTypeOf } from './data-form.ts';
import {
  buildSearchForm,
  buildSearchFormRequest,
  buildSearchRequest,
  buildSearchResults,
  parseSearchForm,
  parseSearchFormRequest,
  parseSearchRequest,
  parseSearchResults,
} from './search.ts';
import {
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const QUERY = `{${NS.search}}query`;
const queryXml = (content: string): string => `<query xmlns='${NS.search}'>${content}</query>`;
const SUBMIT = `<x xmlns='${NS.dataForms}' type='submit'><field type='hidden' var='FORM_TYPE'><value>jabber:iq:search</value></field><field var='nick'><value>weather</value></field></x>`;
const REPORTED = "<reported><field var='jid' type='jid-single'/><field var='nick'/></reported>";
const resultForm = (content: string): string => `<x xmlns='${NS.dataForms}' type='result'>${content}</x>`;

describe('jabber:iq:search', () => {
  it('round-trips the form request and the search form', () => {
    expect(serialize(buildSearchFormRequest())).toBe(`<query xmlns='${NS.search}'/>`);
    expect(() => {
      parseSearchFormRequest(buildSearchFormRequest());
    }).not.toThrow();
    expectRoundTrip(buildSearchForm, parseSearchForm, {
      instructions: 'Enter a nickname to search for matching agents.',
      legacyFields: ['nick'],
      form: {
        type: 'form',
        title: 'Agent Directory Search',
        instructions: [],
        fields: [
          { var: 'FORM_TYPE', type: 'hidden', required: false, values: [FORM_TYPE.search], options: [] },
          { var: 'nick', type: 'text-single', label: 'Nickname', required: false, values: [], options: [] },
        ],
        items: [],
      },
    });
    expectRoundTrip(buildSearchForm, parseSearchForm, { legacyFields: ['first', 'last', 'nick', 'email'] });
  });

  it('round-trips legacy and form submissions with RSM', () => {
    expectRoundTrip(buildSearchRequest, parseSearchRequest, {
      kind: 'legacy',
      fields: { nick: 'weather' },
      rsm: { max: 50 },
    });
    expectRoundTrip(buildSearchRequest, parseSearchRequest, { kind: 'legacy', fields: {} });
    const form = parseSearchRequest(parseXml(queryXml(SUBMIT)));
    expect(form.kind === 'form' && formTypeOf(form.form)).toBe(FORM_TYPE.search);
    expectRoundTrip(buildSearchRequest, parseSearchRequest, {
      ...form,
      rsm: { max: 10, after: 'weather@agents.example' },
    });
  });

  it('round-trips legacy results, form results and the empty result', () => {
    const rsm = { first: { uid: 'a@agents.example', index: 0 }, last: 'weather@agents.example', count: 2 };
    expectRoundTrip(buildSearchResults, parseSearchResults, {
      kind: 'legacy',
      items: [
        { jid: 'a@agents.example', nick: 'A' },
        { jid: 'weather@agents.example', nick: 'Weather Agent', first: 'W' },
      ],
      rsm,
    });
    const formResults = parseSearchResults(
      parseXml(
        queryXml(
          resultForm(
            `${REPORTED}<item><field var='jid'><value>weather@agents.example</value></field><field var='nick'><value>Weather Agent</value></field></item>`,
          ),
        ),
      ),
    );
    expectRoundTrip(buildSearchResults, parseSearchResults, { ...formResults, rsm });
    expectRoundTrip(buildSearchResults, parseSearchResults, { kind: 'empty' });
    expectRoundTrip(buildSearchResults, parseSearchResults, { kind: 'empty', rsm: { count: 0 } });
  });

  it('keeps title and instructions of a result form so a report can warn about them (interp-18)', () => {
    const results = parseSearchResults(parseXml(queryXml(resultForm(`<title>Matches</title>${REPORTED}`))));
    expect(results.kind === 'form' && results.form.title).toBe('Matches');
  });

  it.each(
    titled([
      [parseSearchFormRequest, queryXml('<nick/>'), { rule: 'unexpected-child', element: QUERY }],
      [
        parseSearchForm,
        queryXml('<nick>x</nick>'),
        { rule: 'unexpected-text', element: `{${NS.search}}nick` },
      ],
      [parseSearchForm, queryXml('<nick/><nick/>'), { rule: 'duplicate-child', element: QUERY }],
      [parseSearchForm, queryXml('<phone/>'), { rule: 'unexpected-child', element: QUERY }],
      [parseSearchRequest, queryXml(`<nick>w</nick>${SUBMIT}`), { rule: 'unexpected-child', element: QUERY }],
      [
        parseSearchRequest,
        queryXml('<instructions>x</instructions>'),
        { rule: 'unexpected-child', element: QUERY },
      ],
      [
        parseSearchRequest,
        queryXml(SUBMIT.replace("type='submit'", "type='form'")),
        { rule: 'invalid-attribute', element: `{${NS.dataForms}}x`, attribute: 'type' },
      ],
      [
        parseSearchResults,
        queryXml('<item><nick>x</nick></item>'),
        { rule: 'missing-attribute', element: `{${NS.search}}item`, attribute: 'jid' },
      ],
      [
        parseSearchResults,
        queryXml("<item jid='a@x'><phone>1</phone></item>"),
        { rule: 'unexpected-child', element: `{${NS.search}}item` },
      ],
      [
        parseSearchResults,
        queryXml("<item jid='a@x'><nick>1</nick><nick>2</nick></item>"),
        { rule: 'duplicate-child', element: `{${NS.search}}item` },
      ],
      [
        parseSearchResults,
        queryXml(`<item jid='a@x'/>${resultForm(REPORTED)}`),
        { rule: 'unexpected-child', element: QUERY },
      ],
      [
        parseSearchResults,
        queryXml(resultForm(`<field type='hidden' var='FORM_TYPE'><value>jabber:iq:search</value></field>`)),
        { rule: 'missing-child', element: `{${NS.dataForms}}x` },
      ],
      [
        parseSearchResults,
        queryXml(resultForm(`${REPORTED}<set xmlns='${NS.rsm}'><count>0</count></set>`)),
        { rule: 'unexpected-child', element: `{${NS.dataForms}}x` },
      ],
      [
        parseSearchResults,
        queryXml(`<x xmlns='${NS.dataForms}' type='form'/>`),
        { rule: 'invalid-attribute', element: `{${NS.dataForms}}x`, attribute: 'type' },
      ],
      [
        parseSearchResults,
        queryXml(resultForm(REPORTED) + resultForm(REPORTED)),
        { rule: 'duplicate-child', element: QUERY },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses a result form with top-level fields (XEP-0004 §3.4, interp-18)', () => {
    expectParseError(
      parseSearchResults,
      queryXml(
        resultForm(`<field type='hidden' var='FORM_TYPE'><value>jabber:iq:search</value></field>${REPORTED}`),
      ),
      { rule: 'unexpected-child', element: `{${NS.dataForms}}x` },
    );
    expectParseError(parseSearchResults, queryXml(resultForm(`<field var='x'/>`)), {
      rule: 'missing-child',
      element: `{${NS.dataForms}}x`,
    });
  });

  it('refuses to build a submission whose form is not a submit form', () => {
    expectBuildError(() => buildSearchRequest({ kind: 'form', form: { type: 'result' } }), {
      rule: 'invalid-attribute',
      element: `{${NS.dataForms}}x`,
      attribute: 'type',
    });
  });
});
