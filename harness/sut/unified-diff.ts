/**
 * Unified diffs (the `git diff` / `diff -u` format) read and applied with tolerance, so that a
 * patch written against the gateway survives a reformat of the code it changes. A hunk is found
 * by its old side (context and removed lines) anywhere in the file (its line numbers are only
 * for people), compared without what prettier changes when it rewraps code: whitespace and line
 * breaks, a trailing comma before a closing bracket, the parentheses around a broken expression.
 * When the whole old side is not there, up to two context lines are dropped from each end (like
 * `patch --fuzz 2` or `git apply -C1`), so an edit next to the hunk does not break it either.
 * What is found must occur exactly once and not straddle a bracket: an ambiguous hunk fails like
 * a missing one, and never lands on the wrong code.
 */

export interface Hunk {
  /** The `@@ -a,b +c,d @@ …` line, for messages. */
  readonly header: string;
  /** The hunk's lines, each starting with ' ' (context), '-' (removed) or '+' (added). */
  readonly lines: readonly string[];
}

export interface FileDiff {
  /** Path relative to the tree's root (the `+++ b/…` name without its `b/`). */
  readonly file: string;
  readonly hunks: readonly Hunk[];
}

export type DiffResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly hunk: number; readonly reason: string };

/** Context lines a hunk may lose at each end and still apply. */
const MAX_FUZZ = 2;

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** Reads every file's hunks; text before the first `--- ` line (a commit message, a note) is ignored. */
export function parseUnifiedDiff(text: string): FileDiff[] {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop(); // the last line's newline ends it, it starts no line
  const files: FileDiff[] = [];
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`unified diff, line ${String(at + 1)}: ${why}`);
  };
  while (at < lines.length) {
    if (!(lines[at] ?? '').startsWith('--- ')) {
      at += 1;
      continue;
    }
    const target = lines[at + 1] ?? '';
    if (!target.startsWith('+++ ')) fail('a "--- " line without its "+++ " line');
    const path = target.slice(4).split('\t')[0] ?? '';
    if (path === '/dev/null') fail('deleting a file is not supported');
    at += 2;
    const hunks: Hunk[] = [];
    while ((lines[at] ?? '').startsWith('@@')) hunks.push(readHunk());
    if (hunks.length === 0) fail(`no hunk for ${path}`);
    files.push({ file: path.startsWith('b/') ? path.slice(2) : path, hunks });
  }
  return files;

  function readHunk(): Hunk {
    const header = lines[at] ?? '';
    const counts = HUNK_HEADER.exec(header) ?? fail(`not a hunk header: ${header}`);
    let oldLeft = Number(counts[1] ?? 1);
    let newLeft = Number(counts[2] ?? 1);
    const body: string[] = [];
    at += 1;
    while (oldLeft > 0 || newLeft > 0) {
      if (at >= lines.length) fail(`hunk ${header} ends early`);
      // An editor that strips trailing blanks turns a blank context line (' ') into ''.
      const line = lines[at] === '' ? ' ' : (lines[at] ?? '');
      at += 1;
      if (line.startsWith('\\')) continue; // "\ No newline at end of file": whitespace is ignored anyway
      const kind = line[0];
      if (kind !== ' ' && kind !== '-' && kind !== '+') fail(`unexpected line in hunk ${header}`);
      if (kind !== '+') oldLeft -= 1;
      if (kind !== '-') newLeft -= 1;
      body.push(line);
    }
    if (oldLeft < 0 || newLeft < 0) fail(`hunk ${header} is longer than its header says`);
    while ((lines[at] ?? '').startsWith('\\')) at += 1;
    return { header, lines: body };
  }
}

/** Applies every hunk of `diff` to `text` in order, or says which hunk no longer applies and why. */
export function applyFileDiff(text: string, diff: FileDiff): DiffResult {
  let current = text;
  for (const [index, hunk] of diff.hunks.entries()) {
    const applied = applyHunk(current, hunk.lines);
    if (typeof applied !== 'string') return { ok: false, hunk: index, reason: applied.reason };
    current = applied;
  }
  return { ok: true, text: current };
}

