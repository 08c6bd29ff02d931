/**
 * Finds every sentence of the spec that carries an RFC 2119 keyword, with the section anchor
 * it sits under, its spec line, and a fingerprint that names it without quoting it (we never
 * copy spec prose into the repository; the registry cites sentences by anchor + fingerprint).
 *
 * What counts as prose, and why the rest is skipped:
 * - <header>: document metadata (abstract, revision remarks); it states no requirement.
 * - <example>: illustrations, some of which contradict the normative text (interp-01 to interp-09);
 *   their CDATA is protocol material, not prose.
 * - <code>: the normative XML Schemas (#schema), JSON Schemas and registrar forms are checked
 *   as artifacts by `npm run artifacts:check`; they are schema text, not sentences.
 * - A section whose first paragraph declares it informative ("This section is informative",
 *   #impl and its subsections, #model-boundary): by the spec's own words nothing in it is
 *   normative. Its keyword sentences are still found and returned with `normative: false`, so
 *   the check can report how many it left out instead of hiding them.
 * - Section `topic` and table `caption` attributes are headings; only element content is read.
 *
 * Keywords are matched in upper case only (RFC 8174): lowercase "must"/"shall" in the spec
 * (e.g. the Registrar "shall register" sentences, "a future approval profile must …") is plain
 * English. OPTIONAL counts as a keyword (RFC 2119 §5), so field-table rows marked OPTIONAL are
 * registered at MAY level.
 */
import { createHash } from 'node:crypto';
import { attributeValue, childElements } from '../../protocol/xml/xml-query.ts';
import { readXml, type XmlDocument, type XmlElement } from '../../protocol/xml/read-xml.ts';

export type RequirementLevel = 'MUST' | 'SHOULD' | 'MAY';

export interface SpecSentence {
  /** Anchor of the nearest enclosing section (our requirement key). */
  readonly anchor: string;
  /** 1-based spec line of the sentence's first character. */
  readonly line: number;
  /** The sentence with markup removed, entities spelled out and whitespace collapsed. */
  readonly text: string;
  /** Stable locator part: see `sentenceFingerprint`. */
  readonly fingerprint: string;
  /** The RFC 2119 keywords it contains, in order of appearance ("MUST NOT" as one). */
  readonly keywords: readonly string[];
  /** False inside a section the spec declares informative. */
  readonly normative: boolean;
}

export interface SpecSentences {
  /** The newest <revision><version>. */
  readonly version: string | null;
  readonly sentences: readonly SpecSentence[];
  /** Keyword occurrences inside skipped <example>/<code> blocks and the header, for the summary. */
  readonly keywordsInSkippedBlocks: number;
}

const KEYWORD =
  /\b(?:MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)\b/g;

/** RFC 2119 keyword → the level our registry uses (RFC 2119 §1–§5). */
export function keywordLevel(keyword: string): RequirementLevel {
  if (/^(?:MUST|REQUIRED|SHALL)/.test(keyword)) return 'MUST';
  if (/^(?:SHOULD|RECOMMENDED|NOT RECOMMENDED)/.test(keyword)) return 'SHOULD';
  return 'MAY';
}

export function keywordsIn(text: string): string[] {
  return [...text.matchAll(KEYWORD)].map((match) => match[0]);
}

const SKIPPED_ELEMENTS = new Set(['header', 'example', 'code']);
/** Elements whose whole content is one run of prose (a table row is one statement). */
const BLOCK_ELEMENTS = new Set(['p', 'li', 'dt', 'dd', 'tr']);
const SECTION = /^section[1-4]$/;
const INFORMATIVE_MARK = /^This (?:sub)?section is informative\b/;

/**
 * Entities from xep.ent that the spec uses in prose, spelled the way the rendered XEP shows
 * them, so a sentence keeps its fingerprint if an author writes "XEP-0059" instead of &xep0059;.
 */
function spellEntities(text: string): string {
  return text.replace(/&xep(\d{4});/g, 'XEP-$1').replace(/&rfc(\d{3,5});/g, 'RFC $1');
}

/** Whitespace collapsed, entities spelled out: the form fingerprints are computed on. */
export function normaliseSentence(text: string): string {
  return spellEntities(text.replaceAll(MARKUP_START, '')).replace(/\s+/g, ' ').trim();
}

/**
 * The locator of a sentence within its anchor: the first 12 hex digits of SHA-256 over the
 * UTF-8 of its normalised text. Reflowing lines or changing inline markup (<tt>, <link>) keeps
 * it; any change of wording changes it, which is what makes the registry check notice edits.
 */
export function sentenceFingerprint(text: string): string {
  return createHash('sha256').update(normaliseSentence(text), 'utf8').digest('hex').slice(0, 12);
}

/**
 * Marks where inline markup (<tt>, <link>, <strong>) starts in flattened prose, so that a
 * sentence opening with "<tt>urn:xmpp:…</tt>" (lower case) is still recognised as a new one.
 * A private-use character: the spec's prose cannot contain it, and normalisation drops it.
 */
export const MARKUP_START = '\uE000';

/** Abbreviations whose final dot does not end a sentence. */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'no', 'fig', 'sec', 'resp']);

/**
 * Splits prose into sentences: a '.', '?' or '!' (optionally followed by closing quotes or
 * brackets) ends one when whitespace and then a capital, digit, quote, bracket, '<', '&'
 * or MARKUP_START follow. Dots inside tokens (forecast.get, 1.4.0, agents.example) are never
 * followed by whitespace; abbreviations such as "e.g." are excluded by name. Returns each
 * sentence (trimmed, markers kept) with its start offset in `text`.
 */
