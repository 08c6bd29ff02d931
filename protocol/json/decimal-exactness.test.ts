import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalLiteralIsExact } from './decimal-exactness.ts';

/** The exact decimal expansion of a finite double: m·2^e written out in full. */
function exactDecimal(value: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & 0xf_ffff_ffff_ffffn;
  const significand = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = biased === 0 ? -1074 : biased - 1075;
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (exponent >= 0) return `${sign}${(significand << BigInt(exponent)).toString()}`;
  // m·2^e = m·5^-e / 10^-e
  const digits = (significand * 5n ** BigInt(-exponent)).toString().padStart(-exponent + 1, '0');
  return `${sign}${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
}

const check = (literal: string): boolean => decimalLiteralIsExact(literal, Number(literal));

describe('decimalLiteralIsExact (interp-10, reading (a))', () => {
  it('knows the classic cases', () => {
    expect(check('0.5')).toBe(true);
    expect(check('4.50')).toBe(true);
    expect(check('-0')).toBe(true);
    expect(check('0e-400')).toBe(true);
    expect(check('9007199254740992')).toBe(true);
    expect(check('1e22')).toBe(true);
    expect(check('0.1')).toBe(false);
    expect(check('1e23')).toBe(false);
    expect(check('9007199254740993')).toBe(false);
    expect(check('5e-324')).toBe(false);
    expect(check('333333333.33333329')).toBe(false);
    expect(check('123456789012345680000')).toBe(false);
  });

  it('accepts the full expansions of the extreme doubles, hundreds of digits long', () => {
    for (const value of [Number.MIN_VALUE, Number.MAX_VALUE, 2.2250738585072009e-308, -Number.EPSILON]) {
      const literal = exactDecimal(value);
      expect(Number(literal)).toBe(value);
      expect(check(literal)).toBe(true);
    }
  });

  it('decides bounded-cost cases without arithmetic on huge literals', () => {
    expect(check(`1${'0'.repeat(300)}`)).toBe(false);
    expect(check(`0.${'0'.repeat(200)}1`)).toBe(false);
    expect(check(`0.5${'0'.repeat(100_000)}`)).toBe(true);
    expect(check(`1.${'1'.repeat(100_000)}`)).toBe(false);
    // Outside the exponent window; the parser reports these as overflow/underflow first.
    expect(check('1e310')).toBe(false);
    expect(check('5e-1101')).toBe(false);
  });

  it('holds for the exact expansion of any double and fails one digit further', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const literal = exactDecimal(value);
        expect(check(literal)).toBe(true);
        const perturbed = literal.includes('.') ? `${literal}1` : `${literal}.1`;
        if (Number(perturbed) !== 0) expect(check(perturbed)).toBe(false);
      }),
    );
  });
});
