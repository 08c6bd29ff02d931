// The component stream's fixed texts (XEP-0114 #proto, RFC 6120 §4.9) and how stream errors are
// recognised whatever prefix declares the streams namespace.
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import {
  handshakeDigest,
  NS_STREAM,
  streamErrorElement,
  streamErrorOf,
  streamHeader,
} from './stream-texts.ts';

const ERRORS = 'urn:ietf:params:xml:ns:xmpp-streams';

describe('stream texts', () => {
  it('opens with the declaration and a header addressed to the component domain, escaped', () => {
    expect(streamHeader('a&b.example')).toBe(
      `<?xml version='1.0'?><stream:stream version="1.0" xmlns="jabber:component:accept" xmlns:stream="${NS_STREAM}" to="a&amp;b.example">`,
    );
  });

  it('digests the stream id followed by the secret as lowercase hex SHA-1', () => {
    // SHA1("abc"), the FIPS 180 test vector.
    expect(handshakeDigest('a', 'bc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('writes its own stream errors with the streams-error namespace', () => {
    expect(streamErrorElement('bad-format')).toBe(
      `<stream:error><bad-format xmlns='${ERRORS}'/></stream:error>`,
    );
  });
});

describe('streamErrorOf', () => {
  const header = xml('stream:stream', { 'xmlns:stream': NS_STREAM, xmlns: 'jabber:component:accept' });

  it('reads the condition and text of an error under the header-declared prefix', () => {
    const error = streamErrorOf(
      xml('stream:error', {}, xml('conflict', { xmlns: ERRORS }), xml('text', { xmlns: ERRORS }, 'taken')),
      header,
    );
    expect(error).toMatchObject({
      name: 'StreamError',
      condition: 'conflict',
      text: 'taken',
      message: 'conflict - taken',
    });
  });

  it('honours a prefix or default namespace declared on the element itself', () => {
    expect(
      streamErrorOf(xml('s:error', { 'xmlns:s': NS_STREAM }, xml('host-unknown')), undefined)?.condition,
    ).toBe('host-unknown');
    expect(streamErrorOf(xml('error', { xmlns: NS_STREAM }), undefined)?.message).toBe('undefined-condition');
  });

  it('ignores stanza errors and elements of other names', () => {
    expect(streamErrorOf(xml('error', { type: 'cancel' }), header)).toBeUndefined();
    expect(streamErrorOf(xml('other:error', { 'xmlns:other': 'urn:x' }), header)).toBeUndefined();
    expect(streamErrorOf(xml('stream:features'), header)).toBeUndefined();
  });
});
