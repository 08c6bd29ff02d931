/**
 * Strict parse, RFC 8785 canonical bytes and their SHA-256 in one call (#registration-flow,
 * #canonical-json), for a JSON text that is both used and hashed. It accepts exactly what
 * parseStrictJson accepts and refuses with exactly its JsonRejection, and its bytes and hash
 * are those of canonicalDocument(parseStrictJson(text)): strict-canonical.test.ts holds it to
 * both on generated texts.
 *
 * About 15% cheaper than the two calls on bench/canonical-hash.ts's 1 MB manifest (issue 25):
 * the parse builds each object in canonical member order as it closes (only those whose members
 * did not arrive in order are rebuilt), and everything a strict parse accepts is plain JSON —
 * well-formed strings, finite numbers, null-prototype records with no toJSON — so the native
 * serializer writes the canonical text directly, with no second walk, no sorting copy and none
 * of canonicalJson's re-checks. The sorting itself (Object.keys, sort, a second record) is most
 * of what remains above JSON.parse + JSON.stringify; writing the canonical text from the parse
 * instead (string pieces or ropes, then JSON.parse of that text for the value) measured slower.
 */
import { canonicalJson, documentOf, type CanonicalDocument } from './canonical.ts';
import { resolveJsonLimits, type JsonLimits } from './json-limits.ts';
import { toJsonText } from './json-text-input.ts';
import type { JsonValue } from './json-value.ts';
import { nativeStrictCanonical } from './native-strict-canonical.ts';
import { parseStrictJsonInCanonicalOrder, type StrictJsonOptions } from './strict-json.ts';

export interface StrictCanonical {
  /** The parsed value, as parseStrictJson's but with each object's members in canonical order. */
  readonly value: JsonValue;
  readonly document: CanonicalDocument;
}

/** Parses one JSON text strictly, or throws the JsonRejection parseStrictJson throws for it. */
export function parseStrictCanonical(
  input: Uint8Array | string,
  limits: Partial<JsonLimits> = {},
  options: StrictJsonOptions = {},
): StrictCanonical {
  const resolvedLimits = resolveJsonLimits(limits);
  const jsonText = toJsonText(input, resolvedLimits.maxBytes);
  // The native path proves acceptance or steps aside; the exactness check needs the literals.
  if (options.integers !== 'reject-inexact' && jsonText.firstLoneSurrogate === -1) {
    const native = nativeStrictCanonical(jsonText.text, resolvedLimits);
    if (native !== undefined) return { value: native.value, document: documentOf(native.canonicalText) };
  }
  const { value, nativelySerializable } = parseStrictJsonInCanonicalOrder(jsonText, resolvedLimits, options);
  // The rare rest (integer-like or "__proto__" member names, deep nesting) takes the full path.
  const text = nativelySerializable ? JSON.stringify(value) : canonicalJson(value);
  return { value, document: documentOf(text) };
}
