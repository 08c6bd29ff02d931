import { describe, expect, it } from 'vitest';
import { NODE_DIRECTORY, NS } from '../namespaces.ts';
import {
  buildDiscoItems,
  buildDiscoItemsRequest,
  parseDiscoItems,
  parseDiscoItemsRequest,
} from './disco-items.ts';
import {
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

const QUERY = `{${NS.discoItems}}query`;
const queryXml = (content: string): string => `<query xmlns='${NS.discoItems}'>${content}</query>`;

describe('disco#items', () => {
  it('round-trips requests with and without RSM, and pages of items', () => {
    expectRoundTrip(buildDiscoItemsRequest, parseDiscoItemsRequest, {});
    expectRoundTrip(buildDiscoItemsRequest, parseDiscoItemsRequest, {
      node: NODE_DIRECTORY,
      rsm: { max: 50, before: '' },
    });
    expectRoundTrip(buildDiscoItems, parseDiscoItems, { items: [] });
    expectRoundTrip(buildDiscoItems, parseDiscoItems, {
      node: 'urn:xmpp:agent-tools:0#1.4.0',
      items: [
        {
          jid: 'weather@agents.example',
          node: 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0',
          name: 'Get Forecast',
        },
        { jid: 'weather@agents.example', node: 'urn:xmpp:agent-tool:0#1.4.0#d2Vla2x5', name: 'Week' },
      ],
      rsm: {
        first: { uid: 'urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0', index: 0 },
        last: 'urn:xmpp:agent-tool:0#1.4.0#d2Vla2x5',
        count: 2,
      },
    });
  });

  it('keeps items in document order and skips foreign extensions inside items', () => {
    const result = parseDiscoItems(
      parseXml(
        queryXml("<item jid='b@x'/><item jid='a@x'><ext xmlns='urn:x'/></item><other xmlns='urn:x'/>"),
      ),
    );
    expect(result.items.map((item) => item.jid)).toEqual(['b@x', 'a@x']);
  });

  it.each(
    titled([
      [parseDiscoItemsRequest, queryXml("<item jid='a@x'/>"), { rule: 'unexpected-child', element: QUERY }],
      [
        parseDiscoItems,
        queryXml('<item/>'),
        { rule: 'missing-attribute', element: `{${NS.discoItems}}item`, attribute: 'jid' },
      ],
      [
        parseDiscoItems,
        queryXml("<item jid='a@x'>text</item>"),
        { rule: 'unexpected-text', element: `{${NS.discoItems}}item` },
      ],
      [
        parseDiscoItems,
        queryXml("<item jid='a@x'><item jid='b@x'/></item>"),
        { rule: 'unexpected-child', element: `{${NS.discoItems}}item` },
      ],
      [
        parseDiscoItems,
        queryXml("<item jid='a@x' category='x'/>"),
        { rule: 'unexpected-attribute', element: `{${NS.discoItems}}item`, attribute: 'category' },
      ],
      [
        parseDiscoItems,
        queryXml("<identity category='x' type='y'/>"),
        { rule: 'unexpected-child', element: QUERY },
      ],
      [
        parseDiscoItems,
        queryXml(`<set xmlns='${NS.rsm}'><first>a</first></set>`),
        { rule: 'missing-child', element: `{${NS.rsm}}set` },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build an item address XML cannot carry', () => {
    expectBuildError(() => buildDiscoItems({ items: [{ jid: 'a\u0000@x' }] }), {
      rule: 'illegal-xml-character',
      element: `{${NS.discoItems}}item`,
      attribute: 'jid',
    });
  });
});
