/**
 * Member names in RFC 8785 order (§3.2.3: UTF-16 code units, which is what `<` and Array#sort's
 * default comparison compare), sorted in place: canonical.ts and native-strict-canonical.ts.
 */

/** Bounds the insertion sort's quadratic worst case (records of 16 Ki members are allowed). */
const INSERTION_SORT_MAX = 24;

/**
 * UTF-16 code-unit order, in place. Manifest records have a handful of members, where an
 * insertion sort with `<` costs about half of Array#sort's default comparison (measured on
 * bench/canonical-hash.ts's manifest); larger ones keep Array#sort.
 */
export function sortCodeUnitOrder(names: string[]): void {
  if (names.length > INSERTION_SORT_MAX) {
    names.sort();
    return;
  }
  for (let index = 1; index < names.length; index++) {
    const name = names[index] ?? '';
    let at = index - 1;
    for (; at >= 0; at--) {
      const before = names[at] ?? '';
      if (before <= name) break;
      names[at + 1] = before;
    }
    names[at + 1] = name;
  }
}
