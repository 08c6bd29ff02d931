/**
 * What a sample of identifiers can show about their randomness (#invocation: 128 bits of
 * unpredictability). Black-box statistics only detect gross failures (spec positions, section I),
 * so two questions are asked: whether consecutive IDs differ in so few characters that a
 * counter or a clock must have made them (evidence for a MUST failure), and roughly how many
 * bits a larger sample spreads over its character positions (a warning only). A fixed or time
 * prefix before the random part changes neither answer: its positions add nothing. Which bit
 * positions earlier IDs predict, with a computed false-positive bound, is the predictor battery's
 * question (identifier-predictability.ts).
 */

/** The identifier grammar's alphabet, [A-Za-z0-9._~-]: no position carries more than log2 of it. */
export const IDENTIFIER_ALPHABET_SIZE = 66;

/** The IDs that occur more than once. */
export function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) twice.add(id);
    seen.add(id);
  }
  return [...twice];
}

/**
 * How many character positions differ somewhere in the sample: the IDs aligned at their start
 * and at their end, whichever shows more (a counter may grow in length).
 */
export function varyingPositions(ids: readonly string[]): number {
  if (ids.length < 2) return 0;
  const shortest = Math.min(...ids.map((id) => id.length));
  const count = (at: (id: string, position: number) => string | undefined): number => {
    let varying = 0;
    for (let position = 0; position < shortest; position++) {
      const first = at(ids[0] ?? '', position);
      if (ids.some((id) => at(id, position) !== first)) varying++;
    }
    return varying;
  };
  const fromStart = count((id, position) => id[position]);
  const fromEnd = count((id, position) => id[id.length - 1 - position]);
  // Positions beyond the shortest ID's length exist only in some IDs: they vary.
  return Math.max(fromStart, fromEnd) + (Math.max(...ids.map((id) => id.length)) - shortest);
}

/**
 * The alphabet size K that makes `distinct` the expected number of different symbols among `draws`
 * uniform draws (K(1 − (1 − 1/K)^draws) = distinct), capped at the grammar's alphabet.
 */
export function estimatedSymbols(distinct: number, draws: number): number {
  if (distinct <= 1) return 1;
  const expected = (symbols: number): number => symbols * (1 - (1 - 1 / symbols) ** draws);
  if (expected(IDENTIFIER_ALPHABET_SIZE) <= distinct) return IDENTIFIER_ALPHABET_SIZE;
  let low = distinct;
  let high = IDENTIFIER_ALPHABET_SIZE;
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    if (expected(middle) < distinct) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * A rough estimate of the random bits the IDs carry: over the largest group of IDs of one
 * length, the sum per position of log2 of the alphabet its symbols seem drawn from. Undefined
 * for a group of fewer than `minimum` IDs, too small to say anything.
 */
export function estimatedBits(ids: readonly string[], minimum = 32): number | undefined {
  const byLength = new Map<number, string[]>();
  for (const id of ids) byLength.set(id.length, [...(byLength.get(id.length) ?? []), id]);
  const group = [...byLength.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  if (group.length < minimum) return undefined;
  const length = group[0]?.length ?? 0;
  let bits = 0;
  for (let position = 0; position < length; position++) {
    const distinct = new Set(group.map((id) => id[position])).size;
    bits += Math.log2(estimatedSymbols(distinct, group.length));
  }
  return bits;
}
