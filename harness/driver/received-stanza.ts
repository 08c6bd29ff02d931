/**
 * A stanza as a caller received it: the exact text, and the strict parse of that text (the
 * library's own parse is lenient and is not used). Stanzas are parsed detached from their stream,
 * so they have no namespace of their own, as protocol/stanza expects of detached stanzas; prefixes
 * declared on the stream header (stream:) are supplied when an element uses them.
 */
import type { Element } from '@xmpp/xml';

import { attributeOf, escapeAttribute, parseXml, XmlSyntaxError } from '../../protocol/stanza/index.ts';

export const NS_STREAMS = 'http://etherx.jabber.org/streams';

export type StanzaName = 'iq' | 'message' | 'presence';

export interface ReceivedStanza {
  /** Position in the caller's `inbound` list. */
  readonly index: number;
  readonly name: StanzaName;
  /** Exactly as received. */
  readonly xml: string;
  /** The strict parse of `xml`; undefined when it is not well-formed (then `parseError` says why). */
  readonly element: Element | undefined;
  readonly parseError: Error | undefined;
  /** Monotonic arrival time (performance.now() of this process). */
  readonly receivedAt: number;
  readonly id: string | undefined;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly type: string | undefined;
}

const STANZA_NAMES: readonly string[] = ['iq', 'message', 'presence'];
const SCOPE = 'agentconf-stream-scope';

export function stanzaNameOf(qualifiedName: string): StanzaName | undefined {
  return STANZA_NAMES.includes(qualifiedName) ? (qualifiedName as StanzaName) : undefined;
}

export function isStreamError(qualifiedName: string, namespaces: ReadonlyMap<string, string>): boolean {
  const colon = qualifiedName.indexOf(':');
  const prefix = colon === -1 ? '' : qualifiedName.slice(0, colon);
  return qualifiedName.slice(colon + 1) === 'error' && namespaces.get(prefix) === NS_STREAMS;
}

/**
 * Parses one first-level element of a stream. Most parse as they are; one that uses a prefix
 * declared on the stream header is parsed again inside an element declaring the header's
 * prefixes (but not its default namespace), and is returned attached to that element.
 */
export function parseStreamElement(xml: string, namespaces: ReadonlyMap<string, string>): Element {
  try {
    return parseXml(xml);
  } catch (error) {
    const prefixed = [...namespaces].filter(([prefix]) => prefix !== '');
    if (!(error instanceof XmlSyntaxError) || error.rule !== 'namespace' || prefixed.length === 0)
      throw error;
    const declarations = prefixed
      .map(([prefix, uri]) => ` xmlns:${prefix}='${escapeAttribute(uri, SCOPE, `xmlns:${prefix}`)}'`)
      .join('');
    const scope = parseXml(`<${SCOPE}${declarations}>${xml}</${SCOPE}>`);
    const [element] = scope.getChildElements();
    if (element === undefined) throw error;
    return element;
  }
}

export function receivedStanza(
  index: number,
  name: StanzaName,
  xml: string,
  namespaces: ReadonlyMap<string, string>,
  receivedAt: number,
): ReceivedStanza {
  let element: Element | undefined;
  let parseError: Error | undefined;
  try {
    element = parseStreamElement(xml, namespaces);
  } catch (error) {
    parseError = error instanceof Error ? error : new Error(String(error));
  }
  const attribute = (attributeName: string): string | undefined =>
    element === undefined ? undefined : attributeOf(element, attributeName);
  return {
    index,
    name,
    xml,
    element,
    parseError,
    receivedAt,
    id: attribute('id'),
    from: attribute('from'),
    to: attribute('to'),
    type: attribute('type'),
  };
}
