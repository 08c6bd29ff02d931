/**
 * Why a JSON text was refused, and where. The rule decides the XMPP error (#json-encoding,
 * #errors, interp-11); the message is for logs and test output only: the spec forbids
 * reflecting rejected JSON in a response, so a gateway maps `classification` to a condition
 * and never copies the message onto the wire. Messages still quote at most a short excerpt.
 */

export type JsonRejectionRule =
  | 'invalid-utf8'
  | 'byte-order-mark'
  | 'empty'
  | 'syntax'
  | 'trailing-data'
  | 'duplicate-member'
  | 'lone-surrogate'
  | 'number-overflow'
  | 'number-underflow'
  | 'number-inexact'
  | 'limit-bytes'
  | 'limit-depth'
  | 'limit-string-length'
  | 'limit-object-members'
  | 'limit-array-elements'
  | 'limit-values';

/**
 * - 'ijson': fails the RFC 8785 / I-JSON prerequisites → <not-acceptable/> (MUST, #json-encoding).
 * - 'syntax': not JSON at all → <bad-request/> or <not-acceptable/> (either passes, position #11).
 * - 'limit': a documented resource limit → <resource-constraint/>, after authorization.
 * - 'encoding': the bytes are not a UTF-8 JSON text; reachable only where JSON arrives as
 *   bytes (files, tooling), since XML character data is already decoded.
 */
export type JsonRejectionClass = 'ijson' | 'syntax' | 'limit' | 'encoding';

export const REJECTION_CLASSIFICATION: Readonly<Record<JsonRejectionRule, JsonRejectionClass>> =
  Object.freeze({
    'invalid-utf8': 'encoding',
    'byte-order-mark': 'encoding',
    empty: 'syntax',
    syntax: 'syntax',
    'trailing-data': 'syntax',
    'duplicate-member': 'ijson',
    'lone-surrogate': 'ijson',
    'number-overflow': 'ijson',
    'number-underflow': 'ijson',
    'number-inexact': 'ijson',
    'limit-bytes': 'limit',
    'limit-depth': 'limit',
    'limit-string-length': 'limit',
    'limit-object-members': 'limit',
    'limit-array-elements': 'limit',
    'limit-values': 'limit',
  });

/** Where in the input a rejection applies. */
export interface JsonTextPosition {
  /** UTF-16 code-unit index into the decoded text. */
  readonly offset: number;
  /** UTF-8 byte index into the input, when the input was bytes. */
  readonly byteOffset: number | undefined;
  /** 1-based; LF, CR and CRLF each end a line. */
  readonly line: number;
  /** 1-based, in UTF-16 code units from the start of the line. */
  readonly column: number;
}

export class JsonRejection extends Error implements JsonTextPosition {
  override readonly name = 'JsonRejection';
  readonly classification: JsonRejectionClass;
  readonly offset: number;
  readonly byteOffset: number | undefined;
  readonly line: number;
  readonly column: number;

  constructor(
    readonly rule: JsonRejectionRule,
    description: string,
    position: JsonTextPosition,
  ) {
    super(`${description} at line ${position.line}, column ${position.column}`);
    this.classification = REJECTION_CLASSIFICATION[rule];
    this.offset = position.offset;
    this.byteOffset = position.byteOffset;
    this.line = position.line;
    this.column = position.column;
  }
}

const EXCERPT_CODE_UNITS = 32;

/** A JSON-quoted, length-bounded excerpt of input text, safe to put in a log line. */
export function quotedExcerpt(text: string): string {
  if (text.length <= EXCERPT_CODE_UNITS) return JSON.stringify(text);
  let end = EXCERPT_CODE_UNITS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${JSON.stringify(text.slice(0, end))}…`;
}
