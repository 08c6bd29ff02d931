/**
 * Turns parser input into checked text: the byte limit, the encoding (UTF-8 only, no byte
 * order mark: RFC 8259 §8.1, #json-encoding) and, for string input, where the first unpaired
 * surrogate sits, since a JavaScript string can hold one that no UTF-8 text can.
 */
import { JsonRejection } from './json-rejection.ts';
import { lineAndColumn, positionIn } from './text-position.ts';
import { isWellFormed } from './well-formed.ts';

export interface JsonText {
  readonly text: string;
  readonly inputWasBytes: boolean;
  /** Index of the first unpaired surrogate code unit in `text`, or -1 when there is none. */
  readonly firstLoneSurrogate: number;
}

const LONE_SURROGATE = /\p{Cs}/u;

export function toJsonText(input: Uint8Array | string, maxBytes: number): JsonText {
  return typeof input === 'string' ? checkString(input, maxBytes) : decodeBytes(input, maxBytes);
}

function checkString(text: string, maxBytes: number): JsonText {
  // A UTF-16 code unit takes one to three UTF-8 bytes, so the exact count is rarely needed.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes)) {
    throw new JsonRejection(
      'limit-bytes',
      `JSON text exceeds the limit of ${maxBytes} UTF-8 bytes`,
      positionIn(text, charIndexOfUtf8Byte(text, maxBytes), false),
    );
  }
  if (text.charCodeAt(0) === 0xfeff) {
    throw new JsonRejection(
      'byte-order-mark',
      'byte order mark before the JSON text',
      positionIn(text, 0, false),
    );
  }
  const loneSurrogate = isWellFormed(text) ? null : LONE_SURROGATE.exec(text);
  return {
    text,
    inputWasBytes: false,
    firstLoneSurrogate: loneSurrogate === null ? -1 : loneSurrogate.index,
  };
}

function decodeBytes(bytes: Uint8Array, maxBytes: number): JsonText {
  if (bytes.length > maxBytes) {
    const prefix = completeCharacters(bytes.subarray(0, maxBytes));
    throw new JsonRejection('limit-bytes', `JSON text exceeds the limit of ${maxBytes} UTF-8 bytes`, {
      offset: prefix.length,
      byteOffset: maxBytes,
      ...lineAndColumn(prefix, prefix.length),
    });
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new JsonRejection(
      'byte-order-mark',
      'byte order mark before the JSON text',
      positionIn('', 0, true),
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const validPrefix = textBeforeFirstInvalidSequence(bytes);
    throw new JsonRejection('invalid-utf8', 'invalid UTF-8 byte sequence', {
      offset: validPrefix.length,
      byteOffset: Buffer.byteLength(validPrefix, 'utf8'),
      ...lineAndColumn(validPrefix, validPrefix.length),
    });
  }
  return { text, inputWasBytes: true, firstLoneSurrogate: -1 };
}

/** The index of the code unit whose UTF-8 encoding contains byte `byteIndex`. */
function charIndexOfUtf8Byte(text: string, byteIndex: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + width > byteIndex) return i;
    bytes += width;
    i += pair ? 2 : 1;
  }
  return i;
}

/** Decodes every complete character, holding back a sequence cut off at the end. */
function completeCharacters(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: true });
}

function decodesUpTo(bytes: Uint8Array, length: number): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, length), {
      stream: true,
    });
  } catch {
    return undefined;
  }
}

/**
 * Error path only. The platform decoder defines validity, so rather than re-implement UTF-8
 * we binary-search the longest prefix that streams without error (a prefix of a valid
 * prefix is valid); the invalid sequence starts where its complete characters end.
 */
function textBeforeFirstInvalidSequence(bytes: Uint8Array): string {
  let longestValid = 0;
  let shortestInvalid = bytes.length + 1;
  while (shortestInvalid - longestValid > 1) {
    const middle = (longestValid + shortestInvalid) >>> 1;
    if (decodesUpTo(bytes, middle) === undefined) shortestInvalid = middle;
    else longestValid = middle;
  }
  return decodesUpTo(bytes, longestValid) ?? '';
}
