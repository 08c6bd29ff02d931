/**
 * When a committed artifact "equals" its spec block. The spec is authoritative for content,
 * not for incidental whitespace (the XEP wraps blocks in CDATA with a leading newline, editors
 * strip trailing blanks), so both sides are compared after this normalization:
 *   1. drop a leading byte-order mark;
 *   2. CRLF and lone CR become LF;
 *   3. spaces and tabs at the end of every line are removed;
 *   4. blank lines at the start and end are removed.
 * Indentation, inner blank lines and everything else stay significant.
 */

export function normalizeArtifactText(text: string): string {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text)
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''));
  let first = 0;
  let last = lines.length;
  while (first < last && lines[first] === '') first += 1;
  while (last > first && lines[last - 1] === '') last -= 1;
  return lines.slice(first, last).join('\n');
}

export interface TextDifference {
  /** 1-based line in the normalized texts. */
  readonly line: number;
  /** The differing lines; undefined where one text has already ended. */
  readonly expected: string | undefined;
  readonly actual: string | undefined;
}

/** The first differing line of the two normalized texts, or undefined when they are equal. */
export function firstDifference(expected: string, actual: string): TextDifference | undefined {
  const a = normalizeArtifactText(expected).split('\n');
  const b = normalizeArtifactText(actual).split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return { line: i + 1, expected: a[i], actual: b[i] };
  }
  return undefined;
}

/** A short, single-line rendering of a difference for reports. */
export function describeDifference(difference: TextDifference): string {
  const show = (line: string | undefined): string =>
    line === undefined ? '(end of text)' : JSON.stringify(clip(line));
  return `first difference at normalized line ${difference.line}: spec has ${show(difference.expected)}, file has ${show(difference.actual)}`;
}

function clip(line: string): string {
  return line.length <= 100 ? line : `${line.slice(0, 100)}…`;
}
