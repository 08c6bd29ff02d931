/**
 * What an error text must never carry (#errors: no stack traces, no secrets, no other
 * principal's data): traces of the implementation — stack frames, source file paths, installed
 * package paths — that no honest diagnostic needs. The patterns are narrow on purpose: a JSON
 * pointer (`/steps/0`) or a URL in a message is legitimate, a `file.ts:12:5` frame is not.
 */

const UNSAFE_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['a stack frame', /\bat\s+[^\s()]+\s+\([^\s()]+:\d+:\d+\)/],
  ['a stack frame', /(?:^|\n)\s*at\s+[^\s()]+:\d+:\d+/],
  ['a Python traceback', /Traceback \(most recent call last\)/],
  ['a JVM stack frame', /\bat\s+[\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)/],
  [
    'a source file path',
    /(?:^|[\s"'(=:])(?:[A-Za-z]:\\|\/)?(?:[\w.@+-]+[\\/])+[\w.@+-]+\.(?:ts|mts|cts|js|mjs|cjs|lua|py|rb|java|kt|go|rs|cs|php)(?::\d+)?\b/,
  ],
  ['an installed package path', /node_modules|site-packages/],
  ['a file URL', /file:\/\//],
];

/** The first implementation trace `text` carries, as a description, or undefined when none. */
export function unsafeTrace(text: string): string | undefined {
  for (const [what, pattern] of UNSAFE_PATTERNS) {
    const match = pattern.exec(text);
    if (match !== null) return `${what} (${JSON.stringify(match[0].trim())})`;
  }
  return undefined;
}
