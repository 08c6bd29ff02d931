/**
 * Whether a JSON number literal denotes exactly the double it parsed to. This backs the
 * opt-in reading (a) of interp-10 ("exactly representable"); the default reading
 * rounds, as RFC 8785 does.
 *
 * Cost stays bounded whatever the literal's length: a double's exact decimal expansion has
 * at most 767 significant digits and a decimal exponent within a fixed window, so anything
 * outside those bounds is inexact without arithmetic, and the remaining BigInt products are
 * a few thousand bits at most.
 */

/** Significant digits in the longest exact decimal expansion of any double (the largest subnormal). */
const MAX_EXACT_SIGNIFICANT_DIGITS = 767;
/**
 * N·10^k with N not divisible by 10 is a dyadic rational only if 5^-k divides N, and
 * N < 10^767 keeps -k below 767·log5(10) ≈ 1098. Above, 10^309 already exceeds every double.
 */
const MIN_EXACT_DECIMAL_EXPONENT = -1100;
const MAX_EXACT_DECIMAL_EXPONENT = 309;

const scratch = new DataView(new ArrayBuffer(8));

/** `literal` must already match the RFC 8259 number grammar and `value` be its finite parse. */
export function decimalLiteralIsExact(literal: string, value: number): boolean {
  const exponentAt = literal.search(/[eE]/);
  const mantissa = exponentAt < 0 ? literal : literal.slice(0, exponentAt);
  const explicitExponent = exponentAt < 0 ? 0 : Number(literal.slice(exponentAt + 1));
  const pointAt = mantissa.indexOf('.');
  const fraction = pointAt < 0 ? '' : mantissa.slice(pointAt + 1);
  const integer = (pointAt < 0 ? mantissa : mantissa.slice(0, pointAt)).replace('-', '');

  const allDigits = integer + fraction;
  const firstSignificant = allDigits.search(/[1-9]/);
  if (firstSignificant < 0) return value === 0;
  let lastSignificant = allDigits.length - 1;
  while (allDigits.charCodeAt(lastSignificant) === 0x30) lastSignificant--;
  const significand = allDigits.slice(firstSignificant, lastSignificant + 1);
  const decimalExponent = explicitExponent - fraction.length + (allDigits.length - 1 - lastSignificant);

  if (significand.length > MAX_EXACT_SIGNIFICANT_DIGITS) return false;
  if (decimalExponent < MIN_EXACT_DECIMAL_EXPONENT || decimalExponent > MAX_EXACT_DECIMAL_EXPONENT) {
    return false;
  }

  // value = binarySignificand · 2^binaryExponent exactly (IEEE-754 binary64 fields).
  scratch.setFloat64(0, Math.abs(value));
  const bits = scratch.getBigUint64(0);
  const biasedExponent = Number(bits >> 52n);
  const fractionBits = bits & 0xf_ffff_ffff_ffffn;
  const binarySignificand = biasedExponent === 0 ? fractionBits : fractionBits | (1n << 52n);
  const binaryExponent = biasedExponent === 0 ? -1074 : biasedExponent - 1075;

  // Cross-multiplied comparison of significand·10^decimalExponent and the binary form.
  let decimalNumerator = BigInt(significand);
  let decimalDenominator = 1n;
  if (decimalExponent >= 0) decimalNumerator *= 10n ** BigInt(decimalExponent);
  else decimalDenominator = 10n ** BigInt(-decimalExponent);
  let binaryNumerator = binarySignificand;
  let binaryDenominator = 1n;
  if (binaryExponent >= 0) binaryNumerator <<= BigInt(binaryExponent);
  else binaryDenominator <<= BigInt(-binaryExponent);
  return decimalNumerator * binaryDenominator === binaryNumerator * decimalDenominator;
}
