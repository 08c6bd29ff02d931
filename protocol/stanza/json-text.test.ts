import { xml } from '@xmpp/xml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { expectBuildError } from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const ARGUMENTS = { local: 'arguments', ns: NS_AGENT_TASK };

describe('JSON-bearing elements (#json-encoding)', () => {
  it('concatenates every text node, whatever the split', () => {
    const element = xml('arguments', { xmlns: NS_AGENT_TASK }, '{"city":', '"Ri', 'ga"}');
    expect(element.children).toHaveLength(3);
    expect(readJsonText(element)).toBe('{"city":"Riga"}');
  });

  it('reads entity-decoded text and CDATA sections alike', () => {
    const text = `<arguments>{"q":"&lt;b&gt;&amp;&#x22;"<![CDATA[,"r":"<&>"]]>}</arguments>`;
    expect(readJsonText(parseXml(text))).toBe('{"q":"<b>&""' + ',"r":"<&>"}');
  });

  it('builds exactly one text node and refuses text XML cannot carry', () => {
    expect(buildJsonElement(ARGUMENTS, {}, '{"a":1}').children).toEqual(['{"a":1}']);
    for (const illegal of ['\u0000', '\u001F', '\uFFFE', '\uFFFF', '\uD800', '\uDFFF']) {
      expectBuildError(() => buildJsonElement(ARGUMENTS, {}, `{"a":"${illegal}"}`), {
        rule: 'illegal-xml-character',
        element: `{${NS_AGENT_TASK}}arguments`,
      });
    }
  });

  it('round-trips any XML-legal text through the serializer and parser (property)', () => {
    const legal = fc
      .string({ unit: 'binary', maxLength: 40 })
      .map((text) => text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ''));
    fc.assert(
      fc.property(legal, (json) => {
        expect(
          readJsonText(parseXml(serialize(buildJsonElement(ARGUMENTS, { xmlns: NS_AGENT_TASK }, json)))),
        ).toBe(json);
      }),
    );
  });
});
