/**
 * V8's Math.random (Node, Chrome, Deno) as a GF(2)-linear generator, for the predictor battery
 * (predictability.ts). V8 keeps a 128-bit xorshift128 state (s0, s1); it refills a 64-entry
 * cache by stepping the state 64 times, entry i holding the top bits of s0 after step i + 1, and
 * hands the entries out from the last to the first (src/numbers/math-random.cc, RefillCache;
 * src/base/utils/random-number-generator.h, XorShift128 and ToDouble). The double is s0's top 52
 * bits as a mantissa (V8 ≤ 12) or its top 53 bits over 2^53 (later): either way floor(r · 2^b)
 * is the top b bits of s0. A step is linear over GF(2), so the draws an identifier takes from one
 * cache are linear functions of one 128-bit state: 144 drawn bits obey at least 16 fixed parity
 * checks, which CSPRNG bits obey only by chance.
 *
 * SpiderMonkey and JavaScriptCore also run xorshift128+, but their doubles come from the sum
 * s0 + s1, whose carries are not linear: these checks say nothing about them.
 */

const MASK64 = (1n << 64n) - 1n;

export interface XorShiftState {
  readonly s0: bigint;
  readonly s1: bigint;
}

/** One step of V8's XorShift128 (the state update; V8 reads s0 afterwards). */
export function xorshiftStep({ s0, s1 }: XorShiftState): XorShiftState {
  let next = s0;
  next ^= (next << 23n) & MASK64;
  next ^= next >> 17n;
  next ^= s1;
  next ^= s1 >> 26n;
  return { s0: s1, s1: next };
}

/** The step before: a step is a bijection of the 128-bit state. */
export function xorshiftStepBack({ s0, s1 }: XorShiftState): XorShiftState {
  const mixed = s1 ^ s0 ^ (s0 >> 26n);
  // Undo x ^= x >> 17, then x ^= x << 23, by iterating to the fixed point.
  let right = mixed;
  for (let round = 0; round < 4; round++) right = mixed ^ (right >> 17n);
  let left = right;
  for (let round = 0; round < 3; round++) left = right ^ ((left << 23n) & MASK64);
  return { s0: left, s1: s0 };
}

/** The top `bits` bits of s0: floor(Math.random() · 2^bits) for the draw this state gives. */
export function drawOf(state: XorShiftState, bits: number): number {
  return Number(state.s0 >> BigInt(64 - bits));
}

/**
 * A replica of one native context's Math.random, positioned inside a cache: `index` entries are
 * still to be handed out, the next being the state `state` (the entry at index − 1). Values are
 * returned as s0's top 52 bits, exact whichever ToDouble the V8 version has.
 */
export class V8MathRandomReplica {
  private cache: XorShiftState[] = [];
  private index: number;

  constructor(state: XorShiftState, index: number) {
    // Entry index − 1 is `state`; the entries below it are the states before it.
    let entry = state;
    const below: XorShiftState[] = [entry];
    for (let k = index - 2; k >= 0; k--) {
      entry = xorshiftStepBack(entry);
      below.unshift(entry);
    }
    // Entry 63 (the refill's last state) seeds the next refill.
    let top = state;
    const above: XorShiftState[] = [];
    for (let k = index; k < CACHE_SIZE; k++) {
      top = xorshiftStep(top);
      above.push(top);
    }
    this.cache = [...below, ...above];
    this.index = index;
  }

  /** The next value's top 52 bits: Math.floor(Math.random() · 2^52). */
  nextMantissa(): number {
    if (this.index === 0) {
      let state = this.cache[CACHE_SIZE - 1] ?? { s0: 0n, s1: 0n };
      this.cache = Array.from({ length: CACHE_SIZE }, () => (state = xorshiftStep(state)));
      this.index = CACHE_SIZE;
    }
    this.index -= 1;
    return drawOf(this.cache[this.index] ?? { s0: 0n, s1: 0n }, 52);
  }
}

/** Entries per refill of V8's cache (math-random.h, kCacheSize). */
export const CACHE_SIZE = 64;

/** The order the drawn values take in a window: V8's cache order (newest state first) or the state order. */
export type DrawOrder = 'cache' | 'stream';

/**
 * The linear structure of `draws` consecutive draws of `drawBits` bits each, read as a window of
 * draws·drawBits bits, MSB first, in cache order (the state of the window's first draw is the
 * last draw's stepped draws − 1 times). Window bit r is bit r of a bigint.
 */
export interface DrawModel {
  readonly drawBits: number;
  readonly draws: number;
  readonly width: number;
  /** A basis of the parity checks every such window obeys (each a mask over window bits). */
  readonly checks: readonly bigint[];
  /** Per state bit (0..63 s0, 64..127 s1, of the last draw's state): the window bits whose parity it is; undefined when not determined. */
  readonly solution: readonly (bigint | undefined)[];
  /** How many nonzero combinations of the checks have weight ≤ w, for w = 0..width. */
  readonly lowWeightCounts: readonly number[];
}

type Word = bigint[];

function shiftLeft(word: Word, by: number): Word {
  return word.map((_, bit) => (bit >= by ? (word[bit - by] ?? 0n) : 0n));
}
function shiftRight(word: Word, by: number): Word {
  return word.map((_, bit) => (bit + by < 64 ? (word[bit + by] ?? 0n) : 0n));
}
function xorWords(a: Word, b: Word): Word {
  return a.map((mask, bit) => mask ^ (b[bit] ?? 0n));
}

/** The step on symbolic words: bit i of each word is a mask over the 128 unknown state bits. */
function symbolicStep({ s0, s1 }: { s0: Word; s1: Word }): { s0: Word; s1: Word } {
  let next = s0;
  next = xorWords(next, shiftLeft(next, 23));
  next = xorWords(next, shiftRight(next, 17));
  next = xorWords(next, s1);
  next = xorWords(next, shiftRight(s1, 26));
  return { s0: s1, s1: next };
}

