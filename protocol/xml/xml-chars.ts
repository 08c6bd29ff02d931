/**
 * XML 1.0 (Fifth Edition) character and name productions, shared by the parser, the
 * serializer and the builders (#json-encoding forbids lone surrogates and characters the XML
 * version does not allow; RFC 6120 §11.6 fixes XML 1.0).
 */

/** Anything outside the XML 1.0 Char production; the `u` flag makes lone surrogates match. */
const ILLEGAL_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Index (in UTF-16 code units) of the first character that XML 1.0 forbids, or -1. */
export function firstIllegalXmlChar(text: string): number {
  return text.search(ILLEGAL_XML_CHAR);
}

/** "U+0001", or "lone surrogate U+D800", for the character at `index`: diagnostics only. */
export function describeCharAt(text: string, index: number): string {
  const point = text.codePointAt(index) ?? 0;
  const hex = `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
  return point >= 0xd800 && point <= 0xdfff ? `lone surrogate ${hex}` : hex;
}

export function isXmlCharCodePoint(point: number): boolean {
  return (
    point === 0x9 ||
    point === 0xa ||
    point === 0xd ||
    (point >= 0x20 && point <= 0xd7ff) ||
    (point >= 0xe000 && point <= 0xfffd) ||
    (point >= 0x10000 && point <= 0x10ffff)
  );
}

/** The S production: space, TAB, LF, CR. */
export function isXmlWhitespace(text: string): boolean {
  return /^[ \t\n\r]*$/.test(text);
}

/** Strips leading and trailing S characters: the xs:whiteSpace "collapse" facet on a token-like value. */
export function trimXmlWhitespace(text: string): string {
  return text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
}

const NAME_START_CHARS =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHARS = `${NAME_START_CHARS}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;

/** NCName from Namespaces in XML 1.0: a Name without colons. */
export const NCNAME_SOURCE = `[${NAME_START_CHARS}][${NAME_CHARS}]*`;
/** QName: an optional NCName prefix, a colon, and an NCName local part. */
export const QNAME_SOURCE = `(?:${NCNAME_SOURCE}:)?${NCNAME_SOURCE}`;

// The ranges deliberately include combining marks (NameChar allows U+0300-U+036F).
// eslint-disable-next-line no-misleading-character-class
const NCNAME = new RegExp(`^${NCNAME_SOURCE}$`, 'u');
// eslint-disable-next-line no-misleading-character-class
const QNAME = new RegExp(`^${QNAME_SOURCE}$`, 'u');

export function isNCName(text: string): boolean {
  return NCNAME.test(text);
}

export function isQName(text: string): boolean {
  return QNAME.test(text);
}

export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';
