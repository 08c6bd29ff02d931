/**
 * The fast path of parseStrictCanonical (issue 25): JSON.parse and JSON.stringify do the work
 * natively, and cheap checks on their input, value and output prove that the strict parse
 * would have accepted the same text with the same value. Whenever one check cannot prove it,
 * the answer is "don't know" (undefined) and the caller runs the strict parse, which alone
 * decides rejections and their positions; so this path never refuses and never has to agree
 * on an error.
 *
 * Why the checks suffice, rule by rule (strict-json.ts):
 * - grammar, empty text, trailing data, control characters: ECMAScript's JSON grammar is
 *   RFC 8259's, and JSON.parse throws on anything outside it;
 * - encoding, byte order mark, byte limit: checked before, on the same decoded text;
 * - lone surrogates: raw ones are ruled out by the caller (decoded bytes cannot hold one, a
 *   string input must have none), and escaped ones by the text holding no surrogate escape;
 * - overflow: JSON.parse gives Infinity; underflow: JSON.parse gives 0, and a non-zero literal
 *   below the smallest double needs a three-digit negative exponent or hundreds of zeros, so
 *   texts with a 0 value and either pattern anywhere (strings included) are left to the parse;
 * - duplicate member names, which JSON.parse silently merges: outside strings a colon only
 *   ever separates a name from its value, and JSON.stringify writes every colon of a string
 *   as is. Without escaped colons in the input, input colons = members in the text + colons in
 *   the strings of the text, and output colons = members kept + colons in the strings kept.
 *   Each duplicate drops a member (and its strings), so the counts are equal exactly when no
 *   name repeats;
 * - limits: depth, members, elements, values and string lengths are read off the value.
 * Member names that V8 enumerates out of insertion order (integer-like) or that cannot be
 * assigned ("__proto__"), and nesting too deep for the recursive walk and serializer, are left
 * to the strict parse too.
 *
 * The cost of stepping aside: a text the strict parse refuses is parsed twice, and JSON.parse
 * allocates its whole value before a limit on values, members or elements is checked, where
 * the strict parse stops at the limit. Both are linear in the text, which maxBytes bounds; the
 * texts that reach this path are stored manifests and files being hashed, while the intake of
 * untrusted JSON (parseStrictJson) is unchanged.
 */
import { canonicalBytesDocument, type CanonicalDocument } from './canonical.ts';
import { sortCodeUnitOrder } from './code-unit-order.ts';
import type { JsonLimits } from './json-limits.ts';
import type { JsonObject, JsonValue } from './json-value.ts';

export interface NativeStrictCanonical {
  /** Null-prototype records with their members in RFC 8785 order, as the strict parse gives. */
  readonly value: JsonValue;
  /** The RFC 8785 bytes of `value` and their hash. */
  readonly document: CanonicalDocument;
}

/** As canonical.ts and strict-json.ts: nesting the recursive native serializer is trusted with. */
const MAX_NATIVE_DEPTH = 512;
/** `\u` escapes of a surrogate (any of D800–DFFF) or of a colon. */
const SURROGATE_OR_COLON_ESCAPE = /\\u(?:[dD][89a-fA-F]|003[aA])/;
/**
 * What a non-zero literal that rounds to 0 must contain (below 2^-1075 ≈ 2.5e-324): an
 * exponent of -100 or less, or, with a two-digit exponent, at least 225 zeros after the point.
 */
const UNDERFLOW_CANDIDATE = /[eE]-0*[1-9][0-9][0-9]|0{200}/;
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;
const COLON = ':';
const COLON_BYTE = 0x3a;

/**
 * `text` is the decoded JSON text, holding no unpaired surrogate; `bytes`, when given, the UTF-8
 * it was decoded from (colons are counted faster there). Returns undefined whenever the strict
 * parse must decide.
 */
