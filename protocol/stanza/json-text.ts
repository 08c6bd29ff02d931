/**
 * JSON-bearing elements (#json-encoding): the JSON text is the element's character data after
 * entity decoding, concatenated across text nodes and CDATA sections. The codec never parses
 * JSON (the strict I-JSON parser owns that); it only carries the text.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { simpleContent } from './element-reader.ts';
import { legalText } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';

export function readJsonText(element: Element): string {
  return simpleContent(element);
}

/**
 * The element with the JSON text as its single text node. Markup characters are escaped by
 * serialize(); characters XML 1.0 cannot carry are refused here with a StanzaBuildError.
 */
export function buildJsonElement(
  target: BuildTarget,
  attrs: Readonly<Record<string, string>>,
  json: string,
): Element {
  return xml(target.local, attrs, legalText(target, json));
}
