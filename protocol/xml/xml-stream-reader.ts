/**
 * One direction of an XMPP stream (RFC 6120 §4) read part by part on the one reader
 * (sax-core.ts): the stream header, every first-level element (stanzas, nonzas, stream errors)
 * and the closing tag, each with the exact text that crossed the wire (transcripts show what was
 * sent, not a re-serialization) and its parse.
 *
 * Chunks are read in runs that end just after a '>' (an ASCII byte, never inside a UTF-8
 * sequence): every part ends at a '>', so each event's `end` is exact in the caller's chunk, in
 * bytes or UTF-16 units, and a run never holds anything past a part's end. That also makes a
 * stream restart simple: at a stanza boundary the reader looks at what comes next before
 * reading it, and an XML declaration or a header named like the stream's starts a new stream
 * (after STARTTLS or SASL, RFC 6120 §5.3.7 and §6.4.6) on a fresh parser.
 */
import { StringDecoder } from 'node:string_decoder';

import type { Element } from '@xmpp/xml';

import { ElementBuilder } from './element-builder.ts';
import type { GuardFindingKind } from './markup-guard.ts';
import { SaxCore, type CoreEvent, type CoreFailure } from './sax-core.ts';
import { DEFAULT_MAX_XML_DEPTH, XmlSyntaxError } from './xml-syntax-error.ts';

export type RestrictedFeature = 'comment' | 'processing-instruction' | 'dtd' | 'entity-reference';

export type StreamEvent =
  | {
      readonly kind: 'stream-open';
      readonly xml: string;
      /** The header, without children. */
      readonly element: Element;
      /** Namespace declarations of the header: prefix ('' for the default namespace) → URI. */
      readonly namespaces: ReadonlyMap<string, string>;
      readonly end: number;
    }
  | {
      readonly kind: 'element';
      readonly xml: string;
      /**
       * Its parent is the stream header (not holding it as a child), as @xmpp/xml's own parser
       * does, so that getNS() finds the stream's default namespace.
       */
      readonly element: Element;
      /** Qualified name as written. */
      readonly name: string;
      readonly end: number;
    }
  | { readonly kind: 'stream-close'; readonly xml: string; readonly end: number }
  /**
   * Restricted XML (RFC 6120 §11.1), reported where it becomes certain; reading stops after it.
   * Here and for 'error', `end` is the end of the run (the piece of the chunk up to and including
   * the next '>') in which it was found.
   */
  | { readonly kind: 'restricted'; readonly feature: RestrictedFeature; readonly end: number }
  /** Not well-formed; reading stops after it. */
  | { readonly kind: 'error'; readonly error: XmlSyntaxError; readonly end: number };

/** An event before its offset in the caller's chunk is known. */
type Unplaced<E> = E extends StreamEvent ? Omit<E, 'end'> : never;
type PartEvent = Unplaced<StreamEvent>;

export interface XmlStreamReaderOptions {
  /** Deepest element nesting accepted, the stream header being depth 1 (#security). */
  readonly maxDepth?: number;
  /** Report restricted XML (RFC 6120 §11.1) as 'restricted' events; default true. */
  readonly restricted?: boolean;
}

const RESTRICTED_FEATURES: Readonly<Record<GuardFindingKind, RestrictedFeature>> = {
  comment: 'comment',
  'processing-instruction': 'processing-instruction',
  declaration: 'dtd',
  'entity-reference': 'entity-reference',
  'malformed-reference': 'entity-reference',
};

/** A first-level element being read: where it starts and its tree so far. */
interface OpenPart {
  readonly start: number;
  readonly builder: ElementBuilder;
}

export class XmlStreamReader {
  readonly #maxDepth: number;
  readonly #restricted: boolean;
  readonly #decoder = new StringDecoder('utf8');
  #core: SaxCore;
  #state: 'before-header' | 'open' | 'ended' = 'before-header';
  #streamName: string | undefined;
  #header: Element | undefined;
  #part: OpenPart | undefined;
  /** Text at a stanza boundary, not read yet: it may start a new stream. */
  #held = '';
  #holding = false;

  constructor(options: XmlStreamReaderOptions = {}) {
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_XML_DEPTH;
    this.#restricted = options.restricted ?? true;
    this.#core = this.#newCore();
  }

  /** Reads the next chunk; the parts it completed, in order, each with its end in `chunk`. */
  write(chunk: Buffer | string): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const { text, end } of this.#runs(chunk)) {
      if (this.#state === 'ended') break;
      for (const event of this.#read(text)) events.push({ ...event, end });
    }
    return events;
  }

