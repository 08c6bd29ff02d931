import { Element, xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import {
  attributeOf,
  characterDataOf,
  clarkNameOf,
  detachedCopyOf,
  isElementNode,
  namespaceOf,
} from './element-access.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

describe('element access', () => {
  it('resolves prefixes, the xml prefix, inherited and undeclared default namespaces', () => {
    const root = parseXml("<a xmlns='urn:a' xmlns:p='urn:p'><p:b><c/><d xmlns=''><xml:e/></d></p:b></a>");
    const [b] = root.getChildElements();
    const [c, d] = b?.getChildElements() ?? [];
    const [e] = d?.getChildElements() ?? [];
    expect(b && clarkNameOf(b)).toBe('{urn:p}b');
    expect(c && clarkNameOf(c)).toBe('{urn:a}c');
    expect(d && namespaceOf(d)).toBeUndefined();
    expect(d && clarkNameOf(d)).toBe('d');
    expect(e && namespaceOf(e)).toBe('http://www.w3.org/XML/1998/namespace');
  });

  it('reads attributes ltx stores as numbers, and text ltx stores as numbers', () => {
    const element = new Element('first');
    element.attrs['index'] = 3 as unknown as string;
    element.children.push(7 as unknown as string);
    expect(attributeOf(element, 'index')).toBe('3');
    expect(attributeOf(element, 'toString')).toBeUndefined();
    expect(characterDataOf(element)).toBe('7');
    expect(serialize(element)).toBe("<first index='3'>7</first>");
  });

  it('recognizes elements by shape, not by class identity', () => {
    expect(isElementNode(xml('a'))).toBe(true);
    expect(isElementNode({ name: 'a', attrs: {}, children: [] })).toBe(true);
    expect(isElementNode('a')).toBe(false);
    expect(isElementNode(null)).toBe(false);
  });

  it('copies a subtree without its parent, carrying the namespace it inherited', () => {
    const root = parseXml("<a xmlns='urn:a'><b k='v'>t<c/></b></a>");
    const [b] = root.getChildElements();
    if (b === undefined) throw new Error('fixture');
    const copy = detachedCopyOf(b);
    expect(copy.parent).toBeNull();
    expect(serialize(copy)).toBe("<b k='v' xmlns='urn:a'>t<c/></b>");
    expect(b.parent).toBe(root);
  });
});
