// The component stream's restricted-XML scanner (RFC 6120 §11.1): what it finds, what it lets the
// library's parser read, and that neither depends on where the TCP chunks happen to end.
import { StringDecoder } from 'node:string_decoder';

import type { Element } from '@xmpp/xml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { RestrictedXmlScanner, restrictedParserClass, type RestrictedFeature } from './restricted-stream.ts';

const DECLARATION = "<?xml version='1.0'?>";
const HEADER =
  "<stream:stream xmlns='jabber:component:accept' xmlns:stream='http://etherx.jabber.org/streams' from='agents.example' id='s1'>";

interface Verdict {
  /** What the library's parser is given, up to the first finding. */
  readonly output: string;
  readonly finding?: { readonly feature: RestrictedFeature; readonly at: number };
}

/**
 * Scans `chunks` in turn until the first finding; `at` is made absolute (in UTF-16 units of the
 * whole text) so that verdicts over different splits compare.
 */
function scanAll(chunks: readonly string[]): Verdict {
  const scanner = new RestrictedXmlScanner();
  let output = '';
  let offset = 0;
  for (const chunk of chunks) {
    const result = scanner.scan(chunk);
    output += result.output;
    if (result.finding !== undefined) {
      return { output, finding: { feature: result.finding.feature, at: offset + result.finding.at } };
    }
    offset += chunk.length;
  }
  return { output };
}

/** Byte chunks decoded as a transport should: a character split across chunks is kept whole. */
function decodeChunks(chunks: readonly Buffer[]): string[] {
  const decoder = new StringDecoder('utf8');
  return chunks.map((chunk) => decoder.write(chunk));
}

/** `bytes` cut at `cuts` (offsets inside it, in any order, duplicates allowed). */
function cutAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const ends = [...new Set(cuts)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  const starts = [0, ...ends];
  return [...ends, bytes.length].map((end, index) => bytes.subarray(starts[index], end));
}

/** Everything the restricted parser reports while reading `chunks`, in order. */
function parseAll(chunks: readonly string[]): string[] {
  const seen: string[] = [];
  const RestrictedParser = restrictedParserClass((feature) => seen.push(`restricted ${feature}`));
  const parser = new RestrictedParser();
  parser.on('start', (element: Element) => seen.push(`start ${element.name}`));
  parser.on('element', (element: Element) => seen.push(`element ${element.toString()}`));
  parser.on('error', (error: Error) => seen.push(`error ${error.message}`));
  for (const chunk of chunks) parser.write(chunk);
  return seen;
}

describe('RestrictedXmlScanner', () => {
  it('passes plain stanzas, the XML declaration, predefined and character references unchanged', () => {
    const stanzas =
      `<iq id='a>b' type="get"><q x="1 > 0" y='&amp;&lt;&gt;&quot;&apos;'>é😀 &#233;&#x1F600;&#1114111;&#x10FFFF;</q></iq>` +
      "<presence/> \n<message to='x@y/z'><body>a ]]> b ? > c</body></message>";
    expect(scanAll([HEADER + stanzas])).toEqual({ output: HEADER + stanzas });
    // The declaration goes to no parser (ltx ignores it anyway: see the split test below).
    expect(scanAll([DECLARATION + HEADER])).toEqual({ output: HEADER });
  });

  it.each<[string, string, RestrictedFeature, string]>([
    ['a comment', '<a/><!-- note -->', 'comment', '<a/><!-'],
    ['a processing instruction after the header', "<a/><?foo bar='1'?>", 'processing-instruction', '<a/><?'],
    ['an internal DTD subset', "<!DOCTYPE stream [<!ENTITY e 'v'>]>", 'dtd', '<!D'],
    ['an entity declaration', "<!ENTITY e 'v'>", 'dtd', '<!E'],
    ['a CDATA opener gone wrong', '<![CDATX[', 'dtd', '<![CDATX'],
    ['an undeclared entity in text', '<m>&e;</m>', 'entity-reference', '<m>&e;'],
    ['an undeclared entity in an attribute', "<m a='x&ext;'/>", 'entity-reference', "<m a='x&ext;"],
    ['a reference longer than any allowed one', '<m>&abcdefghij', 'entity-reference', '<m>&abcdefghij'],
    ['a character reference with too many digits', '<m>&#12345678;', 'entity-reference', '<m>&#12345678;'],
    ['a bare ampersand before a tag', '<m>a & b</m>', 'entity-reference', '<m>a & '],
    ['an ampersand running into a tag', '<m>&amp</m>', 'entity-reference', '<m>&amp<'],
  ])('stops at %s', (_label, restricted, feature, certainAfter) => {
    const text = HEADER + restricted + '<after/>';
    const verdict = scanAll([text]);
    expect(verdict.finding).toEqual({ feature, at: HEADER.length + certainAfter.length - 1 });
    // What the parser gets is a prefix of the input (CDATA aside), never the feature's '<'.
    expect(text.startsWith(verdict.output)).toBe(true);
    expect(verdict.output).not.toContain('<after/>');
    expect(verdict.output).not.toMatch(/<[!?]/);
  });

  it('finds a comment or DTD before the stream header too', () => {
    expect(scanAll(['<!--x-->'])).toEqual({ output: '', finding: { feature: 'comment', at: 2 } });
    expect(scanAll([`${DECLARATION}<!DOCTYPE x>`])).toEqual({
      output: '',
      finding: { feature: 'dtd', at: 2 + DECLARATION.length },
    });
  });

  it('rewrites CDATA sections as escaped character data', () => {
    const text = `${HEADER}<m><b><![CDATA[<not-a-tag> & ]] ]>]]]]>tail é</b></m>`;
    expect(scanAll([text])).toEqual({
      output: `${HEADER}<m><b>&lt;not-a-tag&gt; &amp; ]] ]&gt;]]tail é</b></m>`,
    });
    expect(scanAll([`${HEADER}<m><![CDATA[]]></m>`])).toEqual({ output: `${HEADER}<m></m>` });
    // Inside a CDATA section nothing is restricted.
    expect(scanAll([`${HEADER}<m><![CDATA[<!-- &e; <?pi?> <!DOCTYPE]]></m>`])).toEqual({
      output: `${HEADER}<m>&lt;!-- &amp;e; &lt;?pi?&gt; &lt;!DOCTYPE</m>`,
    });
  });
});

