import { xml } from '@xmpp/xml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NS } from '../namespaces.ts';
import { compact } from './compact.ts';
import { buildRsmRequest, buildRsmResponse, findRsmSet, parseRsmRequest, parseRsmResponse } from './rsm.ts';
import type { RsmRequest, RsmResponse } from './rsm.ts';
import {
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const SET = `{${NS.rsm}}set`;
const setXml = (content: string): string => `<set xmlns='${NS.rsm}'>${content}</set>`;

const xmlString = fc.string({
  unit: fc.constantFrom('a', 'Z', '@', '.', '#', ' ', '\t', '\n', '\r', '<', '&', '😀'),
  maxLength: 12,
});
const xsInt = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const rsmRequest: fc.Arbitrary<RsmRequest> = fc
  .record({
    max: optional(xsInt),
    after: optional(xmlString),
    before: optional(xmlString),
    index: optional(xsInt),
  })
  .map((value) => compact(value));
const rsmResponse: fc.Arbitrary<RsmResponse> = fc
  .record({
    page: optional(fc.record({ first: xmlString, index: optional(xsInt), last: xmlString })),
    count: optional(xsInt),
  })
  .map(({ page, count }) =>
    compact({
      first: page === undefined ? undefined : compact({ uid: page.first, index: page.index }),
      last: page?.last,
      count,
    }),
  );

describe('XEP-0059 <set/>', () => {
  it('round-trips requests and responses (property)', () => {
    fc.assert(
      fc.property(rsmRequest, (request) => void expectRoundTrip(buildRsmRequest, parseRsmRequest, request)),
    );
    fc.assert(
      fc.property(
        rsmResponse,
        (response) => void expectRoundTrip(buildRsmResponse, parseRsmResponse, response),
      ),
    );
  });

  it('keeps an empty <before/> (last page) distinct from an absent one', () => {
    expect(parseRsmRequest(parseXml(setXml('<max>10</max><before/>')))).toEqual({ max: 10, before: '' });
    expect(parseRsmRequest(parseXml(setXml('<max>10</max>')))).toEqual({ max: 10 });
    expect(serialize(buildRsmRequest({ max: 10, before: '' }))).toBe(
      `<set xmlns='${NS.rsm}'><max>10</max><before/></set>`,
    );
  });

  it('reads children in any order (the XEP examples put <max/> first, its schema sorts them)', () => {
    expect(parseRsmRequest(parseXml(setXml('<after>x</after><max>5</max><index>3</index>')))).toEqual({
      max: 5,
      after: 'x',
      index: 3,
    });
    expect(
      parseRsmResponse(parseXml(setXml("<count>2</count><last>b</last><first index='0'>a</first>"))),
    ).toEqual({
      first: { uid: 'a', index: 0 },
      last: 'b',
      count: 2,
    });
  });

  it('reads integers that numbers built with xml() carry as number children', () => {
    expect(parseRsmRequest(xml('set', { xmlns: NS.rsm }, xml('max', {}, 50 as unknown as string)))).toEqual({
      max: 50,
    });
  });

  it('finds the <set/> inside a wrapper query and refuses two', () => {
    const query = parseXml(`<query xmlns='${NS.discoItems}'>${setXml('<max>1</max>')}</query>`);
    expect(findRsmSet(query)).toBeDefined();
    expect(findRsmSet(parseXml(`<query xmlns='${NS.discoItems}'/>`))).toBeUndefined();
    expectParseError(findRsmSet, `<query xmlns='${NS.discoItems}'>${setXml('')}${setXml('')}</query>`, {
      rule: 'duplicate-child',
      element: `{${NS.discoItems}}query`,
    });
  });

  it.each(
    titled([
      [parseRsmRequest, setXml('<max>-1</max>'), { rule: 'invalid-integer', element: `{${NS.rsm}}max` }],
      [
        parseRsmRequest,
        setXml('<max>2147483648</max>'),
        { rule: 'integer-out-of-range', element: `{${NS.rsm}}max` },
      ],
      [parseRsmRequest, setXml('<max>1</max><max>2</max>'), { rule: 'duplicate-child', element: SET }],
      [parseRsmRequest, setXml('<first>a</first>'), { rule: 'unexpected-child', element: SET }],
      [parseRsmRequest, setXml("<max xmlns='urn:other'>1</max>"), { rule: 'unexpected-child', element: SET }],
      [
        parseRsmRequest,
        setXml('<after><b/></after>'),
        { rule: 'unexpected-child', element: `{${NS.rsm}}after` },
      ],
      [parseRsmResponse, setXml('<max>1</max>'), { rule: 'unexpected-child', element: SET }],
      [parseRsmResponse, setXml('<first>a</first><count>1</count>'), { rule: 'missing-child', element: SET }],
      [
        parseRsmResponse,
        setXml("<first index='x'>a</first><last>a</last>"),
        { rule: 'invalid-integer', element: `{${NS.rsm}}first`, attribute: 'index' },
      ],
      [
        parseRsmResponse,
        setXml("<count unit='items'>1</count>"),
        { rule: 'unexpected-attribute', element: `{${NS.rsm}}count`, attribute: 'unit' },
      ],
      [parseRsmResponse, "<set xmlns='http://jabber.org/protocol/rsm#2'/>", { rule: 'wrong-namespace' }],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build a page with only one of first/last, or an index beyond xs:int', () => {
    expectBuildError(() => buildRsmResponse({ last: 'b' }), { rule: 'missing-child', element: SET });
    expectBuildError(() => buildRsmRequest({ max: 2 ** 31 }), {
      rule: 'integer-out-of-range',
      element: `{${NS.rsm}}max`,
    });
    expectBuildError(() => buildRsmResponse({ first: { uid: 'a', index: 2 ** 31 }, last: 'a' }), {
      rule: 'integer-out-of-range',
      element: `{${NS.rsm}}first`,
      attribute: 'index',
    });
  });
});
