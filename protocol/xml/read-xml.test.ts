import { describe, expect, it } from 'vitest';
import { attributeValue, childElements, standaloneSource, textContent, walk } from './xml-query.ts';
import { readXml, type XmlElement } from './read-xml.ts';
import { XmlSyntaxError } from './xml-syntax-error.ts';

function only(element: XmlElement | undefined): XmlElement {
  if (element === undefined) throw new Error('missing element');
  return element;
}

function readError(text: string, mode: 'strict' | 'spec' = 'strict'): XmlSyntaxError {
  try {
    readXml(text, mode);
  } catch (error) {
    if (error instanceof XmlSyntaxError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('readXml', () => {
  it('resolves namespaces for elements and attributes, with default and prefixed bindings', () => {
    const { root } = readXml(`<a xmlns='urn:d' xmlns:p='urn:p'><p:b p:x='1' y='2'/><c xmlns=''/></a>`);
    const [b, c] = childElements(root);
    expect(root).toMatchObject({ localName: 'a', namespace: 'urn:d' });
    expect(b).toMatchObject({ name: 'p:b', localName: 'b', namespace: 'urn:p' });
    expect(only(b).attributes).toEqual([
      { name: 'p:x', localName: 'x', namespace: 'urn:p', value: '1' },
      { name: 'y', localName: 'y', namespace: null, value: '2' },
    ]);
    expect(c).toMatchObject({ localName: 'c', namespace: null });
  });

  it('keeps CDATA exactly, expands references in text, and normalizes line ends and attribute whitespace', () => {
    const doc = readXml(`<a t='x\ty&#9;z'>&lt;1&amp;&#x41;<![CDATA[ <b>&amp;\r\n]]>\r\n</a>`);
    expect(textContent(doc.root)).toBe('<1&A <b>&amp;\n\n');
    expect(attributeValue(doc.root, 't')).toBe('x y\tz');
    expect(doc.root.children.map((child) => child.kind === 'text' && child.cdata)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('records offsets and lines so substrings and line numbers point into the source', () => {
    const doc = readXml(`<r>\n  <x a='1'>\n    <y/>\n  </x>\n</r>`);
    const x = only(childElements(doc.root, 'x')[0]);
    expect(doc.source.slice(x.start, x.end)).toBe(`<x a='1'>\n    <y/>\n  </x>`);
    expect(doc.lineOf(x.start)).toBe(2);
    expect(doc.lineOf(only(childElements(x, 'y')[0]).start)).toBe(3);
    expect([...walk(doc.root)].map((element) => element.localName)).toEqual(['r', 'x', 'y']);
  });

  it('makes a nested element standalone by declaring inherited namespaces on it', () => {
    const doc = readXml(`<r xmlns='urn:d' xmlns:h='urn:h'><e h:a='1'><h:k/></e><f xmlns='urn:f'/></r>`);
    const [e, f] = childElements(doc.root);
    const standalone = standaloneSource(doc, only(e));
    expect(standalone).toBe(`<e xmlns='urn:d' xmlns:h='urn:h' h:a='1'><h:k/></e>`);
    expect(readXml(standalone).root).toMatchObject({ namespace: 'urn:d' });
    expect(standaloneSource(doc, only(f))).toBe(`<f xmlns:h='urn:h' xmlns='urn:f'/>`);
  });

  it('in spec mode skips the DOCTYPE and keeps undeclared entity references verbatim', () => {
    const spec = `<?xml version='1.0'?>\n<!DOCTYPE xep SYSTEM 'xep.dtd' [\n  <!ENTITY % ents SYSTEM 'xep.ent'>\n%ents;\n]>\n<xep><p>see &xep0030; &amp; more</p></xep>`;
    const doc = readXml(spec, 'spec');
    expect(textContent(only(childElements(doc.root, 'p')[0]))).toBe('see &xep0030; & more');
    expect(readError(spec).message).toContain('document type declarations are not allowed');
    expect(readError('<a>&xep0030;</a>').message).toContain('entity &xep0030; is not declared');
  });

  it.each([
    ['<a></b>', '</b> closes <a>', 1],
    ['<a>\n<b>\n</a>', '</a> closes <b>', 3],
    ['<a x="1" x="2"/>', 'attribute x appears twice', 1],
    [`<a xmlns:p='u' xmlns:q='u' p:x='1' q:x='2'/>`, 'attribute {u}x appears twice', 1],
    ['<p:a/>', 'namespace prefix in p:a is not declared', 1],
    [`<a xmlns:p=''/>`, 'must not be empty', 1],
    ['<a>x & y</a>', "'&' must start a reference", 1],
    ['<a>&#0;</a>', 'does not reference an XML 1.0 character', 1],
    ['<a>&#xD800;</a>', 'does not reference an XML 1.0 character', 1],
    ['<a>]]></a>', "']]>' is not allowed", 1],
    ['<a>\u0001</a>', 'character not allowed', 1],
    ['<a>\uD800</a>', 'character not allowed', 1],
    ['<a><!-- x -- y --></a>', "'--' is not allowed", 1],
    ['<a b="<"/>', "'<' in the value of b", 1],
    ['<a b="1"c="2"/>', 'whitespace must separate attributes', 1],
    ['<a/><b/>', 'content after the root element', 1],
    ['text', 'expected the root element', 1],
    ['<a>', '<a> is never closed', 1],
    ['<a><![CDATA[x</a>', 'unterminated CDATA section', 1],
    ['<a/><?xml version="1.0"?>', 'the XML declaration must come first', 1],
  ])('rejects %j: %s', (text, message, line) => {
    const error = readError(text);
    expect(error.message).toContain(message);
    expect(error.line).toBe(line);
  });

  it('accepts comments, PIs and whitespace around the root, and a leading BOM', () => {
    const doc = readXml(
      `\uFEFF<?xml version="1.0"?>\n<!-- c -->\n<?pi data?>\n<a><!-- in --><?p?></a>\n<!-- after -->\n`,
    );
    expect(doc.root.localName).toBe('a');
    expect(doc.root.children).toEqual([]);
  });
});
