import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8 } from './utf8-order.ts';

function byteOrder(a: string, b: string): -1 | 0 | 1 {
  const order = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

describe('compareUtf8', () => {
  it('puts U+E000 before U+10000, where UTF-16 code unit order disagrees', () => {
    const privateUse = '\ue000';
    const astral = '\u{10000}';
    // The trap itself: JavaScript's default sort order is the opposite.
    expect([privateUse, astral].sort()).toEqual([astral, privateUse]);
    expect(compareUtf8(privateUse, astral)).toBe(-1);
    expect(compareUtf8(astral, privateUse)).toBe(1);
    expect([astral, privateUse, 'z'].sort(compareUtf8)).toEqual(['z', privateUse, astral]);
  });

  it('orders prefixes first and equal strings as 0', () => {
    expect(compareUtf8('', '')).toBe(0);
    expect(compareUtf8('ab', 'abc')).toBe(-1);
    expect(compareUtf8('abc', 'ab')).toBe(1);
    expect(compareUtf8('a\u{1f600}', 'a\u{1f600}')).toBe(0);
  });

  it('agrees with comparing the UTF-8 bytes for any well-formed strings', () => {
    const text = fc.string({ unit: 'binary', maxLength: 8 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(compareUtf8(a, b)).toBe(byteOrder(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with byte order on strings sharing long prefixes near the surrogate range', () => {
    const unit = fc.constantFrom('a', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{10ffff}');
    const text = fc.string({ unit, maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(compareUtf8(a, b)).toBe(byteOrder(a, b));
      }),
    );
  });
});
