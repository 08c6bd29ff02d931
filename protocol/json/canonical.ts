/**
 * RFC 8785 canonical bytes and XEP-0300 sha-256 Base64 hashes (#registration-flow, #canonical-json).
 * Callers pass values that already passed the strict I-JSON parse; canonicalize re-checks
 * lone surrogates and non-finite numbers and we surface those as errors, never as output.
 */
import { createHash } from 'node:crypto';
import canonicalize from './vendor/canonicalize/canonicalize.js';
import { HASH_ALGO_SHA256 } from '../namespaces.ts';
import { sortCodeUnitOrder } from './code-unit-order.ts';
import type { JsonValue } from './json-value.ts';
import { isWellFormed } from './well-formed.ts';

/** The RFC 8785 serialization of a JSON value, as a JavaScript string. */
export function canonicalJson(value: JsonValue): string {
  const sorted = sortedPlainCopy(value);
  if (sorted !== undefined) return JSON.stringify(sorted);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON serialization');
  return text;
}

/**
 * The fast path (issue 25 budgets the strict hash of a 1 MB manifest against JSON.parse). For
 * plain JSON values RFC 8785 is JSON.stringify (§3.2.2 takes the number and string forms from
 * ECMAScript) with every object's members in UTF-16 code-unit order (§3.2.3), so a copy whose
 * objects were built in that order lets the native serializer do the work, and its flat string
 * converts to UTF-8 without first flattening a rope. V8 enumerates integer-like member names
 * first and in numeric order, whatever the insertion order, and "__proto__" cannot be assigned
 * as a member: values holding either, and anything but plain JSON (lone surrogates, non-finite
 * numbers, toJSON, boxed values, deep nesting), go to the
 * canonicalize library, which gives them the full treatment and its errors.
 */
class NotPlainJson extends Error {}
/** Thrown from any depth to leave the fast path; made once, as it is control flow, not a failure. */
const NOT_PLAIN = new NotPlainJson('not plain JSON');

/**
 * Deeper values go to the library, which serializes without recursion: the copy and the native
 * serializer both recurse. Received JSON is held far below this (json-limits.ts maxDepth).
 */
const MAX_FAST_DEPTH = 512;

/** A canonical string of digits: a name V8 may treat as an array index. */
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

function sortedPlainCopy(value: unknown): unknown {
  try {
    return sortedCopy(value, 0);
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  }
}

function sortedCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw NOT_PLAIN;
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return value;
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth === MAX_FAST_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index += 1) copy[index] = sortedCopy(value[index], depth + 1);
    return copy;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
  const members = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  const names = Object.keys(members);
  sortCodeUnitOrder(names);
  for (const name of names) {
    if (name === '__proto__' || INTEGER_LIKE.test(name) || !isWellFormed(name)) throw NOT_PLAIN;
    copy[name] = sortedCopy(members[name], depth + 1);
  }
  return copy;
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
  return documentOf(canonicalJson(value));
}

/** The document of a text that is already canonical (strict-canonical.ts makes one). */
export function documentOf(canonicalText: string): CanonicalDocument {
  return canonicalBytesDocument(Buffer.from(canonicalText, 'utf8'));
}

/** The document of bytes that are already canonical. */
export function canonicalBytesDocument(bytes: Buffer): CanonicalDocument {
  return { bytes, hash: { algo: HASH_ALGO_SHA256, value: sha256Base64(bytes) } };
}

/** Two JSON values are the same document when their canonical bytes are equal. */
export function canonicallyEqual(a: JsonValue, b: JsonValue): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
