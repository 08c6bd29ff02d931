import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { XmlStreamSplitter, type StreamPart } from './xml-stream-splitter.ts';

const HEADER =
  "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s1' from='example.com' version='1.0' xml:lang='en'>";

const STREAM = [
  HEADER,
  "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>SCRAM-SHA-1</mechanism></mechanisms></stream:features>",
  // A restart after SASL: a second header without closing the first stream.
  HEADER.replace("id='s1'", "id='s2'"),
  "<iq type='result' id='bind-1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>alice@example.com/laptop</jid></bind></iq>",
  ' \n ',
  "<presence from='alice@example.com/laptop'/>",
  `<message from="echo@agents.example" to='alice@example.com/laptop'><body a='>' b="/>">1 &lt; 2 <![CDATA[<not-a-tag>]]></body><iq/></message>`,
  "<stream:error><conflict xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>",
  '</stream:stream>',
].join('');

function splitAll(chunks: readonly string[]): StreamPart[] {
  const splitter = new XmlStreamSplitter();
  return chunks.flatMap((chunk) => splitter.push(chunk));
}

describe('XmlStreamSplitter', () => {
  it('cuts a stream into its header, first-level elements and close, with their exact text', () => {
    const parts = splitAll([STREAM]);
    expect(parts.map((part) => part.kind)).toEqual([
      'stream-open',
      'element',
      'stream-open',
      'element',
      'element',
      'element',
      'element',
      'stream-close',
    ]);
    expect(parts.map((part) => (part.kind === 'element' ? part.name : part.kind))).toEqual([
      'stream-open',
      'stream:features',
      'stream-open',
      'iq',
      'presence',
      'message',
      'stream:error',
      'stream-close',
    ]);
    const message = parts[5];
    expect(message?.xml).toBe(
      `<message from="echo@agents.example" to='alice@example.com/laptop'><body a='>' b="/>">1 &lt; 2 <![CDATA[<not-a-tag>]]></body><iq/></message>`,
    );
    const header = parts[0];
    expect(header?.kind === 'stream-open' && Object.fromEntries(header.namespaces)).toEqual({
      '': 'jabber:client',
      stream: 'http://etherx.jabber.org/streams',
    });
    expect(header?.xml.startsWith('<stream:stream ')).toBe(true);
  });

  it('gives the same parts however the text is chunked', () => {
    const whole = splitAll([STREAM]);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          const sorted = [0, ...[...cuts].sort((a, b) => a - b), STREAM.length];
          const chunks = sorted.slice(1).map((end, index) => STREAM.slice(sorted[index], end));
          expect(splitAll(chunks)).toEqual(whole);
        },
      ),
    );
  });

  it('keeps an unfinished element pending and completes it later', () => {
    const splitter = new XmlStreamSplitter();
    expect(splitter.push(`${HEADER}<iq id='1'><query xmlns='q'>`)).toHaveLength(1);
    expect(splitter.pending).toBe("<iq id='1'><query xmlns='q'>");
    const [iq] = splitter.push('</query></iq>');
    expect(iq).toEqual({ kind: 'element', name: 'iq', xml: "<iq id='1'><query xmlns='q'></query></iq>" });
    expect(splitter.pending).toBe('');
  });
});
