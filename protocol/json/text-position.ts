/**
 * Line, column and byte offset of a rejection, computed only when one is reported so that
 * the parse itself never tracks lines. JSON whitespace has two line terminators, LF and CR;
 * CRLF counts once, as editors do.
 */
import type { JsonTextPosition } from './json-rejection.ts';

export interface LineAndColumn {
  readonly line: number;
  readonly column: number;
}

export function lineAndColumn(text: string, offset: number): LineAndColumn {
  const end = Math.min(offset, text.length);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * `text` is the decoded input; the byte offset is reported only when the input was bytes,
 * where the decoded text is well-formed and so re-encodes to exactly the input's prefix.
 */
export function positionIn(text: string, offset: number, inputWasBytes: boolean): JsonTextPosition {
  const byteOffset = inputWasBytes ? Buffer.byteLength(text.slice(0, offset), 'utf8') : undefined;
  return { offset, byteOffset, ...lineAndColumn(text, offset) };
}
