/**
 * Lexical rules for attribute and element values, shared by parsers and builders. Each check
 * returns the value or a violation; the caller adds the element and attribute it concerns.
 *
 * Whitespace: XML Schema collapses whitespace around integers and booleans, so " 4 " is a valid
 * revision and is accepted. Date-times follow XEP-0082 exactly (no surrounding whitespace,
 * offset required: interp-31), and Base64 follows XEP-0300 (no whitespace at all).
 */
import { DateTimeError, parseDateTime } from '../datetime.ts';
import type { XmppDateTime } from '../datetime.ts';
import { isApiVersion, isIdentifier, toolNameViolation } from '../identifiers.ts';
import type { StanzaRule } from './errors.ts';
import { quoteValue } from './errors.ts';
import { isNCName, trimXmlWhitespace } from '../xml/xml-chars.ts';

export type Lexical<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly rule: StanzaRule; readonly detail: string };

function ok<T>(value: T): Lexical<T> {
  return { ok: true, value };
}

function bad<T>(rule: StanzaRule, detail: string): Lexical<T> {
  return { ok: false, rule, detail };
}

/**
 * xs:nonNegativeInteger (and, with `max`, the non-negative part of xs:int). Values beyond
 * Number.MAX_SAFE_INTEGER are valid XML but out of range for this codec: revisions grow by one
 * per committed change, so such a value signals a defect and is reported as such.
 */
export function lexNonNegativeInteger(text: string, max = Number.MAX_SAFE_INTEGER): Lexical<number> {
  const collapsed = trimXmlWhitespace(text);
  const match = /^([+-]?)([0-9]+)$/.exec(collapsed);
  if (match === null) return bad('invalid-integer', `${quoteValue(text)} is not a non-negative integer`);
  const [, sign, digits = ''] = match;
  const magnitude = BigInt(digits);
  if (sign === '-' && magnitude !== 0n) {
    return bad('invalid-integer', `${quoteValue(text)} is negative`);
  }
  if (magnitude > BigInt(max)) return bad('integer-out-of-range', `${quoteValue(text)} exceeds ${max}`);
  return ok(Number(magnitude));
}

/** xs:int maximum, the range XEP-0059 declares for max, index and count. */
export const XS_INT_MAX = 2 ** 31 - 1;

/** xs:boolean: true, false, 1 or 0. */
export function lexBoolean(text: string): Lexical<boolean> {
  switch (trimXmlWhitespace(text)) {
    case 'true':
    case '1':
      return ok(true);
    case 'false':
    case '0':
      return ok(false);
    default:
      return bad('invalid-boolean', `${quoteValue(text)} is not true, false, 1 or 0`);
  }
}

/** An XEP-0082 date-time with a mandatory offset (#cancellation, interp-31). */
export function lexDateTime(text: string): Lexical<XmppDateTime> {
  try {
    return ok(parseDateTime(text));
  } catch (error) {
    if (error instanceof DateTimeError) {
      return bad('invalid-datetime', `${quoteValue(text)} is not an XEP-0082 date-time (${error.rule})`);
    }
    throw error;
  }
}

export function lexIdentifier(text: string): Lexical<string> {
  return isIdentifier(text)
    ? ok(text)
    : bad('invalid-identifier', `${quoteValue(text)} is not 22-128 characters of [A-Za-z0-9._~-]`);
}

export function lexVersion(text: string): Lexical<string> {
  return isApiVersion(text)
    ? ok(text)
    : bad('invalid-version', `${quoteValue(text)} is not 1-64 characters of [A-Za-z0-9._~-]`);
}

export function lexToolName(text: string): Lexical<string> {
  const violation = toolNameViolation(text);
  return violation === undefined
    ? ok(text)
    : bad('invalid-tool-name', `tool name is not legal: ${violation}`);
}

/** Digest sizes in bytes for the IANA and XEP-0300 algorithm names whose output size is fixed. */
export const DIGEST_BYTES: Readonly<Record<string, number>> = {
  md5: 16,
  'sha-1': 20,
  'sha-224': 28,
  'sha-256': 32,
  'sha-384': 48,
  'sha-512': 64,
  'sha3-224': 28,
  'sha3-256': 32,
  'sha3-384': 48,
  'sha3-512': 64,
  'blake2b-256': 32,
  'blake2b-512': 64,
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * XEP-0300 hash content: RFC 4648 §4 Base64, padded, no whitespace, zero padding bits
 * (the canonical encoding), and the digest size the algorithm fixes when it is known.
 */
export function lexHashValue(text: string, algo: string): Lexical<Uint8Array> {
  if (!BASE64.test(text)) {
    return bad('invalid-base64', `${quoteValue(text)} is not padded Base64 without whitespace (RFC 4648 §4)`);
  }
  const digest = Buffer.from(text, 'base64');
  if (digest.toString('base64') !== text) {
    return bad(
      'invalid-base64',
      `${quoteValue(text)} has non-zero padding bits (XEP-0300 requires them zero)`,
    );
  }
  const expected = DIGEST_BYTES[algo];
  if (expected !== undefined && digest.length !== expected) {
    return bad('invalid-hash-length', `${algo} digests are ${expected} bytes; this one is ${digest.length}`);
  }
  return ok(new Uint8Array(digest));
}

/** The 'algo' attribute is an xs:NCName (XEP-0300 schema). */
export function lexHashAlgo(text: string): Lexical<string> {
  return isNCName(text) ? ok(text) : bad('invalid-attribute', `${quoteValue(text)} is not an NCName`);
}

/** One of a fixed set of tokens (an XSD enumeration). */
export function lexEnum<T extends string>(values: readonly T[]): (text: string) => Lexical<T> {
  return (text) =>
    (values as readonly string[]).includes(text)
      ? ok(text as T)
      : bad('invalid-attribute', `${quoteValue(text)} is not one of ${values.join(', ')}`);
}
