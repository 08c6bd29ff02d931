/**
 * What a XEP-0114 component writes and recognises on its stream, as values: the stream header it
 * opens with, the handshake digest (XEP-0114 #proto), the closing tag and stream errors
 * (RFC 6120 §4.9). No socket here; component-link.ts writes these.
 */
import { createHash } from 'node:crypto';
import { xml, type Element } from '@xmpp/xml';

export const NS_COMPONENT_ACCEPT = 'jabber:component:accept';
export const NS_STREAM = 'http://etherx.jabber.org/streams';
export const NS_STREAM_ERRORS = 'urn:ietf:params:xml:ns:xmpp-streams';

export const STREAM_FOOTER = '</stream:stream>';

/**
 * The opening of the component's stream: the XML declaration and the header addressed to the
 * component's own domain (XEP-0114 #proto: 'to' names the component, not the server). The same
 * bytes @xmpp/component wrote, so servers see no change.
 */
export function streamHeader(domain: string): string {
  const header = xml('stream:stream', {
    version: '1.0',
    xmlns: NS_COMPONENT_ACCEPT,
    'xmlns:stream': NS_STREAM,
    to: domain,
  });
  return `<?xml version='1.0'?>${header.toString().slice(0, -2)}>`;
}

/** The handshake's character data: lowercase hex SHA-1 of the stream id followed by the secret. */
export function handshakeDigest(streamId: string, secret: string): string {
  return createHash('sha1')
    .update(streamId + secret, 'utf8')
    .digest('hex');
}

export function handshakeElement(streamId: string, secret: string): string {
  return `<handshake>${handshakeDigest(streamId, secret)}</handshake>`;
}

/** A stream error the server sent (RFC 6120 §4.9.3: `condition` is the defined condition). */
export class StreamError extends Error {
  override readonly name = 'StreamError';
  constructor(
    readonly condition: string,
    readonly text: string,
  ) {
    super(condition + (text === '' ? '' : ` - ${text}`));
  }
}

/**
 * The element as a stream error, or undefined when it is none. `stream` is the server's stream
 * header, which declares the prefix the error's name carries (normally "stream").
 */
export function streamErrorOf(element: Element, stream: Element | undefined): StreamError | undefined {
  const colon = element.name.indexOf(':');
  const prefix = colon === -1 ? '' : element.name.slice(0, colon);
  const local = colon === -1 ? element.name : element.name.slice(colon + 1);
  if (local !== 'error') return undefined;
  const declaration = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
  const namespace: unknown = element.attrs[declaration] ?? stream?.attrs[declaration];
  if (namespace !== NS_STREAM) return undefined;
  const [condition, ...rest] = element.getChildElements();
  const text = rest.find((child) => child.name === 'text')?.getText() ?? '';
  return new StreamError(condition?.name ?? 'undefined-condition', text);
}

/** A stream error this side sends (RFC 6120 §4.9.1.1: the closing tag follows it). */
export function streamErrorElement(condition: 'restricted-xml' | 'bad-format'): string {
  return `<stream:error><${condition} xmlns='${NS_STREAM_ERRORS}'/></stream:error>`;
}

export function isStanza(element: Element): boolean {
  return element.name === 'iq' || element.name === 'message' || element.name === 'presence';
}
