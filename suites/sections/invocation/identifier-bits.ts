/**
 * Identifiers decoded to the bits they carry, for the predictor battery
 * (suites/framework/predictability.ts): the part every identifier of the sample shares at its
 * start and end is dropped (a fixed text carries nothing), a trailing UUID is read as its 128
 * bits, and other bodies as digits of the smallest common alphabet that holds them (hex, base32,
 * base36, base58, base62, base64url, the grammar's 66), in that alphabet's own digit order so
 * that a counter or a clock stays arithmetic in the bits. A power-of-two alphabet gives its
 * digits' bits exactly uniform for uniform digits; another radix is read as one big number,
 * whose bits are uniform to within 2^(w − B) at weight 2^w of a B-bit range, so only the bits
 * at least 16 below the top are tested, each with that bias bound.
 */

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const omit = (alphabet: string, left: string): string =>
  Array.from(alphabet)
    .filter((c) => !left.includes(c))
    .join('');

/** Alphabets in their own digit order, smallest first. */
const ALPHABETS: readonly { readonly name: string; readonly digits: string }[] = [
  { name: 'decimal', digits: DIGITS },
  { name: 'hex', digits: `${DIGITS}abcdef` },
  { name: 'hex', digits: `${DIGITS}ABCDEF` },
  { name: 'base32', digits: `${UPPER}234567` },
  { name: 'base32', digits: `${LOWER}234567` },
  { name: 'base32 (Crockford)', digits: `${DIGITS}${omit(UPPER, 'ILOU')}` },
  { name: 'base32 (Crockford)', digits: `${DIGITS}${omit(LOWER, 'ilou')}` },
  { name: 'base36', digits: `${DIGITS}${LOWER}` },
  { name: 'base36', digits: `${DIGITS}${UPPER}` },
  { name: 'base58', digits: `${omit(DIGITS, '0')}${omit(UPPER, 'IO')}${omit(LOWER, 'l')}` },
  { name: 'base62', digits: `${DIGITS}${UPPER}${LOWER}` },
  { name: 'base64url', digits: `${UPPER}${LOWER}${DIGITS}-_` },
  { name: 'identifier grammar', digits: `-.${DIGITS}${UPPER}_${LOWER}~` },
];

const UUID_TAIL = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Bits this far below the top of a non-power-of-two range are tested: bias at most 2^-16. */
const TOP_GUARD_BITS = 16;

export interface DecodedIdentifiers {
  /** How the bodies were read, for the report. */
  readonly encoding: string;
  /** Indices into the input of the identifiers decoded (those of the most common length). */
  readonly kept: readonly number[];
  readonly rows: readonly (readonly number[])[];
  readonly bias: readonly number[];
  readonly wordEnds: readonly number[];
  /** log2 of how many bodies the alphabet allows: the most unpredictability they could carry. */
  readonly capacityBits: number;
  /**
   * The chance that a uniform symbol next to the dropped shared text was the same in every ID
   * (and so dropped with it): k^(1−n) at each end for n IDs over k symbols.
   */
  readonly sharedTextBound: number;
}

/** The fewest identifiers of one length the battery decodes: fewer say too little. */
export const MINIMUM_IDENTIFIERS = 16;