/** Even or odd number of set bits. */
export function parity(value: bigint): number {
  let rest = value;
  let odd = 0;
  while (rest > 0n) {
    let chunk = Number(rest & 0xffffffffn);
    rest >>= 32n;
    chunk ^= chunk >>> 16;
    chunk ^= chunk >>> 8;
    chunk ^= chunk >>> 4;
    chunk ^= chunk >>> 2;
    chunk ^= chunk >>> 1;
    odd ^= chunk & 1;
  }
  return odd;
}

const models = new Map<string, DrawModel>();

/** The model of `draws` draws of `drawBits` bits (computed once, then shared). */
export function drawModel(drawBits: number, draws: number): DrawModel {
  const key = `${String(drawBits)}x${String(draws)}`;
  const known = models.get(key);
  if (known !== undefined) return known;
  const width = drawBits * draws;
  // states[k]: the last draw's state stepped k times (the window's draw draws − 1 − k).
  let state = {
    s0: Array.from({ length: 64 }, (_, bit) => 1n << BigInt(bit)),
    s1: Array.from({ length: 64 }, (_, bit) => 1n << BigInt(64 + bit)),
  };
  const states = [state];
  for (let k = 1; k < draws; k++) states.push((state = symbolicStep(state)));
  const rows: { mask: bigint; tag: bigint }[] = [];
  for (let r = 0; r < width; r++) {
    const draw = Math.floor(r / drawBits);
    const word = states[draws - 1 - draw]?.s0 ?? [];
    rows.push({ mask: word[63 - (r % drawBits)] ?? 0n, tag: 1n << BigInt(r) });
  }
  // Reduced row echelon form over the 128 unknowns; the tags record which window bits combine.
  const solution: (bigint | undefined)[] = Array.from({ length: 128 }, () => undefined);
  let free = 0;
  for (let unknown = 127; unknown >= 0; unknown--) {
    const bit = 1n << BigInt(unknown);
    const pivot = rows.findIndex((row, index) => index >= free && (row.mask & bit) !== 0n);
    if (pivot < 0) continue;
    const chosen = rows[pivot];
    if (chosen === undefined) continue;
    rows[pivot] = rows[free] ?? chosen;
    rows[free] = chosen;
    rows.forEach((row, index) => {
      if (index !== free && (row.mask & bit) !== 0n) {
        row.mask ^= chosen.mask;
        row.tag ^= chosen.tag;
      }
    });
    free++;
  }
  for (const row of rows.slice(0, free)) {
    if (row.mask !== 0n && (row.mask & (row.mask - 1n)) === 0n) {
      solution[row.mask.toString(2).length - 1] = row.tag;
    }
  }
  const checks = rows.slice(free).map((row) => row.tag);
  const model = { drawBits, draws, width, checks, solution, lowWeightCounts: weightCounts(checks, width) };
  models.set(key, model);
  return model;
}

/** Cumulative weight distribution of the checks' nonzero combinations (Gray-code walk). */
function weightCounts(checks: readonly bigint[], width: number): number[] {
  const exact = Array.from({ length: width + 1 }, () => 0);
  // Beyond 2^22 combinations the walk is too slow for a case: report every weight as possible.
  if (checks.length > 22) return exact.map(() => 2 ** checks.length - 1);
  // 32-bit words: a bigint per combination would allocate 65 536 times per model.
  const words = Math.ceil(width / 32);
  const split = checks.map((check) =>
    Uint32Array.from({ length: words }, (_, index) => Number((check >> BigInt(32 * index)) & 0xffffffffn)),
  );
  const current = new Uint32Array(words);
  for (let step = 1; step < 2 ** checks.length; step++) {
    const flip = split[31 - Math.clz32(step & -step)] ?? current;
    let weight = 0;
    for (let index = 0; index < words; index++) {
      const word = ((current[index] ?? 0) ^ (flip[index] ?? 0)) >>> 0;
      current[index] = word;
      weight += popcount32(word);
    }
    exact[weight] = (exact[weight] ?? 0) + 1;
  }
  let sum = 0;
  return exact.map((count) => (sum += count));
}

function popcount32(word: number): number {
  let chunk = word - ((word >>> 1) & 0x55555555);
  chunk = (chunk & 0x33333333) + ((chunk >>> 2) & 0x33333333);
  return (((chunk + (chunk >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Window bits as a bigint (bit r = window bit r), draws taken in the given order. */
export function windowOf(bits: readonly number[], start: number, model: DrawModel, order: DrawOrder): bigint {
  let value = 0n;
  for (let r = 0; r < model.width; r++) {
    const draw = Math.floor(r / model.drawBits);
    const source = order === 'cache' ? draw : model.draws - 1 - draw;
    if (bits[start + source * model.drawBits + (r % model.drawBits)] === 1) value |= 1n << BigInt(r);
  }
  return value;
}

/** How many of the model's checks the window satisfies (all of them: it fits the generator). */
export function checksSatisfied(window: bigint, model: DrawModel): number {
  return model.checks.filter((check) => parity(check & window) === 0).length;
}

/** The state of the window's last draw, when the draws determine it. */
export function recoverState(window: bigint, model: DrawModel): XorShiftState | undefined {
  let s0 = 0n;
  let s1 = 0n;
  for (let unknown = 0; unknown < 128; unknown++) {
    const tag = model.solution[unknown];
    if (tag === undefined) return undefined;
    if (parity(tag & window) === 1) {
      if (unknown < 64) s0 |= 1n << BigInt(unknown);
      else s1 |= 1n << BigInt(unknown - 64);
    }
  }
  return { s0, s1 };
}
