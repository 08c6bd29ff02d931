import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { XmlStreamReader, type StreamEvent, type XmlStreamReaderOptions } from './xml-stream-reader.ts';

const DECLARATION = "<?xml version='1.0'?>";
const HEADER =
  "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s1' from='example.com' version='1.0' xml:lang='en'>";

const STREAM = [
  DECLARATION,
  HEADER,
  "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>SCRAM-SHA-1</mechanism></mechanisms></stream:features>",
  // A restart after SASL: a second header without closing the first stream, with and without a declaration.
  HEADER.replace("id='s1'", "id='s2'"),
  `\n${DECLARATION}${HEADER.replace("id='s1'", "id='s3'")}`,
  "<iq type='result' id='bind-1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>alice@example.com/laptop</jid></bind></iq>",
  ' \n ',
  "<presence from='alice@example.com/laptop'/>",
  `<message from="echo@agents.example" to='alice@example.com/laptop'><body a='>' b="/>">1 &lt; 2 <![CDATA[<not-a-tag>]]> é😀</body><iq/></message>`,
  "<stream:error><conflict xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>",
  '</stream:stream>',
].join('');

/** What a test compares: the events without their chunk offsets, elements as text. */
function comparable(event: StreamEvent): unknown {
  switch (event.kind) {
    case 'stream-open':
      return {
        kind: event.kind,
        xml: event.xml,
        element: event.element.toString(),
        ns: [...event.namespaces],
      };
    case 'element':
      return { kind: event.kind, xml: event.xml, element: event.element.toString(), name: event.name };
    case 'stream-close':
      return { kind: event.kind, xml: event.xml };
    case 'restricted':
      return { kind: event.kind, feature: event.feature };
    case 'error':
      return { kind: event.kind, rule: event.error.rule };
  }
}

function readAll(chunks: readonly (string | Buffer)[], options?: XmlStreamReaderOptions): StreamEvent[] {
  const reader = new XmlStreamReader(options);
  return chunks.flatMap((chunk) => reader.write(chunk));
}

/** `whole` cut at `cuts` (offsets inside it, in any order, duplicates allowed). */
function cutAt<T extends string | Buffer>(whole: T, cuts: readonly number[]): T[] {
  const ends = [...new Set(cuts)].filter((cut) => cut > 0 && cut < whole.length).sort((a, b) => a - b);
  const starts = [0, ...ends];
  return [...ends, whole.length].map((end, index) => whole.slice(starts[index], end) as T);
}

