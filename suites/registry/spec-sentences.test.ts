import { describe, expect, it } from 'vitest';
import {
  extractSentences,
  keywordLevel,
  keywordsIn,
  normaliseSentence,
  sentenceFingerprint,
  splitSentences,
} from './spec-sentences.ts';

const texts = (text: string): string[] => splitSentences(text).map((sentence) => sentence.text);

/** A spec skeleton in the XEP format; `body` goes inside <xep> after the header. */
function spec(body: string): string {
  return `<?xml version='1.0' encoding='UTF-8'?>
<!DOCTYPE xep SYSTEM 'xep.dtd' [
  <!ENTITY % ents SYSTEM 'xep.ent'>
%ents;
]>
<xep>
<header>
  <title>T</title>
  <abstract>The header MUST NOT count.</abstract>
  <revision><version>9.8.7</version><remark><p>Made it so that MUST is gone.</p></remark></revision>
</header>
${body}
</xep>
`;
}

describe('splitSentences', () => {
  it('splits at a full stop followed by a capital', () => {
    expect(texts('One MUST do this. Two MAY do that.')).toEqual(['One MUST do this.', 'Two MAY do that.']);
  });

  it('keeps "e.g." and "i.e." inside their sentence', () => {
    expect(texts('Codes are qualified, e.g. Com.example:x, i.e. Namespaced. Next one.')).toEqual([
      'Codes are qualified, e.g. Com.example:x, i.e. Namespaced.',
      'Next one.',
    ]);
  });

  it('does not split inside dotted tokens (names, versions, domains)', () => {
    expect(texts('Tool forecast.get of 1.4.0 at agents.example MUST work. Then more.')).toEqual([
      'Tool forecast.get of 1.4.0 at agents.example MUST work.',
      'Then more.',
    ]);
  });

  it('does not split at a full stop followed by lower case', () => {
    expect(texts('Use v. and then continue.')).toEqual(['Use v. and then continue.']);
  });

  it('splits after closing quotes and before digits, quotes and entities', () => {
    expect(texts('It is "automation." 2 more. "Quoted" next. &xep0059; applies.')).toEqual([
      'It is "automation."',
      '2 more.',
      '"Quoted" next.',
      '&xep0059; applies.',
    ]);
  });

  it('reports where each sentence starts', () => {
    expect(splitSentences('  A. \n  B.')).toEqual([
      { start: 2, text: 'A.' },
      { start: 8, text: 'B.' },
    ]);
  });
});

describe('keywords', () => {
  it('finds upper-case RFC 2119 keywords only, two-word forms as one', () => {
    expect(keywordsIn('X MUST NOT y, SHOULD NOT z, must not w, REQUIRED, OPTIONAL, MAYBE, MAY.')).toEqual([
      'MUST NOT',
      'SHOULD NOT',
      'REQUIRED',
      'OPTIONAL',
      'MAY',
    ]);
  });

  it('maps keywords to levels', () => {
    expect(['MUST', 'MUST NOT', 'REQUIRED', 'SHALL', 'SHALL NOT'].map(keywordLevel)).toEqual(
      Array(5).fill('MUST'),
    );
    expect(['SHOULD', 'SHOULD NOT', 'RECOMMENDED', 'NOT RECOMMENDED'].map(keywordLevel)).toEqual(
      Array(4).fill('SHOULD'),
    );
    expect(['MAY', 'OPTIONAL'].map(keywordLevel)).toEqual(['MAY', 'MAY']);
  });
});

describe('fingerprints', () => {
  it('survive reflowing and entity spelling, and change with the wording', () => {
    const base = sentenceFingerprint('Listing MUST support XEP-0059 paging.');
    expect(sentenceFingerprint('Listing  MUST\n    support &xep0059; paging.')).toBe(base);
    expect(sentenceFingerprint('Listing MUST support XEP-0059 pages.')).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{12}$/);
  });

  it('normalise entities of xep.ent and whitespace only', () => {
    expect(normaliseSentence(' See &rfc6120; and &xep0004;\n and &unknown; ')).toBe(
      'See RFC 6120 and XEP-0004 and &unknown;',
    );
  });
});