function applyHunk(text: string, lines: readonly string[]): string | { reason: string } {
  const haystack = normalized(text);
  let found = 0;
  for (let fuzz = 0; fuzz <= MAX_FUZZ; fuzz += 1) {
    const trimmed = trimContext(lines, fuzz);
    if (trimmed === undefined) return { reason: 'the hunk changes nothing' };
    const [expected, replacement] = withoutSharedTrailingComma(oldSide(trimmed), newSide(trimmed).trim());
    const needle = normalized(expected);
    if (needle.text === '') return { reason: 'the hunk has nothing to anchor it (only blank lines)' };
    const first = haystack.text.indexOf(needle.text);
    if (first === -1) continue;
    found = haystack.text.includes(needle.text, first + 1) ? 2 : 1;
    if (found > 1) break;
    const start = haystack.origin[first] ?? 0;
    const end = (haystack.origin[first + needle.text.length - 1] ?? 0) + 1;
    if (parenBalance(text.slice(start, end)) !== parenBalance(expected)) {
      return { reason: 'it matches only across a bracket the file opens or closes elsewhere' };
    }
    return text.slice(0, start) + replacement + text.slice(end);
  }
  return {
    reason: found > 1 ? 'its text occurs more than once' : 'its text no longer occurs (whitespace aside)',
  };
}

/**
 * The hunk without up to `fuzz` context lines at each end (fewer where it has fewer, as at the
 * top of a file); undefined when that would leave only context.
 */
function trimContext(lines: readonly string[], fuzz: number): readonly string[] | undefined {
  const isChange = (line: string) => !line.startsWith(' ');
  const firstChange = lines.findIndex(isChange);
  if (firstChange === -1) return undefined;
  const leading = Math.min(fuzz, firstChange);
  const trailing = Math.min(fuzz, lines.length - 1 - lines.findLastIndex(isChange));
  return lines.slice(leading, lines.length - trailing);
}

/** What the hunk expects to find: its context and removed lines. */
function oldSide(lines: readonly string[]): string {
  return lines
    .filter((line) => !line.startsWith('+'))
    .map((line) => line.slice(1))
    .join('\n');
}

/** What the hunk leaves: its context and added lines. */
function newSide(lines: readonly string[]): string {
  return lines
    .filter((line) => !line.startsWith('-'))
    .map((line) => line.slice(1))
    .join('\n');
}

/**
 * A hunk ending inside an argument list ends with a comma that a reformat may have dropped
 * (the list joined onto one line): the file's own comma, or its absence, is kept instead.
 */
function withoutSharedTrailingComma(expected: string, replacement: string): [string, string] {
  const trailing = /,\s*$/;
  if (!trailing.test(expected) || !trailing.test(replacement)) return [expected, replacement];
  return [expected.replace(trailing, ''), replacement.replace(trailing, '')];
}

/**
 * `text` without what a formatter adds or removes: every whitespace character, a trailing comma
 * before a closing bracket, and the parentheses prettier wraps around an expression it breaks
 * over lines (`return (` or `= (` ending a line, closed by a `)` that starts one). Also where each
 * remaining character came from.
 */
function normalized(text: string): { text: string; origin: number[] } {
  const kept: string[] = [];
  const origin: number[] = [];
  const skipped = new Set<number>();
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    if (/\s/.test(char) || skipped.has(index)) continue;
    if (char === ',' && /^\s*[)\]}]/.test(text.slice(index + 1, index + 200))) continue;
    if (char === '(' && isWrappingParen(text, index)) {
      const close = closingParen(text, index);
      if (close !== undefined) {
        skipped.add(close);
        continue;
      }
    }
    kept.push(char);
    origin.push(index);
  }
  return { text: kept.join(''), origin };
}

/** A `(` after `return`, `=` or `=>` that ends its line: prettier's, not the code's. */
function isWrappingParen(text: string, index: number): boolean {
  const lineEnd = text.indexOf('\n', index);
  if (text.slice(index + 1, lineEnd === -1 ? text.length : lineEnd).trim() !== '') return false;
  return /(?:\breturn|[^=!<>]=|=>)\s*$/.test(text.slice(Math.max(0, index - 20), index));
}

/** The `)` that closes the `(` at `open`, when it starts its line (as prettier puts it). */
function closingParen(text: string, open: number): number | undefined {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    const char = text[index];
    if (char === '(') depth += 1;
    if (char !== ')') continue;
    depth -= 1;
    if (depth > 0) continue;
    const lineStart = text.lastIndexOf('\n', index) + 1;
    return text.slice(lineStart, index).trim() === '' ? index : undefined;
  }
  return undefined;
}

/** `(` minus `)`: a span whose balance differs from the hunk's would leave the code broken. */
function parenBalance(text: string): number {
  let balance = 0;
  for (const char of text) balance += char === '(' ? 1 : char === ')' ? -1 : 0;
  return balance;
}