export function splitSentences(text: string): { readonly start: number; readonly text: string }[] {
  const sentences: { start: number; text: string }[] = [];
  const boundary = /[.?!]["')\]]*(?=\s+["'(<&\p{Lu}\p{N}\uE000])/gu;
  let start = 0;
  for (const match of text.matchAll(boundary)) {
    const end = match.index + match[0].length;
    const wordBefore = /([\p{L}.]+)\.$/u.exec(text.slice(start, match.index + 1))?.[1]?.toLowerCase();
    if (match[0].startsWith('.') && wordBefore !== undefined && ABBREVIATIONS.has(wordBefore)) continue;
    push(start, end);
    start = end;
  }
  push(start, text.length);
  return sentences;

  function push(from: number, to: number): void {
    const raw = text.slice(from, to);
    const leading = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed !== '') sentences.push({ start: from + leading, text: trimmed });
  }
}

/** One run of prose: its flattened text, and where each piece of it came from. */
interface ProseBlock {
  readonly anchor: string;
  readonly normative: boolean;
  readonly text: string;
  /** Pieces in order: offset in `text`, spec line of the piece's first character, its text. */
  readonly pieces: readonly { readonly at: number; readonly line: number; readonly value: string }[];
}

export function extractSentences(specText: string): SpecSentences {
  const document = readXml(specText, 'spec');
  const blocks: ProseBlock[] = [];
  const skipped = { keywords: 0 };
  collect(document, document.root, null, true, blocks, skipped);
  const sentences: SpecSentence[] = [];
  for (const block of blocks) {
    for (const piece of splitSentences(block.text)) {
      const keywords = keywordsIn(piece.text);
      if (keywords.length === 0) continue;
      const text = normaliseSentence(piece.text);
      sentences.push({
        anchor: block.anchor,
        line: lineAt(block, piece.start),
        text,
        fingerprint: sentenceFingerprint(text),
        keywords,
        normative: block.normative,
      });
    }
  }
  return { version: specVersion(document), sentences, keywordsInSkippedBlocks: skipped.keywords };
}

function collect(
  document: XmlDocument,
  element: XmlElement,
  anchor: string | null,
  normative: boolean,
  blocks: ProseBlock[],
  skipped: { keywords: number },
): void {
  if (element.namespace !== null) return;
  if (SKIPPED_ELEMENTS.has(element.localName)) {
    skipped.keywords += keywordsIn(allText(element)).length;
    return;
  }
  let here = anchor;
  let stillNormative = normative;
  if (SECTION.test(element.localName)) {
    here = attributeValue(element, 'anchor') ?? anchor;
    const firstParagraph = childElements(element, 'p', null)[0];
    if (firstParagraph !== undefined && INFORMATIVE_MARK.test(normaliseSentence(allText(firstParagraph)))) {
      stillNormative = false;
    }
  }
  if (BLOCK_ELEMENTS.has(element.localName)) {
    if (here !== null) blocks.push(proseBlock(document, element, here, stillNormative));
    return;
  }
  for (const child of element.children) {
    if (child.kind === 'element') collect(document, child, here, stillNormative, blocks, skipped);
    else if (here !== null && !child.cdata && child.value.trim() !== '') {
      // Prose outside any block element: read it as a block of its own, so that no keyword
      // can hide in an unexpected place.
      blocks.push({
        anchor: here,
        normative: stillNormative,
        text: child.value,
        pieces: [{ at: 0, line: document.lineOf(child.valueStart), value: child.value }],
      });
    }
  }
}

function proseBlock(
  document: XmlDocument,
  element: XmlElement,
  anchor: string,
  normative: boolean,
): ProseBlock {
  const pieces: { at: number; line: number; value: string }[] = [];
  let text = '';
  const add = (value: string, line: number): void => {
    pieces.push({ at: text.length, line, value });
    text += value;
  };
  const visit = (node: XmlElement, isRow: boolean): void => {
    let cell = 0;
    for (const child of node.children) {
      if (child.kind === 'text') {
        add(child.value, document.lineOf(child.valueStart));
      } else if (child.namespace === null && !SKIPPED_ELEMENTS.has(child.localName)) {
        // A table row reads as "cell | cell | cell", one statement per row.
        if (isRow && cell++ > 0) add(' | ', document.lineOf(child.start));
        else if (!isRow) add(MARKUP_START, document.lineOf(child.start));
        visit(child, false);
      }
    }
  };
  visit(element, element.localName === 'tr');
  return { anchor, normative, text, pieces };
}

function lineAt(block: ProseBlock, offset: number): number {
  let piece = block.pieces[0];
  for (const candidate of block.pieces) {
    if (candidate.at > offset) break;
    piece = candidate;
  }
  if (piece === undefined) return 0;
  const before = piece.value.slice(0, Math.max(0, offset - piece.at));
  return piece.line + (before.match(/\n/g)?.length ?? 0);
}

function allText(element: XmlElement): string {
  return element.children
    .map((child) => (child.kind === 'text' ? child.value : ` ${allText(child)} `))
    .join('');
}

function specVersion(document: XmlDocument): string | null {
  const header = childElements(document.root, 'header', null)[0];
  const revision = header === undefined ? undefined : childElements(header, 'revision', null)[0];
  const version = revision === undefined ? undefined : childElements(revision, 'version', null)[0];
  return version === undefined ? null : allText(version).trim();
}
