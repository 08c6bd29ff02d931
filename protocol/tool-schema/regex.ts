/**
 * Pattern syntax (#schemas): JSON Schema regular expressions are ECMA-262 with Unicode semantics,
 * which in JavaScript is the `u` flag — the same flag the evaluator compiles them with, so what is
 * accepted here is exactly what evaluation will run. Matching time is bounded elsewhere (the
 * validation worker's budget); this only decides whether the pattern is a regular expression at all.
 */

/** Why the source is not an ECMA-262 `u` pattern, without quoting it; undefined when it is one. */
export function regexSyntaxError(source: string): string | undefined {
  try {
    new RegExp(source, 'u');
    return undefined;
  } catch (error) {
    // V8 reports "Invalid regular expression: /<source>/u: <reason>"; keep only the reason.
    const text = error instanceof Error ? error.message : '';
    const marker = text.lastIndexOf('/u: ');
    const reason = marker === -1 ? 'syntax error' : text.slice(marker + 4, marker + 4 + 120);
    return `not an ECMA-262 regular expression with the u flag: ${reason}`;
  }
}
