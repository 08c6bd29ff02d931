/**
 * Octetwise ordering of UTF-8 text, as the directory and tool listings require ("octetwise
 * ascending order", #list-agents; interp-02, interp-13). JavaScript's `<` and `localeCompare`
 * are wrong for this: `<` compares UTF-16 code units, which puts U+10000 (D800 DC00) before
 * U+E000, whereas UTF-8 puts EE 80 80 before F0 90 80 80.
 *
 * UTF-8 byte order equals code point order, so we compare code points and never encode. A lone
 * surrogate (which has no UTF-8 form; inputs should have been rejected earlier) orders by its value.
 */
export function compareUtf8(a: string, b: string): -1 | 0 | 1 {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    // Both indices stay in bounds, so codePointAt never returns undefined here.
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(j) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  if (restA === restB) return 0;
  return restA < restB ? -1 : 1;
}
