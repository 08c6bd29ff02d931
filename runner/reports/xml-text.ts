/**
 * Text for XML reports. Transcripts hold whatever crossed the wire, including characters XML
 * 1.0 cannot carry at all (a case may send raw junk on purpose); escaping cannot save those, so
 * they are spelled out visibly (\u{1}) before the shared stanza escapers run.
 */
import { escapeAttribute, escapeText } from '../../protocol/stanza/index.ts';

const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function visibleXmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`);
}

export function xmlText(text: string): string {
  return escapeText(visibleXmlChars(text));
}

/** For single-quoted attribute values. */
export function xmlAttribute(value: string): string {
  return escapeAttribute(visibleXmlChars(value));
}
