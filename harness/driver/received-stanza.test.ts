import { describe, expect, it } from 'vitest';

import { namespaceOf, XmlSyntaxError } from '../../protocol/stanza/index.ts';
import { isStreamError, NS_STREAMS, parseStreamElement, receivedStanza } from './received-stanza.ts';

const HEADER_NAMESPACES = new Map([
  ['', 'jabber:client'],
  ['stream', NS_STREAMS],
]);

describe('received stanzas', () => {
  it('parse detached from the stream, with their addressing attributes read', () => {
    const stanza = receivedStanza(
      3,
      'iq',
      `<iq type='result' id='x1' from='echo@agents.example' to='alice@example.com/laptop'/>`,
      HEADER_NAMESPACES,
      12.5,
    );
    expect(stanza).toMatchObject({
      index: 3,
      name: 'iq',
      id: 'x1',
      type: 'result',
      from: 'echo@agents.example',
      to: 'alice@example.com/laptop',
      receivedAt: 12.5,
      parseError: undefined,
    });
    expect(stanza.element && namespaceOf(stanza.element)).toBeUndefined();
  });

  it('keep what is not well-formed, with the reason and without attributes', () => {
    const stanza = receivedStanza(
      0,
      'message',
      `<message to='a'><body>&nope;</body></message>`,
      HEADER_NAMESPACES,
      0,
    );
    expect(stanza.element).toBeUndefined();
    expect(stanza.parseError).toBeInstanceOf(XmlSyntaxError);
    expect(stanza.to).toBeUndefined();
  });

  it('resolve the prefixes of the stream header (stream:error)', () => {
    const xml = `<stream:error><not-well-formed xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>`;
    expect(isStreamError('stream:error', HEADER_NAMESPACES)).toBe(true);
    expect(isStreamError('error', HEADER_NAMESPACES)).toBe(false);
    expect(namespaceOf(parseStreamElement(xml, HEADER_NAMESPACES))).toBe(NS_STREAMS);
    expect(() => parseStreamElement(xml, new Map())).toThrow(XmlSyntaxError);
  });
});
