/**
 * The strict JSON parse every received JSON text goes through before it is validated,
 * canonicalized or hashed (#json-encoding, #registration-flow): RFC 8259 grammar exactly,
 * plus the RFC 8785 / I-JSON prerequisites (unique member names after unescaping, no lone
 * surrogates, finite non-underflowing numbers) and the documented limits of json-limits.ts.
 * JSON.parse accepts duplicates (last wins), lone surrogates and 1e400 (as Infinity), which
 * would let two different texts share a hash or make canonicalization fail after admission.
 *
 * Parsing time is bounded because the work is linear in the input, which maxBytes bounds:
 * each code unit is inspected a constant number of times (plain runs of a string are copied
 * with one slice), a number literal costs time linear in its length (and the opt-in
 * exactness check a bounded amount beyond that), a duplicate check is one hash lookup in a
 * V8 table with a per-process random hash seed, and line/column are computed only once, on
 * rejection. The parse is iterative (an explicit stack of open containers), so nesting
 * depth is bounded by maxDepth and never by the call stack.
 */
import { sortCodeUnitOrder } from './code-unit-order.ts';
import { decimalLiteralIsExact } from './decimal-exactness.ts';
import { resolveJsonLimits, type JsonLimits } from './json-limits.ts';
import { JsonRejection, quotedExcerpt, type JsonRejectionRule } from './json-rejection.ts';
import { toJsonText, type JsonText } from './json-text-input.ts';
import type { JsonObject, JsonValue } from './json-value.ts';
import { positionIn } from './text-position.ts';

export interface StrictJsonOptions {
  /**
   * Number literals whose decimal value is not exactly a double (interp-10):
   * - 'round' (default): accept the round-to-nearest double, as RFC 8785 and ECMAScript do;
   *   `9007199254740993` becomes 9007199254740992 and canonicalizes as such.
   * - 'reject-inexact': reject them (rule 'number-inexact'), so that no accepted literal
   *   silently changes value. The trade-off: despite the name this governs every literal,
   *   fractions included, so `0.1` and RFC 8785's own `333333333.33333329` are refused too;
   *   only suitable where all numbers are integers or binary fractions by contract.
   */
  readonly integers?: 'round' | 'reject-inexact';
}

/** Parses one JSON text, or throws a JsonRejection naming the first rule it breaks. */
export function parseStrictJson(
  input: Uint8Array | string,
  limits: Partial<JsonLimits> = {},
  options: StrictJsonOptions = {},
): JsonValue {
  return parserFor(input, limits, options, false).parseDocument();
}

function parserFor(
  input: Uint8Array | string,
  limits: Partial<JsonLimits>,
  options: StrictJsonOptions,
  canonicalOrder: boolean,
): StrictJsonParser {
  const resolvedLimits = resolveJsonLimits(limits);
  return parserOfText(toJsonText(input, resolvedLimits.maxBytes), resolvedLimits, options, canonicalOrder);
}

function parserOfText(
  { text, inputWasBytes, firstLoneSurrogate }: JsonText,
  resolvedLimits: JsonLimits,
  options: StrictJsonOptions,
  canonicalOrder: boolean,
): StrictJsonParser {
  return new StrictJsonParser(
    text,
    inputWasBytes,
    firstLoneSurrogate,
    resolvedLimits,
    options.integers === 'reject-inexact',
    canonicalOrder,
  );
}

/** A strict parse whose objects list their members in RFC 8785 order (strict-canonical.ts). */
export interface CanonicalOrderParse {
  readonly value: JsonValue;
  /**
   * True when JSON.stringify(value) is the canonical text: no member name that V8 would
   * enumerate out of insertion order (integer-like) or that the native serializer cannot be
   * trusted with ("__proto__"), and nesting shallow enough for its recursion.
   */
  readonly nativelySerializable: boolean;
}

