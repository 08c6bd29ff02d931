/**
 * RFC 8785 canonical bytes and XEP-0300 sha-256 Base64 hashes (#registration-flow, #canonical-json).
 * Callers pass values that already passed the strict I-JSON parse; canonicalize re-checks
 * lone surrogates and non-finite numbers and we surface those as errors, never as output.
 */
import { createHash } from 'node:crypto';
import canonicalize from './vendor/canonicalize/canonicalize.js';
import { HASH_ALGO_SHA256 } from '../namespaces.ts';
import type { JsonValue } from './json-value.ts';

/** The RFC 8785 serialization of a JSON value, as a JavaScript string. */
export function canonicalJson(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON serialization');
  return text;
}

/** The RFC 8785 canonical UTF-8 bytes: what is hashed and what <json/> must carry. */
export function canonicalBytes(value: JsonValue): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

/** SHA-256 of the bytes, Base64 with padding: the character data of an XEP-0300 <hash/>. */
export function sha256Base64(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

export interface CanonicalHash {
  readonly algo: typeof HASH_ALGO_SHA256;
  readonly value: string;
}

/** The canonical bytes and their hash together, so the two can never drift apart. */
export interface CanonicalDocument {
  readonly bytes: Buffer;
  readonly hash: CanonicalHash;
}

export function canonicalDocument(value: JsonValue): CanonicalDocument {
  const bytes = canonicalBytes(value);
  return { bytes, hash: { algo: HASH_ALGO_SHA256, value: sha256Base64(bytes) } };
}

/** Two JSON values are the same document when their canonical bytes are equal. */
export function canonicallyEqual(a: JsonValue, b: JsonValue): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
