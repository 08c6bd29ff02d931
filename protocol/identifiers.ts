/**
 * Identifier grammars (#invocation, #namespaces) and the CSPRNG identifier generator.
 */
import { randomFillSync } from 'node:crypto';

/** Request, task, event and input-request IDs: 22-128 chars of [A-Za-z0-9._~-] (#invocation). */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9._~-]{22,128}$/;
/** Endpoint API versions: 1-64 chars of the same alphabet, compared exactly (#namespaces). */
export const API_VERSION_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

export function isIdentifier(value: string): boolean {
  return IDENTIFIER_PATTERN.test(value);
}

export function isApiVersion(value: string): boolean {
  return API_VERSION_PATTERN.test(value);
}

/** Random bytes per generated ID: 16 bytes = 128 bits, the spec's floor (#invocation, #security). */
const ID_RANDOM_BYTES = 18;

/**
 * CSPRNG output is drawn in blocks and handed out in ID-sized slices that are never reused: one
 * call into OpenSSL per 227 identifiers instead of one each (a task admission generates several,
 * bench/admission). Node's randomUUID pools its randomness the same way.
 */
const POOL_BYTES = ID_RANDOM_BYTES * 227;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomSlice(): Buffer {
  if (poolOffset + ID_RANDOM_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + ID_RANDOM_BYTES);
  poolOffset += ID_RANDOM_BYTES;
  return slice;
}

/**
 * A fresh identifier: an optional prefix plus 144 CSPRNG bits in base64url (24 chars).
 * The prefix (e.g. "task-") is for human readers only and carries no entropy.
 */
export function generateIdentifier(prefix = ''): string {
  const id = prefix + randomSlice().toString('base64url');
  if (!isIdentifier(id)) {
    throw new RangeError(`identifier prefix ${JSON.stringify(prefix)} leaves the identifier grammar`);
  }
  return id;
}

/** Why a tool name is illegal, or undefined when it is legal (#namespaces, #manifest). */
export type ToolNameViolation = 'empty' | 'lone-surrogate' | 'xml-illegal-character';

/**
 * Tool names are exact MCP names: non-empty, and carrying only characters legal in XML 1.0
 * (the wire form). Compared code point by code point, never normalized. No length or
 * repertoire limit beyond that (interp-22).
 */
export function toolNameViolation(name: string): ToolNameViolation | undefined {
  if (name.length === 0) return 'empty';
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = name.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return 'lone-surrogate';
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return 'lone-surrogate';
    if (!isXmlCharUnit(unit)) return 'xml-illegal-character';
  }
  return undefined;
}

/** XML 1.0 Char production for a BMP code unit that is not a surrogate. */
export function isXmlCharUnit(unit: number): boolean {
  return unit === 0x9 || unit === 0xa || unit === 0xd || (unit >= 0x20 && unit <= 0xfffd);
}

/** True when every code point of the string is an XML 1.0 Char (and no surrogate is lone). */
export function isXmlLegalText(text: string): boolean {
  return text.length === 0 || toolNameViolation(text) === undefined;
}
