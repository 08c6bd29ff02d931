/**
 * The one place XML is tokenized: saxes (strict XML 1.0 + Namespaces, streaming) with source
 * offsets added and its failures named by our rules. The stream reader and both document readers
 * are views over the events this produces; each adds its own policy (what is refused, what is
 * built), and none of them looks at '<' itself.
 *
 * What saxes does not do, and this layer does:
 * - Offsets of a construct's start: saxes only knows where it is now. The '<' of a tag is the
 *   last one before its name (a name holds none), and text starts where the markup before it
 *   ended, so keeping the text read since the current construct began is enough.
 * - Lone surrogates: saxes pairs a high surrogate with whatever follows, so characters are
 *   checked here (XML 1.0 Char) before saxes sees them.
 * - A close tag naming another element: saxes closes the open elements up to a matching one
 *   and reports afterwards, so the close tag's name is compared here first.
 * - The restricted-XML and reference watch (markup-guard.ts).
 * - Its failures are messages; `classify` maps each to a rule and the offset a reader wants.
 */
import { SaxesParser, type SaxesTagNS, type XMLDecl } from 'saxes';

import { MarkupGuard, type GuardFinding, type MarkupGuardOptions } from './markup-guard.ts';
import { TextWindow } from './text-window.ts';
import { describeCharAt, firstIllegalXmlChar } from './xml-chars.ts';
import type { XmlSyntaxRule } from './xml-syntax-error.ts';

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

export interface CoreFailure {
  readonly rule: XmlSyntaxRule;
  readonly offset: number;
  readonly detail: string;
  /** Set when the guard found restricted XML (only when it watches for it). */
  readonly guard?: GuardFinding | undefined;
}

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

