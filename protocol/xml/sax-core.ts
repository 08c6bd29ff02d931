/**
 * The one place XML is tokenized: saxes (strict XML 1.0 + Namespaces, streaming) with source
 * offsets added and its failures named by our rules. The stream reader and both document readers
 * are views over the events this produces; each adds its own policy (what is refused, what is
 * built), and none of them looks at '<' itself.
 *
 * What saxes does not do, and this layer does:
 * - Offsets of a construct's start: saxes only knows where it is now. Character data holds no
 *   '<', so markup starts at the first '<' after the markup before it ended, and text starts
 *   where that markup ended; keeping the text read since then (text-window.ts) is enough.
 * - Lone surrogates: saxes pairs a high surrogate with whatever follows, so characters are
 *   checked here (XML 1.0 Char) before saxes sees them.
 * - A close tag naming another element: saxes closes the open elements up to a matching one
 *   and reports afterwards, so the close tag's name is compared here first.
 * - The restricted-XML and reference watch (markup-guard.ts).
 * - Its failures are messages; failure-names.ts maps each to a rule and the offset a reader
 *   wants.
 */
import { SaxesParser, type SaxesTagNS, type XMLDecl } from 'saxes';

import { MarkupGuard, type MarkupGuardOptions } from './markup-guard.ts';
import { TextWindow } from './text-window.ts';
import {
  closeTagName,
  guardFailure,
  illegalCharacter,
  saxesFailure,
  type CoreFailure,
  type ReadState,
} from './failure-names.ts';
import { firstIllegalXmlChar } from './xml-chars.ts';

export type CoreEvent =
  | { readonly kind: 'xml-declaration'; readonly declaration: XMLDecl; readonly end: number }
  | { readonly kind: 'doctype'; readonly start: number; readonly end: number }
  | { readonly kind: 'comment'; readonly start: number; readonly end: number }
  | { readonly kind: 'processing-instruction'; readonly start: number; readonly end: number }
  | {
      readonly kind: 'open';
      readonly tag: SaxesTagNS;
      /** Offsets of the '<', just past the name, and just past the '>'. */
      readonly start: number;
      readonly nameEnd: number;
      readonly end: number;
      /** 1 for the root. */
      readonly depth: number;
    }
  | { readonly kind: 'close'; readonly name: string; readonly start: number; readonly end: number }
  | { readonly kind: 'text'; readonly value: string; readonly start: number }
  | { readonly kind: 'cdata'; readonly value: string; readonly start: number };

export type { CoreFailure } from './failure-names.ts';

export interface CoreResult {
  readonly events: readonly CoreEvent[];
  readonly failure?: CoreFailure;
}

export interface SaxCoreOptions {
  readonly maxDepth: number;
  readonly guard: MarkupGuardOptions;
  /** Keep `&name;` verbatim in text when no such entity is known (the spec's own entities). */
  readonly keepUndefinedEntities?: boolean;
}

/** Thrown out of a saxes handler to stop it at once; caught in `write`. */
class Stop extends Error {
  constructor(readonly failure: CoreFailure) {
    super(failure.detail);
  }
}

interface OpenTag {
  readonly name: string;
  readonly start: number;
}

export class SaxCore {
  readonly #parser = new SaxesParser({ xmlns: true, position: true });
  readonly #guard: MarkupGuard;
  readonly #window = new TextWindow();
  /** Offset just past the last markup read: where character data starts. */
  #markupEnd = 0;
  readonly #open: OpenTag[] = [];
  #starting: OpenTag | undefined;
  #rootClosed = false;
  #events: CoreEvent[] = [];
  #failed = false;
  /** A high surrogate ending the last write, waiting for its pair. */
  #carry = '';

