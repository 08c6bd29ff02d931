/**
 * Serializes @xmpp/xml (ltx) Elements so that a conforming parser reads back exactly the
 * strings the tree holds.
 *
 * ltx's own toString() writes TAB, LF and CR literally inside attribute values, where XML
 * attribute-value normalization turns them into spaces, and writes CR literally in text, where
 * line-end normalization turns it into LF. Tool names may contain all three (interp-22)
 * and cancellation reasons are compared byte for byte after parsing (#cancellation), so
 * this serializer writes them as character references. It refuses any character XML 1.0
 * cannot carry instead of emitting a document no peer can parse (#json-encoding).
 */
import type { Element } from '@xmpp/xml';
import { isElementNode } from './element-access.ts';
import { describeCharAt, firstIllegalXmlChar, isQName } from '../xml/xml-chars.ts';

export type XmlSerializeRule = 'illegal-character' | 'invalid-name';

export class XmlSerializeError extends Error {
  override readonly name = 'XmlSerializeError';
  constructor(
    readonly rule: XmlSerializeRule,
    /** The element (as written) whose name, attribute or text is at fault. */
    readonly element: string,
    readonly attribute: string | undefined,
    detail: string,
  ) {
    super(
      `cannot serialize <${element}>${attribute === undefined ? '' : ` attribute ${attribute}`} (${rule}): ${detail}`,
    );
  }
}

const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '\r': '&#13;',
};
const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  ...TEXT_ESCAPES,
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
};

function checkCharacters(text: string, element: string, attribute: string | undefined): void {
  const illegal = firstIllegalXmlChar(text);
  if (illegal !== -1) {
    throw new XmlSerializeError(
      'illegal-character',
      element,
      attribute,
      `${describeCharAt(text, illegal)} at index ${illegal} is not an XML 1.0 character`,
    );
  }
}

/** Character data with '&', '<', '>' (so "]]>" cannot occur) and CR escaped. */
export function escapeText(text: string, element = '#text'): string {
  checkCharacters(text, element, undefined);
  return text.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

/** An attribute value for single quotes, with TAB, LF and CR as character references. */
export function escapeAttribute(value: string, element = '#element', attribute = '#attribute'): string {
  checkCharacters(value, element, attribute);
  return value.replace(/[&<>'\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

function writeNode(node: unknown, out: string[], parentName: string): void {
  if (!isElementNode(node)) {
    // ltx keeps numbers passed as children (xml('max', {}, 10)); they are text too.
    if (typeof node === 'string' || typeof node === 'number') out.push(escapeText(String(node), parentName));
    return;
  }
  const { name } = node;
  if (!isQName(name)) {
    throw new XmlSerializeError('invalid-name', name, undefined, 'not an XML qualified name');
  }
  out.push('<', name);
  for (const [attribute, value] of Object.entries(node.attrs as Record<string, unknown>)) {
    // ltx convention: an attribute set to null or undefined is absent.
    if (value === undefined || value === null) continue;
    if (!isQName(attribute)) {
      throw new XmlSerializeError('invalid-name', name, attribute, 'not an XML qualified name');
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    out.push(' ', attribute, "='", escapeAttribute(text, name, attribute), "'");
  }
  const children = (node.children as unknown[]).filter((child) => child !== null && child !== undefined);
  if (children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const child of children) writeNode(child, out, name);
  out.push('</', name, '>');
}

/** The element as one XML string (no XML declaration), every string child as character data. */
export function serialize(element: Element): string {
  const out: string[] = [];
  writeNode(element, out, element.name);
  return out.join('');
}
