/**
 * Cuts one direction of an XMPP stream (RFC 6120 §4) into its top-level parts, keeping the exact
 * text of each: the stream header, every first-level child (stanzas, nonzas, stream errors) and
 * the closing tag. The transcript must show what crossed the wire, not a re-serialization, and a
 * library parser (ltx) hands out trees only.
 *
 * It tracks element depth and nothing else: well-formedness is the strict parser's business
 * (protocol/stanza/xml-parse.ts), applied to each part afterwards. Text between first-level
 * elements (whitespace keepalives) is dropped. A start tag named like the header at depth 1 is
 * a stream restart (after SASL), which opens a new stream without closing the old one.
 */

export type StreamPart =
  | {
      readonly kind: 'stream-open';
      readonly xml: string;
      /** Namespace declarations of the header: prefix ('' for the default namespace) → URI. */
      readonly namespaces: ReadonlyMap<string, string>;
    }
  | {
      readonly kind: 'element';
      readonly xml: string;
      /** Qualified name as written. */ readonly name: string;
    }
  | { readonly kind: 'stream-close'; readonly xml: string };

interface Markup {
  readonly kind: 'start' | 'end' | 'other';
  /** Offset just past the markup's '>'. */
  readonly end: number;
  readonly name: string;
  readonly selfClosing: boolean;
}

const NAME_AT = /[^\s/>]+/y;
const NAMESPACE_DECLARATION = /\sxmlns(?::([^\s=]+))?\s*=\s*(?:'([^']*)'|"([^"]*)")/g;

function unescapeAttribute(value: string): string {
  return value.replace(/&(lt|gt|amp|apos|quot);/g, (_match, entity: string) => {
    const map: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
    return map[entity] ?? '';
  });
}

function namespacesOf(header: string): Map<string, string> {
  const namespaces = new Map<string, string>();
  for (const match of header.matchAll(NAMESPACE_DECLARATION)) {
    namespaces.set(match[1] ?? '', unescapeAttribute(match[2] ?? match[3] ?? ''));
  }
  return namespaces;
}

export class XmlStreamSplitter {
  #buffer = '';
  /** Where scanning resumes: everything before it has been classified. */
  #scan = 0;
  /** 0: before the header; 1: inside the stream, between parts; 2+: inside a first-level element. */
  #depth = 0;
  /** Offset of the first-level element being read, when depth ≥ 2. */
  #elementStart = 0;
  #elementName = '';
  #streamName: string | undefined;

  /** Feeds the next piece of decoded text and returns the parts it completed, in order. */
  push(text: string): StreamPart[] {
    this.#buffer += text;
    const parts: StreamPart[] = [];
    for (;;) {
      const open = this.#buffer.indexOf('<', this.#scan);
      if (open === -1) {
        this.#scan = this.#buffer.length;
        break;
      }
      const markup = this.#markupAt(open);
      if (markup === undefined) {
        this.#scan = open;
        break;
      }
      this.#scan = markup.end;
      const part = this.#take(open, markup);
      if (part !== undefined) parts.push(part);
    }
    this.#compact();
    return parts;
  }

  /** Bytes of an unfinished part (for diagnostics when a connection ends mid-element). */
  get pending(): string {
    return this.#depth >= 2 ? this.#buffer.slice(this.#elementStart) : '';
  }

  #take(open: number, markup: Markup): StreamPart | undefined {
    const xml = (): string => this.#buffer.slice(open, markup.end);
    if (markup.kind === 'start') {
      if (this.#depth === 0 || (this.#depth === 1 && markup.name === this.#streamName)) {
        this.#streamName = markup.name;
        this.#depth = 1;
        const header = xml();
        return { kind: 'stream-open', xml: header, namespaces: namespacesOf(header) };
      }
      if (this.#depth === 1) {
        if (markup.selfClosing) return { kind: 'element', xml: xml(), name: markup.name };
        this.#elementStart = open;
        this.#elementName = markup.name;
      }
      if (!markup.selfClosing) this.#depth += 1;
      return undefined;
    }
    if (markup.kind === 'end') {
      if (this.#depth === 1) {
        this.#depth = 0;
        return { kind: 'stream-close', xml: xml() };
      }
      if (this.#depth === 0) return undefined;
      this.#depth -= 1;
      if (this.#depth === 1) {
        return {
          kind: 'element',
          xml: this.#buffer.slice(this.#elementStart, markup.end),
          name: this.#elementName,
        };
      }
    }
    return undefined;
  }

  /** The markup starting at `open`, or undefined when the buffer does not hold all of it yet. */
  #markupAt(open: number): Markup | undefined {
    const buffer = this.#buffer;
    const until = (terminator: string, from: number): Markup | undefined => {
      const at = buffer.indexOf(terminator, from);
      return at === -1
        ? undefined
        : { kind: 'other', end: at + terminator.length, name: '', selfClosing: false };
    };
    const next = buffer[open + 1];
    if (next === undefined) return undefined;
    if (next === '?') return until('?>', open + 2);
    if (next === '!') {
      const head = buffer.slice(open, open + 9);
      const cutShort = (marker: string): boolean => head.length < marker.length && marker.startsWith(head);
      if (cutShort('<!--') || cutShort('<![CDATA[')) return undefined;
      if (head.startsWith('<!--')) return until('-->', open + 4);
      if (head.startsWith('<![CDATA[')) return until(']]>', open + 9);
      return until('>', open + 2);
    }
    if (next === '/') {
      const close = buffer.indexOf('>', open + 2);
      if (close === -1) return undefined;
      return { kind: 'end', end: close + 1, name: buffer.slice(open + 2, close).trim(), selfClosing: false };
    }
    NAME_AT.lastIndex = open + 1;
    const name = NAME_AT.exec(buffer)?.[0] ?? '';
    // '>' may occur inside quoted attribute values.
    let quote: string | undefined;
    for (let at = open + 1 + name.length; at < buffer.length; at++) {
      const char = buffer[at];
      if (quote !== undefined) {
        if (char === quote) quote = undefined;
      } else if (char === "'" || char === '"') {
        quote = char;
      } else if (char === '>') {
        return { kind: 'start', end: at + 1, name, selfClosing: buffer[at - 1] === '/' };
      }
    }
    return undefined;
  }

  /** Drops text no part can still need, so a long-lived stream does not grow the buffer. */
  #compact(): void {
    const keepFrom = this.#depth >= 2 ? Math.min(this.#elementStart, this.#scan) : this.#scan;
    if (keepFrom === 0) return;
    this.#buffer = this.#buffer.slice(keepFrom);
    this.#scan -= keepFrom;
    if (this.#depth >= 2) this.#elementStart -= keepFrom;
  }
}