  constructor(private readonly options: SaxCoreOptions) {
    this.#guard = new MarkupGuard(options.guard);
    const parser = this.#parser;
    parser.on('xmldecl', (declaration) => {
      this.#markup({ kind: 'xml-declaration', declaration, end: parser.position });
    });
    parser.on('doctype', () => {
      this.#markup({ kind: 'doctype', start: this.#markupStart(), end: parser.position });
    });
    parser.on('comment', () => {
      // Reported at the '--' before the '>'.
      this.#markup({ kind: 'comment', start: this.#markupStart(), end: parser.position + 1 });
    });
    parser.on('processinginstruction', () => {
      this.#markup({ kind: 'processing-instruction', start: this.#markupStart(), end: parser.position });
    });
    parser.on('opentagstart', (tag) => {
      const start = this.#markupStart();
      const depth = this.#open.length + 1;
      if (depth > options.maxDepth) {
        throw new Stop({
          rule: 'too-deep',
          offset: start,
          detail: `elements nest deeper than ${options.maxDepth}`,
        });
      }
      this.#starting = { name: tag.name, start };
    });
    parser.on('opentag', (tag) => {
      const start = this.#starting?.start ?? this.#markupStart();
      this.#starting = undefined;
      this.#open.push({ name: tag.name, start });
      this.#markup({
        kind: 'open',
        tag,
        start,
        nameEnd: start + 1 + tag.name.length,
        end: parser.position,
        depth: this.#open.length,
      });
    });
    parser.on('closetag', (tag) => {
      this.#close(tag);
    });
    parser.on('text', (value) => {
      this.#events.push({ kind: 'text', value, start: this.#markupEnd });
    });
    parser.on('cdata', (value) => {
      this.#events.push({ kind: 'cdata', value, start: this.#markupStart() + '<![CDATA['.length });
      this.#markupEnd = parser.position;
    });
    parser.on('error', (error) => {
      const message = error.message.replace(/^\d+:\d+: /, '');
      if (message === 'undefined entity.' && options.keepUndefinedEntities === true) return;
      throw new Stop(saxesFailure(message, this.#state()));
    });
  }

  /** Reads the next text; after a failure nothing more is read. */
  write(chunk: string): CoreResult {
    if (this.#failed) return { events: [] };
    // A character split between two writes is checked whole.
    let text = this.#carry + chunk;
    this.#carry = '';
    if (/[\uD800-\uDBFF]$/.test(text)) {
      this.#carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    const base = this.written;
    this.#window.append(text);
    const illegal = firstIllegalXmlChar(text);
    const guarded = this.#guard.scan(illegal === -1 ? text : text.slice(0, illegal));
    let readable = text.length;
    if (guarded !== undefined) readable = Math.max(0, guarded.start - base);
    else if (illegal !== -1) readable = illegal;
    const failure =
      this.#feed(text.slice(0, readable)) ??
      (guarded === undefined
        ? undefined
        : guardFailure(guarded, this.#state(), this.options.guard.restricted)) ??
      (illegal === -1 ? undefined : illegalCharacter(base + illegal, this.#state()));
    return this.#result(failure);
  }

  /** The end of the input: what is still open is reported. */
  end(): CoreResult {
    if (this.#failed) return { events: [] };
    if (this.#carry !== '') {
      const offset = this.written;
      this.#window.append(this.#carry);
      return this.#result(illegalCharacter(offset, this.#state()));
    }
    let failure: CoreFailure | undefined;
    try {
      this.#parser.close();
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
      failure = error.failure;
    }
    return this.#result(failure);
  }

  /** The text between two offsets, both inside what has been read and not discarded. */
  slice(from: number, to: number): string {
    return this.#window.slice(from, to);
  }

  /** Forgets the text before `offset` (a stream keeps only what an unfinished part needs). */
  discardBefore(offset: number): void {
    const from = Math.min(offset, this.#markupEnd, this.#starting?.start ?? Infinity);
    this.#window.discardBefore(from);
  }

  /** Offset just past the last markup read. */
  get markupEnd(): number {
    return this.#markupEnd;
  }

  /** Elements open now (0 outside the root). */
  get depth(): number {
    return this.#open.length;
  }

  /** Offset just past everything read. */
  get written(): number {
    return this.#window.end;
  }

  /** Offset of the oldest text still kept (see `discardBefore`). */
  get retainedFrom(): number {
    return this.#window.start;
  }

  #feed(text: string): CoreFailure | undefined {
    try {
      this.#parser.write(text);
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
      return error.failure;
    }
    return undefined;
  }

  #result(failure: CoreFailure | undefined): CoreResult {
    const events = this.#events;
    this.#events = [];
    if (failure === undefined) return { events };
    this.#failed = true;
    return { events, failure };
  }

  #markup(event: CoreEvent & { readonly end: number }): void {
    this.#events.push(event);
    this.#markupEnd = event.end;
  }

  #close(tag: SaxesTagNS): void {
    const end = this.#parser.position;
    const open = this.#open.at(-1);
    if (open === undefined) return;
    const start = tag.isSelfClosing ? open.start : this.#markupStart();
    if (!tag.isSelfClosing) {
      const name = closeTagName(this.slice(start, end));
      if (name !== open.name) {
        throw new Stop({
          rule: 'mismatched-end-tag',
          offset: start,
          detail: `</${name}> closes <${open.name}>`,
        });
      }
    }
    this.#open.pop();
    if (this.#open.length === 0) this.#rootClosed = true;
    this.#markup({ kind: 'close', name: open.name, start, end });
  }

  #state(): ReadState {
    return {
      position: this.#parser.position,
      markupEnd: this.#markupEnd,
      written: this.written,
      tag: this.#starting,
      openElement: this.#open.at(-1),
      rootClosed: this.#rootClosed,
      markupStart: () => this.#markupStart(),
      slice: (from, to) => this.slice(from, to),
      lastIndexOf: (needle, before) => this.#lastIndexOf(needle, before),
    };
  }

  /** Markup starts at the first '<' after the markup before it: character data holds none. */
  #markupStart(): number {
    return this.#window.indexOf('<', this.#markupEnd);
  }

  /** Absolute offset of the last `needle` that starts before `before`, or -1. */
  #lastIndexOf(needle: string, before: number): number {
    const from = this.#window.start;
    const index = this.slice(from, before).lastIndexOf(needle);
    return index === -1 ? -1 : from + index;
  }
}