export function nativeStrictCanonical(
  text: string,
  bytes: Uint8Array | undefined,
  limits: JsonLimits,
): NativeStrictCanonical | undefined {
  if (text.includes('\\u') && SURROGATE_OR_COLON_ESCAPE.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const walk = new CanonicalWalk(limits);
  const value = walk.visit(parsed, 0);
  if (walk.undecided || walk.values > limits.maxValues) return undefined;
  if (walk.sawZero && UNDERFLOW_CANDIDATE.test(text)) return undefined;
  const canonical = Buffer.from(JSON.stringify(value), 'utf8');
  const inputColons =
    bytes === undefined
      ? colonsInText(text)
      : colonsInBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (colonsInBytes(canonical) !== inputColons) return undefined;
  return { value, document: canonicalBytesDocument(canonical) };
}

function colonsInText(text: string): number {
  let count = 0;
  for (let at = text.indexOf(COLON); at !== -1; at = text.indexOf(COLON, at + 1)) count++;
  return count;
}

/** A colon is one byte in UTF-8, and no byte of a multi-byte sequence is below 0x80. */
function colonsInBytes(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(COLON_BYTE); at !== -1; at = bytes.indexOf(COLON_BYTE, at + 1)) count++;
  return count;
}

/**
 * Checks JSON.parse's value against the limits and turns it into the strict parse's: records
 * in canonical member order (reused when already in order) without a prototype.
 */
class CanonicalWalk {
  undecided = false;
  values = 0;
  sawZero = false;
  private readonly maxDepth: number;
  private readonly maxStringLength: number;
  private readonly maxObjectMembers: number;
  private readonly maxArrayElements: number;

  constructor(limits: JsonLimits) {
    this.maxDepth = Math.min(limits.maxDepth, MAX_NATIVE_DEPTH);
    this.maxStringLength = limits.maxStringLength;
    this.maxObjectMembers = limits.maxObjectMembers;
    this.maxArrayElements = limits.maxArrayElements;
  }

  /** `depth` counts the containers around `value`; the caller stops when `undecided`. */
  visit(value: unknown, depth: number): JsonValue {
    this.values++;
    if (typeof value === 'string') {
      if (value.length > this.maxStringLength) this.undecided = true;
      return value;
    }
    if (typeof value === 'number') {
      if (value === 0) this.sawZero = true;
      else if (!Number.isFinite(value)) this.undecided = true;
      return value;
    }
    if (typeof value !== 'object' || value === null) return value as boolean | null;
    if (depth >= this.maxDepth) {
      this.undecided = true;
      return null;
    }
    if (Array.isArray(value)) return this.visitArray(value as unknown[], depth);
    return this.visitObject(value as Record<string, unknown>, depth);
  }

  private visitArray(array: unknown[], depth: number): JsonValue {
    if (array.length > this.maxArrayElements) {
      this.undecided = true;
      return null;
    }
    for (let index = 0; index < array.length && !this.undecided; index++) {
      array[index] = this.visit(array[index], depth + 1);
    }
    return array as JsonValue[];
  }

  private visitObject(object: Record<string, unknown>, depth: number): JsonValue {
    const names = Object.keys(object);
    if (names.length > this.maxObjectMembers) {
      this.undecided = true;
      return null;
    }
    let inOrder = true;
    let previous = '';
    for (const name of names) {
      if (name.length > this.maxStringLength || !nativelyOrdered(name)) {
        this.undecided = true;
        return null;
      }
      if (name < previous) inOrder = false;
      previous = name;
    }
    if (inOrder) {
      for (const name of names) {
        object[name] = this.visit(object[name], depth + 1);
        if (this.undecided) return null;
      }
      return Object.setPrototypeOf(object, null) as JsonObject;
    }
    sortCodeUnitOrder(names);
    const sorted: Record<string, unknown> = {};
    for (const name of names) {
      sorted[name] = this.visit(object[name], depth + 1);
      if (this.undecided) return null;
    }
    return Object.setPrototypeOf(sorted, null) as JsonObject;
  }
}

/** Whether V8 keeps a member of this name in insertion order and it can be assigned. */
function nativelyOrdered(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39) return !INTEGER_LIKE.test(name);
  return name !== '__proto__';
}
