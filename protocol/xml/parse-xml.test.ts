import { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { attributeOf, characterDataOf, childElementsOf, namespaceOf } from '../stanza/element-access.ts';
import { parseXml } from './parse-xml.ts';
import { DEFAULT_MAX_XML_DEPTH, XmlSyntaxError } from './xml-syntax-error.ts';
import type { XmlSyntaxRule } from './xml-syntax-error.ts';

function syntaxError(text: string): XmlSyntaxError {
  try {
    parseXml(text);
  } catch (error) {
    if (error instanceof XmlSyntaxError) return error;
    throw error;
  }
  throw new Error(`parsed without error: ${text}`);
}

describe('parseXml: content', () => {
  it('builds ltx Elements with attributes, children and resolved namespaces', () => {
    const root = parseXml(
      "<?xml version='1.0' encoding='UTF-8'?>\n<a xmlns='urn:a' xmlns:p='urn:p' k=\"v\"><p:b/><c xmlns=''/>t</a>\n",
    );
    expect(root).toBeInstanceOf(Element);
    expect(root.name).toBe('a');
    expect(attributeOf(root, 'k')).toBe('v');
    const [b, c] = childElementsOf(root);
    expect(b && namespaceOf(b)).toBe('urn:p');
    // ltx's own getNS() would answer urn:a here; an empty declaration removes the default namespace.
    expect(c && namespaceOf(c)).toBeUndefined();
    expect(characterDataOf(root)).toBe('t');
  });

  it('expands the predefined entities and character references, and only those', () => {
    const root = parseXml(
      '<a x="&lt;&amp;&gt;&quot;&apos;&#65;&#x1F600;">&lt;&amp;&gt;&quot;&apos;&#65;&#x1F600;</a>',
    );
    expect(attributeOf(root, 'x')).toBe('<&>"\'A😀');
    expect(characterDataOf(root)).toBe('<&>"\'A😀');
  });

  it('normalizes CRLF and lone CR to LF, but keeps &#13; (XML 1.0 §2.11)', () => {
    const root = parseXml('<a>1\r\n2\r3&#13;4&#xD;&#10;</a>');
    expect(characterDataOf(root)).toBe('1\n2\n3\r4\r\n');
  });

  it('turns literal TAB, LF and CR in attribute values into spaces, but keeps references (§3.3.3)', () => {
    const root = parseXml("<a tool='a\tb\nc\r\nd&#9;e&#10;f&#13;g'/>");
    expect(attributeOf(root, 'tool')).toBe('a b c d\te\nf\rg');
  });

  it('keeps each CDATA section as its own text node and does not decode inside it', () => {
    const root = parseXml('<json>{"a":<![CDATA["<&amp;>"]]>,"b":1<![CDATA[]]>}</json>');
    expect(root.children).toEqual(['{"a":', '"<&amp;>"', ',"b":1', '}']);
    expect(characterDataOf(root)).toBe('{"a":"<&amp;>","b":1}');
  });

  it('keeps an attribute named __proto__ as an attribute', () => {
    const root = parseXml("<a __proto__='x' constructor='y'/>");
    expect(attributeOf(root, '__proto__')).toBe('x');
    expect(attributeOf(root, 'constructor')).toBe('y');
    expect(attributeOf(parseXml('<a/>'), 'constructor')).toBeUndefined();
  });

  it('accepts a BOM, whitespace around the root, and an XML declaration with standalone', () => {
    expect(parseXml('\uFEFF<?xml version="1.0" standalone="yes"?>  <a/>\n\t').name).toBe('a');
  });

  it('reports line and column of the problem', () => {
    const error = syntaxError('<a>\n  <b>\n</a>');
    expect(error.rule).toBe('mismatched-end-tag');
    expect([error.line, error.column]).toEqual([3, 1]);
    expect(error.message).toContain('3:1');
  });

  it('accepts nesting up to the depth limit', () => {
    const depth = DEFAULT_MAX_XML_DEPTH;
    const text = '<a>'.repeat(depth) + '</a>'.repeat(depth);
    expect(parseXml(text).name).toBe('a');
    expect(parseXml('<a><a/></a>', { maxDepth: 2 }).name).toBe('a');
  });
});

/** One malformed document per rule; each must be refused with exactly that rule. */
const REFUSALS: readonly (readonly [XmlSyntaxRule, string, string])[] = [
  ['illegal-character', 'C0 control', '<a>\u0001</a>'],
  ['illegal-character', 'U+FFFE', '<a>\uFFFE</a>'],
  ['illegal-character', 'lone surrogate', '<a x="\uD800"/>'],
  ['doctype', 'external entity (XXE)', '<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>'],
  ['doctype', 'external DTD', '<!DOCTYPE a SYSTEM "http://example.com/a.dtd"><a/>'],
  ['restricted-xml', 'comment before root', '<!-- c --><a/>'],
  ['restricted-xml', 'comment inside', '<a><!-- c --></a>'],
  ['restricted-xml', 'processing instruction', '<a><?pi x?></a>'],
  ['restricted-xml', 'XML declaration not first', ' <?xml version="1.0"?><a/>'],
  ['xml-declaration', 'version 1.1', '<?xml version="1.1"?><a/>'],
  ['xml-declaration', 'foreign encoding', '<?xml version="1.0" encoding="ISO-8859-1"?><a/>'],
  ['no-root', 'empty document', '  '],
  ['no-root', 'text before root', 'x<a/>'],
  ['trailing-content', 'second root', '<a/><b/>'],
  ['trailing-content', 'text after root', '<a/>x'],
  ['malformed-tag', 'no name', '< a/>'],
  ['malformed-tag', 'attributes not separated', "<a x='1'y='2'/>"],
  ['malformed-tag', 'end tag with attributes', '<a></a x>'],
  ['malformed-tag', 'markup declaration in content', '<a><!ELEMENT a ANY></a>'],
  ['malformed-tag', 'unclosed start tag', '<a x="1"'],
  ['malformed-attribute', 'unquoted value', '<a x=1/>'],
  ['malformed-attribute', 'missing equals', "<a x '1'/>"],
  ['malformed-attribute', "'<' in value", '<a x="<"/>'],
  ['malformed-attribute', 'unterminated value', '<a x="1/>'],
  ['duplicate-attribute', 'same name', "<a x='1' x='2'/>"],
  ['duplicate-attribute', 'same expanded name', "<a xmlns:p='urn:u' xmlns:q='urn:u' p:x='1' q:x='2'/>"],
  ['mismatched-end-tag', 'wrong end tag', '<a><b></a></b>'],
  ['unclosed-element', 'missing end tag', '<a><b/>'],
  ['unterminated-cdata', 'open CDATA', '<a><![CDATA[x</a>'],
  ['invalid-reference', 'bare ampersand', '<a>a & b</a>'],
  ['invalid-reference', 'reference without semicolon', '<a>&amp</a>'],
  ['invalid-reference', 'NUL reference', '<a>&#0;</a>'],
  ['invalid-reference', 'surrogate reference', '<a x="&#xD800;"/>'],
  ['invalid-reference', 'U+FFFF reference', '<a>&#xFFFF;</a>'],
  ['invalid-reference', 'huge reference', '<a>&#x110000000;</a>'],
  ['undefined-entity', 'HTML entity', '<a>&nbsp;</a>'],
  ['cdata-end-in-text', "']]>' in text", '<a>x]]>y</a>'],
  ['namespace', 'undeclared element prefix', '<p:a/>'],
  ['namespace', 'undeclared attribute prefix', '<a p:x="1"/>'],
  ['namespace', 'empty prefixed declaration', "<a xmlns:p=''/>"],
  ['namespace', 'declaring xmlns', "<a xmlns:xmlns='urn:x'/>"],
  ['namespace', 'rebinding xml', "<a xmlns:xml='urn:x'/>"],
  ['namespace', 'binding the XML namespace elsewhere', "<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>"],
  ['namespace', 'xmlns element prefix', '<xmlns:a/>'],
  [
    'too-deep',
    'nesting beyond the limit',
    '<a>'.repeat(DEFAULT_MAX_XML_DEPTH + 1) + '</a>'.repeat(DEFAULT_MAX_XML_DEPTH + 1),
  ],
];

describe('parseXml: refusals', () => {
  it.each(REFUSALS)('refuses %s: %s', (rule, _what, text) => {
    const error = syntaxError(text);
    expect(error.rule).toBe(rule);
    expect(error.message).toContain(rule);
  });

  it('never reads the DTD an XXE payload points at: the DOCTYPE itself is refused before the root', () => {
    const error = syntaxError('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>');
    expect(error.offset).toBe(0);
  });

  it('applies the depth limit given in options', () => {
    expect(() => parseXml('<a><a><a/></a></a>', { maxDepth: 3 })).not.toThrow();
    expect(() => parseXml('<a><a><a/></a></a>', { maxDepth: 2 })).toThrow(XmlSyntaxError);
  });
});

/**
 * Differential check against libxml2: for documents without comments, PIs or DTDs (which this
 * parser refuses by RFC 6120 policy), both must agree on well-formedness.
 */
describe('parseXml agrees with libxml2 on well-formedness', () => {
  const documents = [
    '<a/>',
    '<a x="1" y=\'2\'>t</a>',
    '<a>&lt;&#60;&#x3C;</a>',
    '<a><![CDATA[<&]]></a>',
    '<a>x]]>y</a>',
    '<a x=1/>',
    '<a x="1" x="2"/>',
    '<a><b></a></b>',
    '<a>&nbsp;</a>',
    '<a>&#0;</a>',
    '<a>a & b</a>',
    '<a/><b/>',
    '<a x="<"/>',
    '<a x="1"y="2"/>',
    '<a><b/>',
    '<?xml version="1.0" encoding="UTF-8"?><a/>',
    '<a\n  x = "1"\n/>',
    '<é ñ="ü">ö</é>',
    '<a:b xmlns:a="urn:a" a:c="1"/>',
    '<1a/>',
    '<a>\u0001</a>',
  ];

  it('accepts and refuses the same documents', async () => {
    const result = await validateXML({
      xml: documents.map((contents, index) => ({ fileName: `d${index}.xml`, contents })),
      normalization: 'c14n',
    });
    const refusedByLibxml = new Set(
      result.errors.flatMap((error) => (error.loc === null ? [] : [Number(error.loc.fileName.slice(1, -4))])),
    );
    const refusedHere = new Set(
      documents.flatMap((text, index) => {
        try {
          parseXml(text);
          return [];
        } catch {
          return [index];
        }
      }),
    );
    expect([...refusedHere].sort((a, b) => a - b)).toEqual([...refusedByLibxml].sort((a, b) => a - b));
    expect(refusedHere.size).toBeGreaterThan(5);
  });
});
