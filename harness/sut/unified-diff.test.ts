import { describe, expect, it } from 'vitest';
import { applyFileDiff, parseUnifiedDiff, type FileDiff } from './unified-diff.ts';

const SOURCE = `export function reached(now: number, deadline: number | undefined): boolean {
  const slack = 0;
  return deadline !== undefined && now + slack >= deadline;
}

export const LIMIT = 100;
`;

const DIFF = `A note before the diff is not part of it.

--- a/src/deadline.ts
+++ b/src/deadline.ts
@@ -1,4 +1,4 @@ export function reached(
 export function reached(now: number, deadline: number | undefined): boolean {
   const slack = 0;
-  return deadline !== undefined && now + slack >= deadline;
+  return deadline !== undefined && now + slack > deadline;
 }
`;

const MUTATED = SOURCE.replace('>= deadline', '> deadline');

function only(diff: string): FileDiff {
  const [file, ...rest] = parseUnifiedDiff(diff);
  expect(rest).toEqual([]);
  if (file === undefined) throw new Error('no file in the diff');
  return file;
}

function applied(text: string, diff = DIFF): string {
  const result = applyFileDiff(text, only(diff));
  if (!result.ok) throw new Error(result.reason);
  return result.text;
}

describe('unified diffs', () => {
  it('read the file and hunks of a git-style diff, ignoring what stands before it', () => {
    expect(only(DIFF)).toEqual({
      file: 'src/deadline.ts',
      hunks: [
        {
          header: '@@ -1,4 +1,4 @@ export function reached(',
          lines: [
            ' export function reached(now: number, deadline: number | undefined): boolean {',
            '   const slack = 0;',
            '-  return deadline !== undefined && now + slack >= deadline;',
            '+  return deadline !== undefined && now + slack > deadline;',
            ' }',
          ],
        },
      ],
    });
  });

  it('refuse a hunk whose lines do not match its header, naming the line', () => {
    expect(() => parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-x\n+y\n')).toThrow(
      /line 6: hunk .* ends early/,
    );
    expect(() => parseUnifiedDiff('--- a/f\n@@ -1 +1 @@\n')).toThrow(/line 1: .*"\+\+\+ "/);
    expect(() => parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1 +1 @@\n*x\n')).toThrow(/unexpected line/);
  });

  it('apply to the text they were written against, exactly', () => {
    expect(applied(SOURCE)).toBe(MUTATED);
  });

  it('apply to the same code reformatted: rewrapped, re-indented, trailing commas, wrapping parentheses', () => {
    const reformatted = `export function reached(
    now: number,
    deadline: number | undefined,
): boolean {
    const slack = 0;
    return (
        deadline !== undefined &&
        now + slack >= deadline
    );
}

export const LIMIT = 100;
`;
    // The hunk's lines replace the text they matched, context included, in the diff's own layout.
    expect(applied(reformatted)).toBe(MUTATED);
  });

  it('apply when an edit next to the hunk changed its outer context lines', () => {
    const edited = SOURCE.replace(
      'export function reached(now: number',
      'export function isReached(now: number',
    );
    expect(applied(edited)).toBe(MUTATED.replace('function reached(', 'function isReached('));
  });

  it('drop context only where the hunk has it, as at the top of a file', () => {
    const diff =
      '--- a/f.ts\n+++ b/f.ts\n@@ -1,3 +1,3 @@\n-const a = 1;\n+const a = 2;\n const b = 1;\n const c = 1;\n';
    expect(applied('const a = 1;\nconst b = 1;\nconst c = 9;\n', diff)).toBe(
      'const a = 2;\nconst b = 1;\nconst c = 9;\n',
    );
  });

  it('keep the file’s own comma where a hunk ends inside a list that a reformat joined', () => {
    const call = 'const value = pick(\n  first,\n  second,\n);\n';
    const diff =
      '--- a/f.ts\n+++ b/f.ts\n@@ -1,3 +1,3 @@\n const value = pick(\n-  first,\n+  other,\n   second,\n';
    expect(applied(call, diff)).toBe('const value = pick(\n  other,\n  second,\n);\n');
    expect(applied('const value = pick(first, second);\n', diff)).toBe(
      'const value = pick(\n  other,\n  second);\n',
    );
  });

  it('fail, naming the hunk, when its text is gone, changed or ambiguous', () => {
    const gone = applyFileDiff(SOURCE.replace('now + slack >= deadline', 'now >= deadline'), only(DIFF));
    expect(gone).toEqual({
      ok: false,
      hunk: 0,
      reason: expect.stringMatching(/no longer occurs/) as unknown,
    });
    const twice = applyFileDiff(`${SOURCE}\n${SOURCE}`, only(DIFF));
    expect(twice).toEqual({ ok: false, hunk: 0, reason: expect.stringMatching(/more than once/) as unknown });
  });

  it('never match across a bracket the hunk does not hold', () => {
    // Wrapping aside, the hunk's text is there, but the file's wrapping `(` falls inside the
    // match and its `)` outside: replacing the match would leave a `)` that closes nothing.
    const diff = '--- a/f.ts\n+++ b/f.ts\n@@ -1 +1 @@\n-y = a && b\n+y = a || b\n';
    const result = applyFileDiff('y = (\n  a && b\n);\n', only(diff));
    expect(result).toEqual({ ok: false, hunk: 0, reason: expect.stringMatching(/bracket/) as unknown });
  });
});