/** Markup other than tags that the input may end inside, by opener. */
const UNTERMINATED: readonly (readonly [string, string])[] = [
  ['<!--', 'comment'],
  ['<?', 'processing instruction'],
  ['<!DOCTYPE', 'document type declaration'],
];

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
      throw new Stop(this.#classify(message));
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
      (guarded === undefined ? undefined : this.#guardFailure(guarded)) ??
      (illegal === -1 ? undefined : this.#illegalCharacter(base + illegal));
    return this.#result(failure);
  }

  /** The end of the input: what is still open is reported. */
  end(): CoreResult {
    if (this.#failed) return { events: [] };
    if (this.#carry !== '') {
      const offset = this.written;
      this.#window.append(this.#carry);
      return this.#result(this.#illegalCharacter(offset));
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
      const name = this.#closeTagName(start, end);
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

  /** Markup starts at the first '<' after the markup before it: character data holds none. */
  #markupStart(): number {
    return this.#window.indexOf('<', this.#markupEnd);
  }

  #closeTagName(start: number, end: number): string {
    return /^<\/([^\s>]*)/.exec(this.slice(start, end))?.[1] ?? '';
  }

  /** Absolute offset of the last `needle` that starts before `before`, or -1. */
  #lastIndexOf(needle: string, before: number): number {
    const from = this.#window.start;
    const index = this.slice(from, before).lastIndexOf(needle);
    return index === -1 ? -1 : from + index;
  }

  #illegalCharacter(offset: number): CoreFailure {
    const character = describeCharAt(this.slice(offset, offset + 2), 0);
    return { rule: 'illegal-character', offset, detail: `character not allowed in XML 1.0: ${character}` };
  }

  #guardFailure(finding: GuardFinding): CoreFailure {
    // As far as it was read, for naming it.
    const construct = this.slice(finding.start, finding.at + 1);
    const at = { offset: finding.start, guard: this.options.guard.restricted ? finding : undefined };
    switch (finding.kind) {
      case 'comment':
        return { ...at, rule: 'restricted-xml', detail: 'comments are not allowed (RFC 6120 §11.1)' };
      case 'processing-instruction':
        return {
          ...at,
          rule: 'restricted-xml',
          detail: 'processing instructions are not allowed (RFC 6120 §11.1)',
        };
      case 'declaration':
        return this.slice(finding.start, finding.start + 9) === '<!DOCTYPE'
          ? { ...at, rule: 'doctype', detail: 'document type declarations are not allowed here' }
          : { ...at, rule: 'malformed-tag', detail: `unexpected '<!' (${construct})` };
      case 'entity-reference':
        return {
          ...at,
          rule: 'undefined-entity',
          detail: `entity ${construct} is not declared (no DTD is read)`,
        };
      case 'malformed-reference':
        return { ...at, rule: 'invalid-reference', detail: "'&' must start a reference ending in ';'" };
    }
  }

  /** Names a saxes failure by our rules, pointing at the construct it concerns. */
  #classify(message: string): CoreFailure {
    const position = this.#parser.position;
    const here = Math.max(0, position - 1);
    const tagStart = this.#starting?.start ?? this.#markupStart();
    const tagName = this.#starting?.name ?? '';
    const fail = (rule: XmlSyntaxRule, detail: string, offset = here): CoreFailure => ({
      rule,
      offset,
      detail,
    });
    const prefix = /^unbound namespace prefix: "(.*)"\.$/.exec(message)?.[1];
    if (prefix !== undefined) {
      const qname = tagName.startsWith(`${prefix}:`) ? tagName : `${prefix}:…`;
      return fail('namespace', `namespace prefix in ${qname} is not declared`, tagStart);
    }
    const duplicate = /^duplicate attribute: (.*)\.$/.exec(message)?.[1];
    if (duplicate !== undefined) {
      return fail('duplicate-attribute', `attribute ${duplicate} appears twice in <${tagName}>`, tagStart);
    }
    if (/^(unclosed tag: |unexpected end\.|document must contain a root element\.)/.test(message)) {
      return this.#unfinished();
    }
    if (/^(unexpected close tag|unmatched closing tag|weird empty close tag)/.test(message)) {
      const start = this.#markupStart();
      const open = this.#open.at(-1)?.name ?? '';
      return fail('mismatched-end-tag', `</${this.#closeTagName(start, position)}> closes <${open}>`, start);
    }
    switch (message) {
      case 'disallowed character.': {
        // Characters were checked before saxes saw them: this is a '<' in an attribute value.
        const attribute = /([^\s=]+)\s*=\s*["'][^"']*$/.exec(this.slice(tagStart, position))?.[1] ?? '';
        return fail('malformed-attribute', `'<' in the value of ${attribute}`);
      }
      case 'text data outside of root node.':
      case 'documents may contain only one root.':
        return this.#outsideRoot(here);
      case 'inappropriately located doctype declaration.':
        return fail('doctype', 'document type declarations are not allowed here');
      case 'malformed comment.':
        return fail('malformed-tag', "'--' is not allowed inside a comment");
      case 'the string "]]>" is disallowed in char data.':
        return fail('cdata-end-in-text', "']]>' is not allowed in character data", position - 3);
      case 'no whitespace between attributes.':
        return fail('malformed-tag', `whitespace must separate attributes in <${tagName}>`);
      case 'attribute without value.':
        return fail('malformed-attribute', `expected '=' after an attribute name in <${tagName}>`);
      case 'unquoted attribute value.':
        return fail('malformed-attribute', `attribute values in <${tagName}> must be quoted`);
      case 'disallowed character in attribute name.':
        return fail('malformed-attribute', `malformed attribute name, or no '=' after it, in <${tagName}>`);
      case 'disallowed character in tag name':
      case 'disallowed character in tag name.':
      case 'forward-slash in opening tag not followed by >.':
        return fail('malformed-tag', 'expected an element name');
      case 'disallowed character in closing tag.':
        return fail('malformed-tag', "end tag is not closed by '>'");
      case 'incorrect syntax.':
        return fail('malformed-tag', "unexpected '<!'", tagStart);
      case 'processing instruction without a target.':
      case 'disallowed character in processing instruction name.':
        return fail('malformed-tag', 'expected a processing-instruction target');
      case 'an XML declaration must be at the start of the document.':
      case 'the XML declaration must appear at the start of the document.':
      case 'processing instructions are not allowed before root.':
        return fail('restricted-xml', 'the XML declaration must come first', tagStart);
      case 'undefined entity.':
      case 'empty entity name.':
      case 'disallowed character in entity name.':
      case 'malformed character entity.':
        return this.#badReference(message, position);
      case 'invalid attempt to undefine prefix in XML 1.0':
        return fail('namespace', 'a prefixed namespace declaration must not be empty in XML 1.0', tagStart);
      default:
        if (/namespace|prefix|malformed name/.test(message)) return fail('namespace', message, tagStart);
        // Everything else saxes refuses is inside the XML declaration.
        return fail('xml-declaration', `the XML declaration is malformed: ${message}`, 0);
    }
  }

  #outsideRoot(offset: number): CoreFailure {
    return this.#rootClosed
      ? { rule: 'trailing-content', offset, detail: 'content after the root element' }
      : { rule: 'no-root', offset, detail: 'expected the root element' };
  }

  #badReference(message: string, position: number): CoreFailure {
    const start = this.#lastIndexOf('&', position);
    const reference = this.slice(start, position);
    if (message === 'undefined entity.') {
      return { rule: 'undefined-entity', offset: start, detail: `entity ${reference} is not declared` };
    }
    return {
      rule: 'invalid-reference',
      offset: start,
      detail: `${reference} does not reference an XML 1.0 character`,
    };
  }

  /** The input ended inside something: which thing decides the rule. */
  #unfinished(): CoreFailure {
    const tail = this.slice(this.#markupEnd, this.written);
    const cdata = tail.indexOf('<![CDATA[');
    if (cdata !== -1) {
      return {
        rule: 'unterminated-cdata',
        offset: this.#markupEnd + cdata,
        detail: 'unterminated CDATA section',
      };
    }
    const lt = tail.indexOf('<');
    if (lt !== -1) {
      const markup = tail.slice(lt);
      const unterminated = UNTERMINATED.find(([opener]) => markup.startsWith(opener));
      if (unterminated !== undefined) {
        return {
          rule: 'malformed-tag',
          offset: this.#markupEnd + lt,
          detail: `unterminated ${unterminated[1]}`,
        };
      }
      const quotes = markup.match(/["']/g)?.length ?? 0;
      const name = /^<([^\s/>]*)/.exec(markup)?.[1] ?? '';
      return quotes % 2 === 1
        ? {
            rule: 'malformed-attribute',
            offset: this.#markupEnd + lt,
            detail: `an attribute value in <${name}> is never closed`,
          }
        : {
            rule: 'malformed-tag',
            offset: this.#markupEnd + lt,
            detail: `start tag <${name}> is never closed`,
          };
    }
    const open = this.#open.at(-1);
    if (open === undefined)
      return { rule: 'no-root', offset: this.written, detail: 'expected the root element' };
    return { rule: 'unclosed-element', offset: open.start, detail: `<${open.name}> is never closed` };
  }
}
