/**
 * RFC 8785 serialization: canonicalize 5.1.0's lib/canonicalize.js (Apache-2.0, LICENSE beside
 * it), run through this repository's prettier and otherwise unchanged. Vendored because the
 * package declares engines node >=22 while its code runs on our Node 20 (String#isWellFormed is
 * there since Node 20), so every install on the supported Node warned EBADENGINE; 4.0.0, the
 * last release that allows Node 20, recurses and overflows the stack on a 100000-deep value.
 * canonicalize.test.ts pins the file's hash: to update, format the new release's file the same
 * way and change the hash there.
 *
 * Throws on NaN, Infinity, lone surrogates and cycles; undefined for a value with no JSON form.
 */
export default function canonicalize(input: unknown): string | undefined;