  /** The stream is open and nothing of a first-level element has been read since the last one. */
  get atStanzaBoundary(): boolean {
    return (
      this.#state === 'open' &&
      this.#part === undefined &&
      isWhitespace(this.#held) &&
      isWhitespace(this.#core.slice(this.#core.markupEnd, this.#core.written))
    );
  }

  /** `</stream:stream>` was read, or reading stopped (restricted XML, not well-formed). */
  get ended(): boolean {
    return this.#state === 'ended';
  }

  /**
   * The text read of a first-level element whose start tag is complete but not the element
   * (diagnostics for a connection lost mid-element).
   */
  get pending(): string {
    return this.#part === undefined ? '' : this.#core.slice(this.#part.start, this.#core.written);
  }

  #newCore(): SaxCore {
    return new SaxCore({
      maxDepth: this.#maxDepth,
      guard: { restricted: this.#restricted, boundReferences: true },
    });
  }

  /** The chunk cut just after each '>', decoded, each with its end offset in the chunk. */
  *#runs(chunk: Buffer | string): Generator<{ readonly text: string; readonly end: number }> {
    let start = 0;
    while (start < chunk.length) {
      const close = chunk.indexOf('>', start);
      const end = close === -1 ? chunk.length : close + 1;
      yield {
        text:
          typeof chunk === 'string'
            ? chunk.slice(start, end)
            : this.#decoder.write(chunk.subarray(start, end)),
        end,
      };
      start = end;
    }
  }

  /** Reads one run (at most one '>', at its end). */
  #read(text: string): PartEvent[] {
    let toRead = text;
    if (this.#holding) {
      this.#held += text;
      const restart = this.#restartAhead(this.#held);
      if (restart === undefined) return [];
      toRead = this.#held;
      this.#held = '';
      this.#holding = false;
      if (restart) {
        // The whitespace before it belongs to the old stream; the new one starts with '<'.
        toRead = toRead.trimStart();
        this.#core = this.#newCore();
        this.#state = 'before-header';
      }
    }
    const { events, failure } = this.#core.write(toRead);
    const parts = events.flatMap((event) => this.#partOf(event));
    if (failure !== undefined && this.#state !== 'ended') parts.push(this.#stop(failure));
    const stopped = parts.find((part) => part.kind === 'restricted' || part.kind === 'error');
    if (stopped !== undefined) return parts.slice(0, parts.indexOf(stopped) + 1);
    this.#holding = this.atStanzaBoundary;
    return parts;
  }

  /**
   * At a stanza boundary: whether `text` starts a new stream (true), continues this one (false),
   * or is too short to tell (undefined).
   */
  #restartAhead(text: string): boolean | undefined {
    const next = text.trimStart();
    if (next === '' || next === '<') return undefined;
    if (!next.startsWith('<')) return false;
    if (next.startsWith('<?')) return true;
    const name = /^<([^\s/>]*)([\s/>])?/.exec(next);
    if (name?.[2] === undefined) return undefined;
    return name[1] === this.#streamName;
  }

  #partOf(event: CoreEvent): PartEvent[] {
    const core = this.#core;
    switch (event.kind) {
      case 'open': {
        if (event.depth === 1) {
          this.#state = 'open';
          this.#streamName = event.tag.name;
          const xml = core.slice(event.start, event.end);
          core.discardBefore(event.end);
          this.#header = new ElementBuilder().open(event.tag);
          return [
            {
              kind: 'stream-open',
              xml,
              element: this.#header,
              namespaces: new Map(Object.entries(event.tag.ns)),
            },
          ];
        }
        if (event.depth === 2) this.#part = { start: event.start, builder: new ElementBuilder() };
        this.#part?.builder.open(event.tag);
        return [];
      }
      case 'text':
      case 'cdata':
        this.#part?.builder.text(event.value);
        return [];
      case 'close':
        return this.#closed(event);
      case 'comment':
      case 'processing-instruction':
      case 'doctype':
        if (!this.#restricted) return [];
        this.#state = 'ended';
        return [
          {
            kind: 'restricted',
            feature: event.kind === 'doctype' ? 'dtd' : event.kind,
          },
        ];
      case 'xml-declaration':
        return [];
    }
  }

  #closed(event: Extract<CoreEvent, { kind: 'close' }>): PartEvent[] {
    const core = this.#core;
    const part = this.#part;
    if (part === undefined) {
      this.#state = 'ended';
      return [{ kind: 'stream-close', xml: core.slice(event.start, event.end) }];
    }
    const element = part.builder.close();
    if (element === undefined) return [];
    this.#part = undefined;
    element.parent = this.#header ?? null;
    const xml = core.slice(part.start, event.end);
    core.discardBefore(event.end);
    return [{ kind: 'element', xml, element, name: element.name }];
  }

  #stop(failure: CoreFailure): PartEvent {
    this.#state = 'ended';
    if (failure.guard !== undefined)
      return { kind: 'restricted', feature: RESTRICTED_FEATURES[failure.guard.kind] };
    const from = this.#core.retainedFrom;
    const kept = this.#core.slice(from, this.#core.written);
    const offset = Math.max(0, failure.offset - from);
    return { kind: 'error', error: new XmlSyntaxError(failure.rule, offset, kept, failure.detail) };
  }
}

function isWhitespace(text: string): boolean {
  return /^[ \t\r\n]*$/.test(text);
}