describe('XmlStreamReader', () => {
  it('reads a stream into its header, first-level elements and close, with their exact text', () => {
    const events = readAll([STREAM]);
    expect(events.map((event) => (event.kind === 'element' ? event.name : event.kind))).toEqual([
      'stream-open',
      'stream:features',
      'stream-open',
      'stream-open',
      'iq',
      'presence',
      'message',
      'stream:error',
      'stream-close',
    ]);
    const message = events[6];
    expect(message?.kind === 'element' && message.xml).toBe(
      `<message from="echo@agents.example" to='alice@example.com/laptop'><body a='>' b="/>">1 &lt; 2 <![CDATA[<not-a-tag>]]> é😀</body><iq/></message>`,
    );
    expect(message?.kind === 'element' && message.element.getChild('body')?.children).toEqual([
      '1 < 2 ',
      '<not-a-tag>',
      ' é😀',
    ]);
    const header = events[0];
    expect(header?.kind === 'stream-open' && Object.fromEntries(header.namespaces)).toEqual({
      '': 'jabber:client',
      stream: 'http://etherx.jabber.org/streams',
    });
    expect(header?.kind === 'stream-open' && header.xml).toBe(HEADER);
    // As @xmpp/xml's parser: a stanza without xmlns is in the stream's default namespace.
    expect(events[5]?.kind === 'element' && events[5].element.getNS()).toBe('jabber:client');
    expect(header?.kind === 'stream-open' && header.element.attrs['id']).toBe('s1');
    expect(events.at(-1)?.end).toBe(STREAM.length);
  });

  it('gives the same events however the text is chunked', () => {
    const whole = readAll([STREAM]).map(comparable);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 40 }), (cuts) => {
        expect(readAll(cutAt(STREAM, cuts)).map(comparable)).toEqual(whole);
      }),
    );
  });

  it('gives the same events however the bytes are chunked, multi-byte characters included', () => {
    const bytes = Buffer.from(STREAM, 'utf8');
    const whole = readAll([bytes]).map(comparable);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
        expect(readAll(cutAt(bytes, cuts)).map(comparable)).toEqual(whole);
      }),
    );
  });

  it("places each event's end in the chunk that completed it, in bytes for a Buffer", () => {
    const reader = new XmlStreamReader();
    const first = Buffer.from(`${HEADER}<message><body>é</body></message><presence/><iq`, 'utf8');
    const events = reader.write(first);
    expect(events.map((event) => event.kind)).toEqual(['stream-open', 'element', 'element']);
    const presenceEnd = first.indexOf('<iq');
    expect(events.map((event) => event.end)).toEqual([
      Buffer.byteLength(HEADER),
      first.indexOf('<presence'),
      presenceEnd,
    ]);
    expect(reader.atStanzaBoundary).toBe(false);
    expect(reader.write('/> \n').map((event) => event.end)).toEqual([2]);
    expect(reader.atStanzaBoundary).toBe(true);
  });

  it('keeps an unfinished element pending and completes it later', () => {
    const reader = new XmlStreamReader();
    expect(reader.write(`${HEADER}<iq id='1'><query xmlns='q'>`)).toHaveLength(1);
    expect(reader.pending).toBe("<iq id='1'><query xmlns='q'>");
    const [iq] = reader.write('</query></iq>');
    expect(iq && comparable(iq)).toEqual({
      kind: 'element',
      name: 'iq',
      xml: "<iq id='1'><query xmlns='q'></query></iq>",
      element: '<iq id="1"><query xmlns="q"/></iq>',
    });
    expect(reader.pending).toBe('');
  });

  it('is at a stanza boundary only with the stream open and no first-level element under way', () => {
    const reader = new XmlStreamReader();
    expect(reader.atStanzaBoundary).toBe(false);
    reader.write(DECLARATION);
    expect(reader.atStanzaBoundary).toBe(false);
    reader.write(HEADER);
    expect(reader.atStanzaBoundary).toBe(true);
    // A '>' inside an attribute value does not end the start tag.
    reader.write("<message a='>'");
    expect(reader.atStanzaBoundary).toBe(false);
    reader.write('>x</message>');
    expect(reader.atStanzaBoundary).toBe(true);
    reader.write('</stream:stream>');
    expect([reader.atStanzaBoundary, reader.ended]).toEqual([false, true]);
    expect(reader.write('<late/>')).toEqual([]);
  });

  it('does not stall on an XML declaration split between its ? and >', () => {
    expect(readAll(["<?xml version='1.0'?", `>${HEADER}<a/>`]).map((event) => event.kind)).toEqual([
      'stream-open',
      'element',
    ]);
  });

  it.each<[string, string, string]>([
    ['a comment', '<!-- note -->', 'comment'],
    ['a processing instruction after the header', "<?foo bar='1'?>", 'processing-instruction'],
    ['an internal DTD subset', "<!DOCTYPE stream [<!ENTITY e 'v'>]>", 'dtd'],
    ['an entity declaration', "<!ENTITY e 'v'>", 'dtd'],
    ['a CDATA opener gone wrong', '<![CDATX[', 'dtd'],
    ['an undeclared entity in text', '<m>&e;</m>', 'entity-reference'],
    ['an undeclared entity in an attribute', "<m a='x&ext;'/>", 'entity-reference'],
    ['a reference longer than any allowed one', '<m>&abcdefghij', 'entity-reference'],
    ['a character reference with too many digits', '<m>&#12345678;', 'entity-reference'],
    ['a bare ampersand', '<m>a & b</m>', 'entity-reference'],
  ])('stops at %s, where it is certain, and reads nothing after it', (_label, restricted, feature) => {
    const reader = new XmlStreamReader();
    const events = reader.write(`${HEADER}<before/>${restricted}<after/>`);
    expect(events.map(comparable)).toEqual([
      expect.objectContaining({ kind: 'stream-open' }),
      expect.objectContaining({ kind: 'element', name: 'before' }),
      { kind: 'restricted', feature },
    ]);
    expect(reader.ended).toBe(true);
    expect(reader.write('<more/>')).toEqual([]);
  });

  it('finds restricted XML however the text is chunked', () => {
    const stream = `${HEADER}<a x='&amp;'>é</a><m>&ent;</m><![CDATA[`;
    const whole = readAll([stream]).map(comparable);
    expect(whole.at(-1)).toEqual({ kind: 'restricted', feature: 'entity-reference' });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 20 }), (cuts) => {
        expect(readAll(cutAt(stream, cuts)).map(comparable)).toEqual(whole);
      }),
    );
  });

  it('reports restricted XML before the header too, and nothing inside CDATA', () => {
    expect(readAll(['<!--x-->']).map(comparable)).toEqual([{ kind: 'restricted', feature: 'comment' }]);
    expect(readAll([`${DECLARATION}<!DOCTYPE x>`]).map(comparable)).toEqual([
      { kind: 'restricted', feature: 'dtd' },
    ]);
    const cdata = readAll([`${HEADER}<m><![CDATA[<!-- &e; <?pi?> <!DOCTYPE]]></m>`]);
    expect(cdata.map((event) => event.kind)).toEqual(['stream-open', 'element']);
  });

  it('without restriction, reads past comments and PIs but still stops at what is not well-formed', () => {
    const events = readAll([`${HEADER}<a><!-- c --><?p x?></a><b>&#0;</b><c/>`], { restricted: false });
    expect(events.map(comparable)).toEqual([
      expect.objectContaining({ kind: 'stream-open' }),
      expect.objectContaining({ kind: 'element', name: 'a' }),
      { kind: 'error', rule: 'invalid-reference' },
    ]);
  });

  it.each<[string, string, string]>([
    ['a mismatched end tag', '<a></b>', 'mismatched-end-tag'],
    ['a second header-less root close', '<a/></stream:stream><b/>', ''],
    ['an unbound prefix', '<p:a/>', 'namespace'],
    ['a character XML forbids', '<a>\u0001</a>', 'illegal-character'],
    ['nesting beyond the bound', '<a><a><a><a/></a></a></a>', 'too-deep'],
  ])('reports %s as an error', (_label, body, rule) => {
    const events = readAll([`${HEADER}${body}`], { maxDepth: 4 });
    const last = events.at(-1);
    if (rule === '') expect(last?.kind).toBe('stream-close');
    else expect(last && comparable(last)).toEqual({ kind: 'error', rule });
  });
});