/**
 * The same parse, accepting and refusing exactly what parseStrictJson does with the same
 * rejection, but each object whose members did not arrive in UTF-16 code-unit order of their
 * names is rebuilt in that order as it closes. The input is
 * what toJsonText made of the text under the same limits.
 */
export function parseStrictJsonInCanonicalOrder(
  jsonText: JsonText,
  resolvedLimits: JsonLimits,
  options: StrictJsonOptions = {},
): CanonicalOrderParse {
  const parser = parserOfText(jsonText, resolvedLimits, options, true);
  const value = parser.parseDocument();
  return { value, nativelySerializable: parser.nativelySerializable };
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const POINT = 0x2e;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Integers of at most 15 digits are exact doubles, so they skip Number() and every check. */
const MAX_FAST_INTEGER_DIGITS = 15;
/** A mantissa that is zero however many fraction digits it has: `0`, `-0.000`. */
const ZERO_MANTISSA = /^-?0(?:\.0+)?(?:[eE]|$)/;
/** A canonical string of digits: a member name V8 may enumerate before the others. */
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;
/** Nesting the recursive native serializer is trusted with (as canonical.ts's fast path). */
const MAX_NATIVE_DEPTH = 512;

type OpenContainer =
  | { readonly kind: 'array'; readonly array: JsonValue[] }
  | {
      readonly kind: 'object';
      readonly object: JsonObject;
      pendingName: string;
      members: number;
      /** Canonical order only: whether each member name so far sorted after the one before. */
      inOrder: boolean;
    };

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function hexDigitValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** The code unit of the four hex digits at `at`, or -1 (end of input reads as NaN → -1). */
function hexCodeUnit(text: string, at: number): number {
  const a = hexDigitValue(text.charCodeAt(at));
  const b = hexDigitValue(text.charCodeAt(at + 1));
  const c = hexDigitValue(text.charCodeAt(at + 2));
  const d = hexDigitValue(text.charCodeAt(at + 3));
  return (a | b | c | d) < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Objects are built as ordinary objects and lose their prototype once complete: V8 keeps
 * such objects in fast mode, while Object.create(null) starts in dictionary mode, which
 * made the whole parse about twice as slow. While the prototype is still there, a member
 * named "__proto__" must be defined, not assigned, or it would hit the inherited setter.
 */
function addMember(object: JsonObject, name: string, value: JsonValue): void {
  if (name === '__proto__') {
    Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[name] = value;
  }
}

/** The finished record: null prototype, so no inherited name ("constructor", "toString") can shadow a lookup. */
function withoutPrototype(object: JsonObject): JsonObject {
  return Object.setPrototypeOf(object, null) as JsonObject;
}

/** A finished record with its members in UTF-16 code-unit order (Array#sort's default). */
function sortedRecord(object: JsonObject): JsonObject {
  const sorted: JsonObject = {};
  const names = Object.keys(object);
  sortCodeUnitOrder(names);
  for (const name of names) addMember(sorted, name, object[name] as JsonValue);
  return withoutPrototype(sorted);
}

class StrictJsonParser {
  private pos = 0;
  private valueCount = 0;
  private readonly text: string;
  private readonly inputWasBytes: boolean;
  private readonly firstLoneSurrogate: number;
  private readonly limits: JsonLimits;
  private readonly rejectInexact: boolean;
  private readonly canonicalOrder: boolean;
  nativelySerializable = true;

  constructor(
    text: string,
    inputWasBytes: boolean,
    firstLoneSurrogate: number,
    limits: JsonLimits,
    rejectInexact: boolean,
    canonicalOrder = false,
  ) {
    this.text = text;
    this.inputWasBytes = inputWasBytes;
    this.firstLoneSurrogate = firstLoneSurrogate;
    this.limits = limits;
    this.rejectInexact = rejectInexact;
    this.canonicalOrder = canonicalOrder;
  }

  parseDocument(): JsonValue {
    this.skipWhitespace();
    if (this.pos >= this.text.length) this.reject('empty', 'empty JSON text: no value', this.pos);
    const value = this.parseValueTree();
    this.skipWhitespace();
    if (this.pos < this.text.length) {
      this.reject(
        'trailing-data',
        `trailing data ${this.characterAt(this.pos)} after the JSON value`,
        this.pos,
      );
    }
    return value;
  }

  /** One value and everything nested in it; `pos` is at its first character. */
  private parseValueTree(): JsonValue {
    const text = this.text;
    const limits = this.limits;
    const parents: OpenContainer[] = [];
    let current: OpenContainer | undefined;
    let depth = 0;

    for (;;) {
      const start = this.pos;
      if (++this.valueCount > limits.maxValues) {
        this.reject('limit-values', `document exceeds the limit of ${limits.maxValues} values`, start);
      }
      const c = text.charCodeAt(start);
      let value: JsonValue;

      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth >= limits.maxDepth) {
          this.reject('limit-depth', `nesting depth exceeds the limit of ${limits.maxDepth}`, start);
        }
        if (depth >= MAX_NATIVE_DEPTH) this.nativelySerializable = false;
        this.pos = start + 1;
        this.skipWhitespace();
        if (c === OPEN_BRACE) {
          const object: JsonObject = {};
          if (text.charCodeAt(this.pos) === CLOSE_BRACE) {
            this.pos++;
            value = withoutPrototype(object);
          } else {
            if (current !== undefined) parents.push(current);
            current = {
              kind: 'object',
              object,
              pendingName: this.parseMemberName(object, 0),
              members: 1,
              inOrder: true,
            };
            depth++;
            continue;
          }
        } else {
          const array: JsonValue[] = [];
          if (text.charCodeAt(this.pos) === CLOSE_BRACKET) {
            this.pos++;
            value = array;
          } else {
            this.checkArrayRoom(0);
            if (current !== undefined) parents.push(current);
            current = { kind: 'array', array };
            depth++;
            continue;
          }
        }
      } else {
        value = this.parseScalar(c, start);
      }

      // Attach the finished value to its container, closing containers that end here.
      for (;;) {
        if (current === undefined) return value;
        if (current.kind === 'array') {
          current.array.push(value);
          this.skipWhitespace();
          const next = text.charCodeAt(this.pos);
          if (next === COMMA) {
            this.pos++;
            this.skipWhitespace();
            this.checkArrayRoom(current.array.length);
            break;
          }
          if (next !== CLOSE_BRACKET) this.unexpected(this.pos, "',' or ']'");
          this.pos++;
          value = current.array;
        } else {
          addMember(current.object, current.pendingName, value);
          this.skipWhitespace();
          const next = text.charCodeAt(this.pos);
          if (next === COMMA) {
            this.pos++;
            this.skipWhitespace();
            const name = this.parseMemberName(current.object, current.members);
            // Names are unique here, so one that sorts before its predecessor is out of order.
            if (this.canonicalOrder && name < current.pendingName) current.inOrder = false;
            current.pendingName = name;
            current.members++;
            break;
          }
          if (next !== CLOSE_BRACE) this.unexpected(this.pos, "',' or '}'");
          this.pos++;
          value = current.inOrder ? withoutPrototype(current.object) : sortedRecord(current.object);
        }
        current = parents.pop();
        depth--;
      }
    }
  }

  private checkArrayRoom(elements: number): void {
    if (elements >= this.limits.maxArrayElements) {
      this.reject(
        'limit-array-elements',
        `array exceeds the limit of ${this.limits.maxArrayElements} elements`,
        this.pos,
      );
    }
  }

  /** A member name, its duplicate check and the colon; leaves `pos` at the member's value. */
  private parseMemberName(object: JsonObject, membersSoFar: number): string {
    const start = this.pos;
    if (this.text.charCodeAt(start) !== QUOTE) this.unexpected(start, 'a member name string');
    if (membersSoFar >= this.limits.maxObjectMembers) {
      this.reject(
        'limit-object-members',
        `object exceeds the limit of ${this.limits.maxObjectMembers} members`,
        start,
      );
    }
    const name = this.parseString(start);
    if (this.canonicalOrder && this.nativelySerializable && !nativelyOrdered(name)) {
      this.nativelySerializable = false;
    }
    // Compared after unescaping, so "a" and "\u0061" collide (RFC 8785 §3.1, I-JSON §2.3).
    if (Object.hasOwn(object, name)) {
      this.reject('duplicate-member', `duplicate member ${quotedExcerpt(name)}`, start);
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== COLON) this.unexpected(this.pos, "':'");
    this.pos++;
    this.skipWhitespace();
    return name;
  }

  private parseScalar(c: number, start: number): JsonValue {
    if (c === QUOTE) return this.parseString(start);
    if (c === MINUS || isDigit(c)) return this.parseNumber(start);
    if (c === 0x74 && this.text.startsWith('true', start)) {
      this.pos = start + 4;
      return true;
    }
    if (c === 0x66 && this.text.startsWith('false', start)) {
      this.pos = start + 5;
      return false;
    }
    if (c === 0x6e && this.text.startsWith('null', start)) {
      this.pos = start + 4;
      return null;
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.reject('syntax', 'syntax error: invalid literal, expected true, false or null', start);
    }
    return this.unexpected(start, 'a value');
  }

  private parseString(quoteAt: number): string {
    const text = this.text;
    let i = quoteAt + 1;
    let runStart = i;
    let unescaped = '';
    for (;;) {
      let c = text.charCodeAt(i);
      while (c >= SPACE && c !== QUOTE && c !== BACKSLASH) c = text.charCodeAt(++i);
      if (c === QUOTE) break;
      if (c !== BACKSLASH) {
        if (i >= text.length) this.unexpected(i, 'the closing quote of a string');
        this.reject('syntax', `syntax error: unescaped control character U+${hex(c)} in string`, i);
      }
      unescaped += text.slice(runStart, i);
      const escape = text.charCodeAt(i + 1);
      let escapeLength = 2;
      switch (escape) {
        case QUOTE:
          unescaped += '"';
          break;
        case BACKSLASH:
          unescaped += '\\';
          break;
        case 0x2f:
          unescaped += '/';
          break;
        case 0x62:
          unescaped += '\b';
          break;
        case 0x66:
          unescaped += '\f';
          break;
        case 0x6e:
          unescaped += '\n';
          break;
        case 0x72:
          unescaped += '\r';
          break;
        case 0x74:
          unescaped += '\t';
          break;
        case 0x75: {
          escapeLength = 6;
          const unit = hexCodeUnit(text, i + 2);
          if (unit < 0) this.reject('syntax', 'syntax error: \\u must be followed by four hex digits', i);
          if (isHighSurrogate(unit)) {
            const pairedLow =
              text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === 0x75
                ? hexCodeUnit(text, i + 8)
                : -1;
            if (!isLowSurrogate(pairedLow)) this.rejectLoneSurrogateEscape(i);
            unescaped += String.fromCharCode(unit, pairedLow);
            escapeLength = 12;
          } else {
            if (isLowSurrogate(unit)) this.rejectLoneSurrogateEscape(i);
            unescaped += String.fromCharCode(unit);
          }
          break;
        }
        default:
          if (i + 1 >= text.length) this.unexpected(i + 1, 'an escaped character');
          this.reject('syntax', `syntax error: invalid escape ${quotedExcerpt(text.slice(i, i + 2))}`, i);
      }
      i += escapeLength;
      runStart = i;
    }
    const value = unescaped + text.slice(runStart, i);
    if (this.firstLoneSurrogate > quoteAt && this.firstLoneSurrogate < i) {
      const unit = text.charCodeAt(this.firstLoneSurrogate);
      this.reject('lone-surrogate', `lone surrogate U+${hex(unit)} in string`, this.firstLoneSurrogate);
    }
    if (value.length > this.limits.maxStringLength) {
      this.reject(
        'limit-string-length',
        `string exceeds the limit of ${this.limits.maxStringLength} UTF-16 code units`,
        quoteAt,
      );
    }
    this.pos = i + 1;
    return value;
  }

  private rejectLoneSurrogateEscape(at: number): never {
    return this.reject('lone-surrogate', `lone surrogate escape ${this.text.slice(at, at + 6)}`, at);
  }

  private parseNumber(start: number): number {
    const text = this.text;
    let i = start;
    let c = text.charCodeAt(i);
    const negative = c === MINUS;
    if (negative) c = text.charCodeAt(++i);
    const integerStart = i;
    let integerValue = 0;
    if (c === ZERO) {
      c = text.charCodeAt(++i);
      if (isDigit(c)) this.reject('syntax', 'syntax error: leading zero in number', integerStart);
    } else if (c >= ONE && c <= NINE) {
      do {
        integerValue = integerValue * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      } while (isDigit(c));
    } else {
      this.unexpected(i, 'a digit');
    }
    const integerDigits = i - integerStart;
    let plainInteger = true;
    if (c === POINT) {
      plainInteger = false;
      c = text.charCodeAt(++i);
      if (!isDigit(c)) this.unexpected(i, 'a digit after the decimal point');
      do c = text.charCodeAt(++i);
      while (isDigit(c));
    }
    if (c === LOWER_E || c === UPPER_E) {
      plainInteger = false;
      c = text.charCodeAt(++i);
      if (c === PLUS || c === MINUS) c = text.charCodeAt(++i);
      if (!isDigit(c)) this.unexpected(i, 'a digit in the exponent');
      do c = text.charCodeAt(++i);
      while (isDigit(c));
    }
    this.pos = i;
    if (plainInteger && integerDigits <= MAX_FAST_INTEGER_DIGITS) {
      return negative ? -integerValue : integerValue;
    }

    const literal = text.slice(start, i);
    const value = Number(literal);
    if (!Number.isFinite(value)) {
      this.reject('number-overflow', `number ${quotedExcerpt(literal)} overflows to infinity`, start);
    }
    if (value === 0 && !ZERO_MANTISSA.test(literal)) {
      this.reject('number-underflow', `non-zero number ${quotedExcerpt(literal)} underflows to 0`, start);
    }
    if (this.rejectInexact && !decimalLiteralIsExact(literal, value)) {
      this.reject('number-inexact', `number ${quotedExcerpt(literal)} is not exactly a double`, start);
    }
    return value;
  }

  private skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    let c = text.charCodeAt(i);
    while (c === SPACE || c === LF || c === CR || c === TAB) c = text.charCodeAt(++i);
    this.pos = i;
  }

  /** The character at `offset`, quoted for a message (a whole code point, never half a pair). */
  private characterAt(offset: number): string {
    const codePoint = this.text.codePointAt(offset);
    return codePoint === undefined ? 'end of input' : JSON.stringify(String.fromCodePoint(codePoint));
  }

  private unexpected(offset: number, expected: string): never {
    const found = offset >= this.text.length ? 'end of input' : `character ${this.characterAt(offset)}`;
    return this.reject('syntax', `syntax error: unexpected ${found}, expected ${expected}`, offset);
  }

  private reject(rule: JsonRejectionRule, description: string, offset: number): never {
    throw new JsonRejection(rule, description, positionIn(this.text, offset, this.inputWasBytes));
  }
}

/** Whether V8 keeps a member of this name in insertion order and the serializer writes it as named. */
function nativelyOrdered(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first >= ZERO && first <= NINE) return !INTEGER_LIKE.test(name);
  return name !== '__proto__';
}

function hex(unit: number): string {
  return unit.toString(16).toUpperCase().padStart(4, '0');
}