/** Undefined when fewer than `minimum` identifiers share a length or their bodies are empty. */
export function decodeIdentifiers(
  ids: readonly string[],
  minimum = MINIMUM_IDENTIFIERS,
): DecodedIdentifiers | undefined {
  const kept = mostCommonLength(ids);
  if (kept.length < minimum) return undefined;
  const group = kept.map((index) => ids[index] ?? '');
  const bodies = bodiesOf(group);
  if (bodies.texts.some((body) => body.length === 0)) return undefined;
  const alphabet = alphabetOf(bodies.texts);
  const radix = alphabet.digits.length;
  const digitBits = Math.log2(radix);
  const length = bodies.texts[0]?.length ?? 0;
  const described = `${bodies.description}, ${alphabet.name} digits`;
  const sharedTextBound = 2 * radix ** (1 - kept.length);
  if (Number.isInteger(digitBits)) {
    const rows = bodies.texts.map((body) =>
      Array.from(body).flatMap((symbol) => bitsOf(alphabet.digits.indexOf(symbol), digitBits)),
    );
    const width = length * digitBits;
    return {
      encoding: described,
      kept,
      rows,
      bias: rows[0]?.map(() => 0) ?? [],
      wordEnds: boundaries(width, [digitBits, 8]),
      capacityBits: width,
      sharedTextBound,
    };
  }
  const rangeBits = length * digitBits;
  const width = Math.floor(rangeBits) - TOP_GUARD_BITS;
  if (width <= 0) return undefined;
  const rows = bodies.texts.map((body) => {
    let value = 0n;
    for (const symbol of body) value = value * BigInt(radix) + BigInt(alphabet.digits.indexOf(symbol));
    return bitsOf(value % (1n << BigInt(width)), width);
  });
  // Position p holds weight 2^(width − 1 − p).
  const bias = Array.from({ length: width }, (_, position) => 2 ** (width - 1 - position - rangeBits));
  return {
    encoding: `${described} read as one number (low ${String(width)} of ${rangeBits.toFixed(1)} bits tested)`,
    kept,
    rows,
    bias,
    // Byte boundaries counted from the number's low end, where its arithmetic lives.
    wordEnds: boundaries(width, [8]).map((end) => (end === width ? width : width - end)),
    capacityBits: rangeBits,
    sharedTextBound,
  };
}

/** Indices of the largest group of identifiers of one length. */
export function mostCommonLength(ids: readonly string[]): number[] {
  const byLength = new Map<number, number[]>();
  ids.forEach((id, index) => byLength.set(id.length, [...(byLength.get(id.length) ?? []), index]));
  return [...byLength.values()].sort((a, b) => b.length - a.length)[0] ?? [];
}

/** The varying part of each identifier: a trailing UUID's hex digits, else what the sample does not share. */
function bodiesOf(group: readonly string[]): { texts: string[]; description: string } {
  const uuids = group.flatMap((id) => UUID_TAIL.exec(id) ?? []);
  const before = group.map((id, index) => id.slice(0, id.length - (uuids[index]?.length ?? 0)));
  if (uuids.length === group.length && before.every((text) => text === before[0])) {
    return {
      texts: uuids.map((uuid) => uuid.replaceAll('-', '').toLowerCase()),
      description: `a UUID after "${before[0] ?? ''}"`,
    };
  }
  const first = group[0] ?? '';
  let prefix = 0;
  while (prefix < first.length && group.every((id) => id[prefix] === first[prefix])) prefix++;
  let suffix = 0;
  while (
    suffix < first.length - prefix &&
    group.every((id) => id[id.length - 1 - suffix] === first[first.length - 1 - suffix])
  ) {
    suffix++;
  }
  const shared = `"${first.slice(0, prefix)}"${suffix > 0 ? ` and "${first.slice(first.length - suffix)}"` : ''}`;
  return {
    texts: group.map((id) => id.slice(prefix, id.length - suffix)),
    description: `the ${String(first.length - prefix - suffix)} characters after ${shared}`,
  };
}

/**
 * The smallest known alphabet holding every symbol, if the sample shows all of its symbols
 * (uniform digits would); otherwise the symbols seen, in code point order.
 */
function alphabetOf(bodies: readonly string[]): { name: string; digits: string } {
  const seen = new Set(bodies.join(''));
  for (const known of ALPHABETS) {
    if ([...seen].every((symbol) => known.digits.includes(symbol))) {
      if (known.digits.length === seen.size) return known;
      break;
    }
  }
  return { name: `${String(seen.size)}-symbol`, digits: [...seen].sort().join('') };
}

function bitsOf(value: number | bigint, width: number): number[] {
  const bits: number[] = [];
  let rest = BigInt(value);
  for (let index = 0; index < width; index++) {
    bits.unshift(Number(rest & 1n));
    rest >>= 1n;
  }
  return bits;
}

/** Every multiple of the given sizes up to the width, and the width itself. */
function boundaries(width: number, sizes: readonly number[]): number[] {
  const ends = new Set<number>([width]);
  for (const size of sizes) for (let end = size; end < width; end += size) ends.add(end);
  return [...ends].sort((a, b) => a - b);
}
