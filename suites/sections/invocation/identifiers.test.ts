// The identifier statistics of invocation.identifiers-unpredictable: random IDs of 128 bits,
// also behind a fixed or a time prefix, are never taken for a counter and are not warned about;
// counters and clocks are caught, and IDs with far fewer random bits are warned about.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { duplicates, estimatedBits, estimatedSymbols, varyingPositions } from './identifiers.ts';

/** What invocation.identifiers-unpredictable decides from the two samples. */
const COUNTER_EVIDENCE = (sequential: readonly string[]): boolean =>
  varyingPositions(sequential) * Math.log2(66) < 64;
const WARNED = (sample: readonly string[]): boolean => (estimatedBits(sample) ?? Infinity) < 100;

const random128 = (): string => randomBytes(16).toString('base64url');
const hex128 = (): string => randomBytes(16).toString('hex');
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID: 48 bits of milliseconds, then only 80 random bits. */
const ulid = (millis: number): string => {
  let time = '';
  for (let rest = millis, i = 0; i < 10; i++, rest = Math.floor(rest / 32))
    time = `${CROCKFORD.charAt(rest % 32)}${time}`;
  const random = [...randomBytes(16)].map((byte) => CROCKFORD[byte % 32]).join('');
  return time + random;
};

function sample(make: (index: number) => string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

describe('identifier statistics', () => {
  it('never take 128 random bits for a counter nor warn about them, behind a fixed or a time prefix too', () => {
    const started = Date.now();
    const makers: ((index: number) => string)[] = [
      () => random128(),
      () => hex128(),
      () => `task-${random128()}`,
      (index) => `${(started + index * 3).toString(36)}-${random128()}`,
    ];
    for (const make of makers) {
      for (let trial = 0; trial < 200; trial++) {
        expect(COUNTER_EVIDENCE(sample(make, 8))).toBe(false);
        expect(WARNED(sample(make, 64))).toBe(false);
      }
    }
  });

  it('estimate about 128 bits for 128 random bits', () => {
    const bits = estimatedBits(sample(() => random128(), 64)) ?? 0;
    expect(bits).toBeGreaterThan(115);
    expect(bits).toBeLessThan(140);
  });

  it('take counters and clocks for what they are', () => {
    expect(COUNTER_EVIDENCE(sample((index) => `task-${String(100_000 + index).padStart(24, '0')}`, 8))).toBe(
      true,
    );
    expect(
      COUNTER_EVIDENCE(sample((index) => (1_700_000_000_000 + index).toString(16).padStart(22, 'a'), 8)),
    ).toBe(true);
    expect(COUNTER_EVIDENCE(sample((index) => `task-${String(index + 8)}${'x'.repeat(20)}`, 8))).toBe(true);
  });

  it('warn about IDs with far fewer random bits', () => {
    expect(WARNED(sample(() => randomBytes(8).toString('base64url').padStart(22, 'A'), 64))).toBe(true);
    expect(WARNED(sample((index) => ulid(1_700_000_000_000 + index), 64))).toBe(true);
  });

  it('find duplicates and say nothing about a sample too small', () => {
    expect(duplicates(['a', 'b', 'a', 'c', 'b'])).toEqual(['a', 'b']);
    expect(estimatedBits(sample(() => random128(), 31))).toBeUndefined();
    expect(estimatedSymbols(1, 64)).toBe(1);
    expect(estimatedSymbols(64, 64)).toBe(66);
  });
});
