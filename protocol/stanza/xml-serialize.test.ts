import { Element, xml } from '@xmpp/xml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { attributeOf, characterDataOf } from './element-access.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { XmlSerializeError, escapeAttribute, escapeText, serialize } from './xml-serialize.ts';

/** Characters chosen to stress escaping, plus the whole XML 1.0 repertoire. */
const xmlChar = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('<', '&', '>', '"', "'", '\t', '\n', '\r', ']', ' ', 'a', '😀', '\uFFFD'),
  },
  fc.integer({ min: 0x20, max: 0xd7ff }).map((point) => String.fromCodePoint(point)),
  fc.integer({ min: 0xe000, max: 0xfffd }).map((point) => String.fromCodePoint(point)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((point) => String.fromCodePoint(point)),
);
const xmlText = fc.string({ unit: xmlChar, maxLength: 24 });

interface TreeNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly (TreeNode | string)[];
}

const { tree } = fc.letrec<{ tree: TreeNode; node: TreeNode | string }>((arb) => ({
  tree: fc.record({
    name: fc.constantFrom('a', 'b', 'json', 'tool-name'),
    attrs: fc.dictionary(fc.constantFrom('x', 'tool', 'reason', 'y.z'), xmlText, { maxKeys: 3 }),
    children: fc.array(arb('node'), { maxLength: 4 }),
  }),
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, xmlText, arb('tree')),
}));

function toElement(node: TreeNode): Element {
  return xml(
    node.name,
    { ...node.attrs },
    ...node.children.map((child) => (typeof child === 'string' ? child : toElement(child))),
  );
}

interface Normalized {
  readonly name: string;
  readonly attrs: readonly (readonly [string, string])[];
  readonly children: readonly (Normalized | string)[];
}

/** Adjacent text merged, empty text dropped, attributes sorted: what any XML parser must preserve. */
function normalize(element: Element): Normalized {
  const children: (Normalized | string)[] = [];
  for (const child of element.children) {
    if (child instanceof Element) children.push(normalize(child));
    else if (child !== '') {
      const previous = children.at(-1);
      if (typeof previous === 'string') children[children.length - 1] = previous + child;
      else children.push(child);
    }
  }
  const attrs = Object.entries(element.attrs)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return { name: element.name, attrs, children };
}

describe('serialize', () => {
  it('escapes markup in text and attribute values', () => {
    const element = xml('a', { x: `<&>'"` }, `<&>'"]]>`);
    expect(serialize(element)).toBe(`<a x='&lt;&amp;&gt;&apos;"'>&lt;&amp;&gt;'"]]&gt;</a>`);
  });

  it('writes TAB, LF and CR in attributes, and CR in text, as character references', () => {
    expect(escapeAttribute('a\tb\nc\rd')).toBe('a&#9;b&#10;c&#13;d');
    expect(escapeText('a\tb\nc\rd')).toBe('a\tb\nc&#13;d');
    const element = parseXml(serialize(xml('invoke', { tool: 'a\tb\nc\r\nd' }, 'x\r\ny\rz')));
    expect(attributeOf(element, 'tool')).toBe('a\tb\nc\r\nd');
    expect(characterDataOf(element)).toBe('x\r\ny\rz');
  });

  it("fixes what ltx's toString() loses: its attribute TAB comes back as a space", () => {
    const element = xml('invoke', { tool: 'a\tb' });
    expect(attributeOf(parseXml(element.toString()), 'tool')).toBe('a b');
    expect(attributeOf(parseXml(serialize(element)), 'tool')).toBe('a\tb');
  });

  it('writes empty elements self-closed, skips null attributes, and writes number children as text', () => {
    const element = xml(
      'set',
      { xmlns: 'http://jabber.org/protocol/rsm', skipped: undefined },
      xml('max', {}, 10 as unknown as string),
      xml('before'),
    );
    expect(serialize(element)).toBe(
      "<set xmlns='http://jabber.org/protocol/rsm'><max>10</max><before/></set>",
    );
  });

  it.each([
    ['a C0 control in text', xml('json', {}, '{"a":"\u0000"}'), 'json', undefined],
    ['U+FFFF in text', xml('reason', {}, '\uFFFF'), 'reason', undefined],
    ['a lone surrogate in an attribute', xml('invoke', { tool: 'x\uDC00' }), 'invoke', 'tool'],
    ['U+FFFE in an attribute', xml('event', { type: '\uFFFE' }), 'event', 'type'],
  ])('refuses %s with a typed error', (_what, element, name, attribute) => {
    let thrown: unknown;
    try {
      serialize(element);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(XmlSerializeError);
    const error = thrown as XmlSerializeError;
    expect(error.rule).toBe('illegal-character');
    expect(error.element).toBe(name);
    expect(error.attribute).toBe(attribute);
  });

  it('refuses names that are not XML qualified names', () => {
    expect(() => serialize(new Element('1a'))).toThrow(XmlSerializeError);
    expect(() => serialize(xml('a', { 'b c': '1' }))).toThrow(/invalid-name/);
  });

  it('round-trips every legal string through attributes and text (property)', () => {
    fc.assert(
      fc.property(tree, (node) => {
        const element = toElement(node);
        expect(normalize(parseXml(serialize(element)))).toEqual(normalize(element));
      }),
    );
  });

  it('produces documents libxml2 reads exactly as parseXml does', async () => {
    const samples = fc.sample(tree, { numRuns: 25, seed: 20260730 });
    const wrapper = xml('root', {}, ...samples.map(toElement));
    const result = await validateXML({
      xml: [{ fileName: 'sample.xml', contents: serialize(wrapper) }],
      normalization: 'c14n',
    });
    expect(result.errors).toEqual([]);
    expect(normalize(parseXml(result.normalized))).toEqual(normalize(wrapper));
  });
});