describe('extractSentences', () => {
  it('finds keyword sentences under their nearest anchor with their spec line', () => {
    const result = extractSentences(
      spec(`<section1 topic='A' anchor='alpha'>
  <p>Intro without keywords. The gateway MUST answer.</p>
  <section2 topic='B' anchor='beta'>
    <p>A client
       SHOULD ask. Nothing here.</p>
    <ul><li>Items MAY be listed.</li></ul>
  </section2>
</section1>`),
    );
    expect(result.version).toBe('9.8.7');
    expect(
      result.sentences.map(({ anchor, line, text, keywords, normative }) => ({
        anchor,
        line,
        text,
        keywords,
        normative,
      })),
    ).toEqual([
      { anchor: 'alpha', line: 13, text: 'The gateway MUST answer.', keywords: ['MUST'], normative: true },
      { anchor: 'beta', line: 15, text: 'A client SHOULD ask.', keywords: ['SHOULD'], normative: true },
      { anchor: 'beta', line: 17, text: 'Items MAY be listed.', keywords: ['MAY'], normative: true },
    ]);
  });

  it('reads inline markup as text and starts a sentence at a <tt> opening it', () => {
    const [first, second, third] = extractSentences(
      spec(`<section1 topic='A' anchor='alpha'>
  <p>Forms MUST use <tt>urn:x:0</tt>. <tt>urn:y:0</tt> MUST NOT be a node; see <link url='#beta'>Beta</link>, e.g. <strong>this</strong>. A &xep0059; set MAY follow.</p>
</section1>`),
    ).sentences;
    expect(first?.text).toBe('Forms MUST use urn:x:0.');
    expect(second?.text).toBe('urn:y:0 MUST NOT be a node; see Beta, e.g. this.');
    expect(third?.text).toBe('A XEP-0059 set MAY follow.');
    expect(first?.fingerprint).toBe(sentenceFingerprint('Forms MUST use urn:x:0.'));
  });

  it('reads a table row as one statement, cells separated by " | "', () => {
    const { sentences } = extractSentences(
      spec(`<section1 topic='A' anchor='alpha'>
  <table caption='Fields (REQUIRED ones first)'>
    <tr><th>Field</th><th>Requirement</th></tr>
    <tr><td><tt>name</tt></td><td>REQUIRED</td><td>A name. Responders MUST send it.</td></tr>
  </table>
</section1>`),
    );
    expect(sentences.map((sentence) => sentence.text)).toEqual([
      'name | REQUIRED | A name.',
      'Responders MUST send it.',
    ]);
  });

  it('skips the header, examples and code blocks, counting their keywords', () => {
    const { sentences, keywordsInSkippedBlocks } = extractSentences(
      spec(`<section1 topic='A' anchor='alpha'>
  <p>Only this MUST count.</p>
  <example caption='x'><![CDATA[<note>Clients MUST NOT see this.</note>]]></example>
  <code caption='y'><![CDATA[{"description": "MAY and SHOULD"}]]></code>
</section1>`),
    );
    expect(sentences.map((sentence) => sentence.text)).toEqual(['Only this MUST count.']);
    // MUST NOT and MUST in the header, MUST NOT in the example, MAY and SHOULD in the code.
    expect(keywordsInSkippedBlocks).toBe(5);
  });

  it('marks sentences of a section declared informative, and of its subsections, as not normative', () => {
    const { sentences } = extractSentences(
      spec(`<section1 topic='Appendix' anchor='impl'>
  <p>This section is informative. Bridges MUST map.</p>
  <section2 topic='Sub' anchor='sub'><p>Caches MUST NOT cross scopes.</p></section2>
</section1>
<section1 topic='Rules' anchor='rules'>
  <p>A later section MUST count. This section is informative only in this sentence.</p>
</section1>`),
    );
    expect(sentences.map(({ anchor, normative }) => `${anchor}:${String(normative)}`)).toEqual([
      'impl:false',
      'sub:false',
      'rules:true',
    ]);
  });

  it('ignores lower-case keywords and reads prose outside block elements', () => {
    const { sentences } = extractSentences(
      spec(`<section1 topic='A' anchor='alpha'>
  <p>A future profile must bind this, and the registrar shall register it.</p>
  Loose prose MUST still be found.
</section1>`),
    );
    expect(sentences.map((sentence) => sentence.text)).toEqual(['Loose prose MUST still be found.']);
  });
});
