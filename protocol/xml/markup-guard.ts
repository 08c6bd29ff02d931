/**
 * A lexical watch kept beside saxes, for the two things saxes cannot tell us in time.
 *
 * saxes reports a comment, a processing instruction or a DTD only once the construct has ended,
 * and reads an entity reference up to the next ';' whatever comes before it (a bare '&' followed
 * by stanzas swallows them all). On a socket that is a stall an attacker controls (#security),
 * and RFC 6120 §11.1 wants restricted XML refused where it starts. So this watch follows just
 * enough of the lexical state (character data, CDATA sections, comments, PIs, the DOCTYPE, and
 * references) to say, at the character that makes it certain, that a restricted construct or a
 * reference that cannot be well-formed has begun. Everything else is saxes' business.
 */

export type GuardFindingKind =
  | 'comment'
  | 'processing-instruction'
  | 'declaration'
  /** A named reference to anything but the five predefined entities. */
  | 'entity-reference'
  /** An '&' that cannot begin a well-formed reference (or, restricted, an overlong one). */
  | 'malformed-reference';

export interface GuardFinding {
  readonly kind: GuardFindingKind;
  /** Offset of the construct's '<' or '&'. */
  readonly start: number;
  /** Offset of the character that made it certain. */
  readonly at: number;
}

export interface MarkupGuardOptions {
  /**
   * Report comments, PIs after the root opened, markup declarations and references to anything
   * but the predefined entities (RFC 6120 §11.1); otherwise only malformed references.
   */
  readonly restricted: boolean;
  /** Refuse references longer than any predefined or character reference (a socket's bound). */
  readonly boundReferences?: boolean;
}

const PREDEFINED = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);
const CHARACTER_REFERENCE = /^#(?:[0-9]+|x[0-9a-fA-F]+)$/;
/** A socket's bound: longer than any predefined entity or character reference. */
const BOUNDED_REFERENCE = /^#(?:[0-9]{1,7}|x[0-9a-fA-F]{1,6})$/;
const LONGEST_BOUNDED_REFERENCE = 9;
/** Characters no Name and no character reference holds: the reference is malformed. */
const NOT_IN_REFERENCE = /[\s<&>"'=/;]/;
const MARKUP_OR_REFERENCE = /[<&]/g;
const CDATA_OPEN = '[CDATA[';
const DOCTYPE = 'DOCTYPE';

type State = 'content' | 'lt' | 'bang' | 'cdata' | 'comment' | 'pi' | 'doctype' | 'reference';

export class MarkupGuard {
  #state: State = 'content';
  /** Offset of the next character scanned. */
  #offset = 0;
  #constructStart = 0;
  #bang = '';
  #reference = '';
  /** Closing characters seen in a row (']' in CDATA, '-' in a comment, '?' in a PI). */
  #closers = 0;
  #quote: string | undefined;
  #inSubset = false;
  #rootOpened = false;

  constructor(private readonly options: MarkupGuardOptions) {}

  /** Scans the next text; the first finding, after which the guard must not be used again. */
  scan(text: string): GuardFinding | undefined {
    for (let index = 0; index < text.length; index += 1) {
      if (this.#state === 'content') {
        // Most text is character data and tags: go straight to the next '<' or '&'.
        MARKUP_OR_REFERENCE.lastIndex = index;
        const next = MARKUP_OR_REFERENCE.exec(text);
        if (next === null) break;
        index = next.index;
      }
      const finding = this.#step(text[index] ?? '', this.#offset + index);
      if (finding !== undefined) return finding;
    }
    this.#offset += text.length;
    return undefined;
  }

  #step(c: string, at: number): GuardFinding | undefined {
    const restricted = this.options.restricted;
    switch (this.#state) {
      case 'content':
        if (c === '<') this.#enter('lt', at);
        else if (c === '&') {
          this.#enter('reference', at);
          this.#reference = '';
        }
        return undefined;
      case 'lt':
        if (c === '!') {
          this.#state = 'bang';
          this.#bang = '';
        } else if (c === '?') {
          // Before the root only the XML declaration can come (saxes checks which it is).
          if (restricted && this.#rootOpened) return this.#found('processing-instruction', at);
          this.#enter('pi', this.#constructStart);
        } else {
          if (c !== '/') this.#rootOpened = true;
          this.#state = 'content';
        }
        return undefined;
      case 'bang':
        return this.#bangStep(c, at);
      case 'cdata':
        this.#closeOn(c, ']', 2);
        return undefined;
      case 'comment':
        this.#closeOn(c, '-', 2);
        return undefined;
      case 'pi':
        this.#closeOn(c, '?', 1);
        return undefined;
      case 'doctype':
        this.#doctypeStep(c);
        return undefined;
      case 'reference':
        return this.#referenceStep(c, at);
    }
  }

  #bangStep(c: string, at: number): GuardFinding | undefined {
    const bang = (this.#bang += c);
    if (bang === CDATA_OPEN) this.#enter('cdata', this.#constructStart);
    else if (bang.startsWith('-')) {
      if (this.options.restricted) return this.#found('comment', at);
      if (bang === '--') this.#enter('comment', this.#constructStart);
    } else if (!CDATA_OPEN.startsWith(bang)) {
      if (this.options.restricted) return this.#found('declaration', at);
      if (bang === DOCTYPE) {
        this.#enter('doctype', this.#constructStart);
        this.#quote = undefined;
        this.#inSubset = false;
      } else if (!DOCTYPE.startsWith(bang)) {
        // Not markup saxes reads: it reports it.
        this.#state = 'content';
      }
    }
    return undefined;
  }

  /** Leaves a construct at its '>' once `count` closers came right before it. */
  #closeOn(c: string, closer: string, count: number): void {
    if (c === '>' && this.#closers >= count) this.#state = 'content';
    this.#closers = c === closer ? this.#closers + 1 : 0;
  }

  /** A DOCTYPE read only far enough to find its end: quoted literals and the internal subset. */
  #doctypeStep(c: string): void {
    if (this.#quote !== undefined) {
      if (c === this.#quote) this.#quote = undefined;
    } else if (c === '"' || c === "'") this.#quote = c;
    else if (c === '[') this.#inSubset = true;
    else if (c === ']') this.#inSubset = false;
    else if (c === '>' && !this.#inSubset) this.#state = 'content';
  }

  #referenceStep(c: string, at: number): GuardFinding | undefined {
    if (c === ';') {
      const name = this.#reference;
      this.#state = 'content';
      if (name.startsWith('#')) {
        const pattern = this.options.boundReferences === true ? BOUNDED_REFERENCE : CHARACTER_REFERENCE;
        return pattern.test(name) ? undefined : this.#found('malformed-reference', at);
      }
      if (name === '') return this.#found('malformed-reference', at);
      return this.options.restricted && !PREDEFINED.has(name)
        ? this.#found('entity-reference', at)
        : undefined;
    }
    this.#reference += c;
    if (NOT_IN_REFERENCE.test(c)) return this.#found('malformed-reference', at);
    if (this.options.boundReferences === true && this.#reference.length > LONGEST_BOUNDED_REFERENCE) {
      return this.#found('malformed-reference', at);
    }
    return undefined;
  }

  #enter(state: State, start: number): void {
    this.#state = state;
    this.#constructStart = start;
    this.#closers = 0;
  }

  #found(kind: GuardFindingKind, at: number): GuardFinding {
    return { kind, start: this.#constructStart, at };
  }
}
