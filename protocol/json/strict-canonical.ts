/**
 * Strict parse, RFC 8785 canonical bytes and their SHA-256 in one call (#registration-flow,
 * #canonical-json), for a JSON text that is both used and hashed. It accepts exactly what
 * parseStrictJson accepts and refuses with exactly its JsonRejection, and its bytes and hash
 * are those of canonicalDocument(parseStrictJson(text)): strict-canonical.test.ts holds it to
 * both on generated texts.
 *
 * Two ways to the same answer (issue 25 budgets this at 1.5× JSON.parse + JSON.stringify +
 * SHA-256 of a 1 MB manifest, bench/canonical-hash.ts). First native-strict-canonical.ts:
 * JSON.parse and JSON.stringify with checks proving the strict parse would accept the text with
 * the same value (about 1.4× on the bench, from 2.0×). Where it cannot prove that (a rejection,
 * escapes of surrogates or colons, a possible underflow, integer-like or "__proto__" member
 * names), the strict parse decides: it builds each object in canonical member order as it
 * closes, so the native serializer still writes the canonical text with no sorting copy.
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
    const bytes = typeof input === 'string' ? undefined : input;
    const native = nativeStrictCanonical(jsonText.text, bytes, resolvedLimits);
    if (native !== undefined) return native;
  }
  const { value, nativelySerializable } = parseStrictJsonInCanonicalOrder(jsonText, resolvedLimits, options);
  // The rare rest (integer-like or "__proto__" member names, deep nesting) takes the full path.
  const text = nativelySerializable ? JSON.stringify(value) : canonicalJson(value);
  return { value, document: documentOf(text) };
}