describe('restrictedParserClass', () => {
  it('parses stanzas, keeps the text after a CDATA section and reports nothing', () => {
    expect(parseAll([`${DECLARATION}${HEADER}<m><b>x <![CDATA[a<b]]> y &#233;</b></m><presence/>`])).toEqual([
      'start stream:stream',
      `element <m><b>x a&lt;b y é</b></m>`,
      'element <presence/>',
    ]);
  });

  it('reports the first restricted feature once and parses nothing after it', () => {
    expect(parseAll([HEADER, '<a/><b>', 'x</b><!-- c -->', '<c/><!DOCTYPE x>', '<d/>'])).toEqual([
      'start stream:stream',
      'element <a/>',
      'element <b>x</b>',
      'restricted comment',
    ]);
    expect(parseAll([`${HEADER}<a/><m>&ent;</m><b/>`])).toEqual([
      'start stream:stream',
      'element <a/>',
      'restricted entity-reference',
    ]);
  });

  it("turns what ltx cannot unescape into an 'error' event, not an exception", () => {
    expect(parseAll([`${HEADER}<m>&#0;</m>`, '<n/>'])).toEqual([
      'start stream:stream',
      'error Illegal XML character 0x0',
    ]);
  });
});

/**
 * The pieces a generated stream is made of: legal stanzas full of what a chunk boundary can fall
 * inside (multi-byte UTF-8, references, CDATA with ']' runs, attribute values holding '>') and
 * each kind of restricted XML.
 */
const PIECES = [
  `<iq id='a>b' type="get"><q x="1 > 0" y='&amp;&#x3C;'>é😀中</q></iq>`,
  '<message><body>1 &lt; 2 &amp; 3 &#233; &#x1F600; &quot;&apos;&gt;</body></message>',
  '<message><body><![CDATA[<not-a-tag> & ]] ]]]></body></message>',
  '<m><b><![CDATA[x]]>after ü</b></m>',
  ' \n ',
  '<presence/>',
  '<a b=\'&amp;\' c="?>"/>',
  '<!-- c > é -->',
  "<?pi data='>'?>",
  "<!DOCTYPE x [<!ENTITY e 'vé'>]>",
  '<m>&e;</m>',
  "<m a='&ext;'/>",
  '<m>&toolongentityname;</m>',
];

function streamOf(pieces: readonly number[]): Buffer {
  return Buffer.from(DECLARATION + HEADER + pieces.map((index) => PIECES[index] ?? '').join(''), 'utf8');
}

/** Scanner and parser verdicts for the stream read in `chunks`. */
function verdicts(chunks: readonly Buffer[]): { scanner: Verdict; parser: string[] } {
  const text = decodeChunks(chunks);
  return { scanner: scanAll(text), parser: parseAll(text) };
}

describe('a stream read in chunks', () => {
  // Fixed and printed, as the project's other property tests do: a failure replays as it is.
  const seed = 20260914;

  it('gets the verdict it gets whole, wherever a single cut falls', () => {
    // Each piece after the declaration, the header and a stanza, cut at each of its bytes (inside
    // `<!--`, `<?`, `<!DOCTYPE`, `<![CDATA[`, `]]>`, `&…;`, UTF-8 sequences, '>' in values), and
    // the declaration and header themselves at each of theirs (the first piece's turn).
    const before = streamOf([0]).length;
    for (const piece of PIECES.keys()) {
      const bytes = streamOf([0, piece, 5]);
      const whole = JSON.stringify(verdicts([bytes]));
      const from = piece === 0 ? 1 : before - 1;
      const to = before + Buffer.byteLength(PIECES[piece] ?? '') + 1;
      for (let cut = from; cut <= to; cut += 1) {
        const split = JSON.stringify(verdicts(cutAt(bytes, [cut])));
        // Compared as text, and only a difference goes through expect (for its diff): fast.
        if (split !== whole) expect(split, `piece ${String(piece)}, cut at byte ${String(cut)}`).toBe(whole);
      }
      // And a byte at a time.
      const each = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
      expect(JSON.stringify(verdicts(cutAt(bytes, each))), `piece ${String(piece)}, byte by byte`).toBe(
        whole,
      );
    }
  });

  it('gets the verdict it gets whole, however it is split (property)', () => {
    process.stdout.write(`restricted-stream chunking: fast-check seed ${seed}\n`);
    const stream = fc
      .array(fc.nat({ max: PIECES.length - 1 }), { minLength: 1, maxLength: 8 })
      .map((pieces) => streamOf(pieces));
    const split = stream.chain((bytes) =>
      fc.record({
        bytes: fc.constant(bytes),
        cuts: fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }),
      }),
    );
    fc.assert(
      fc.property(split, ({ bytes, cuts }) => {
        expect(verdicts(cutAt(bytes, cuts))).toEqual(verdicts([bytes]));
      }),
      { seed, numRuns: 400 },
    );
  });
});
