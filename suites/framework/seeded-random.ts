/**
 * The one source of randomness a suite case may use. Seeded, so a failing randomized case
 * replays exactly from the seed the runner prints (`agentconf run --seed N`).
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** Seeds are 32-bit unsigned integers: short enough to print and type back. */
export function isSeed(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}

/** A fresh seed for a run that was not given one. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}

/**
 * Derives the seed of one case from the run seed and the case ID, so a case sees the same
 * numbers whether it runs in the full run or alone under --grep (a re-run after a failure mixes in
 * its attempt number: run-case.ts, attemptSeed).
 */
export function caseSeed(runSeed: number, caseId: string): number {
  // FNV-1a over the UTF-8 bytes of the ID, mixed with the run seed.
  let hash = 0x811c9dc5 ^ runSeed;
  for (const byte of new TextEncoder().encode(caseId)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class SeededRandom {
  readonly seed: number;
  readonly #generator: RandomGenerator;

  constructor(seed: number) {
    if (!isSeed(seed)) throw new RangeError(`a seed is an integer from 0 to 4294967295, not ${String(seed)}`);
    this.seed = seed;
    this.#generator = xoroshiro128plus(seed);
  }

  /** An integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.#generator, from, to);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A new array with the items in a random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const result = [...items];
    for (let i = result.length - 1; i > 0; i -= 1) {
      const j = this.int(0, i);
      [result[i], result[j]] = [result[j] as T, result[i] as T];
    }
    return result;
  }

  /** `length` characters from an ASCII `alphabet`, e.g. for request IDs a case wants reproducible. */
  string(alphabet: string, length: number): string {
    if (!/^[\x20-\x7e]+$/.test(alphabet)) throw new RangeError('the alphabet must be printable ASCII');
    let result = '';
    for (let i = 0; i < length; i += 1) result += alphabet.charAt(this.int(0, alphabet.length - 1));
    return result;
  }
}
