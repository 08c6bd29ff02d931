import { describe, expect, it } from 'vitest';
import {
  compareInstants,
  dateTimeFromMillis,
  DateTimeError,
  isAtOrAfter,
  isDateTime,
  parseDateTime,
  toEpochMillis,
  type DateTimeRule,
} from './datetime.ts';

function ruleOf(text: string): DateTimeRule | undefined {
  try {
    parseDateTime(text);
    return undefined;
  } catch (error) {
    if (error instanceof DateTimeError) return error.rule;
    throw error;
  }
}

describe('XEP-0082 date-times (#cancellation, interp-31)', () => {
  it('parses the spec example deadline as an exact instant', () => {
    const deadline = parseDateTime('2026-07-27T19:15:00Z');
    expect(deadline.epochSeconds).toBe(BigInt(Date.UTC(2026, 6, 27, 19, 15, 0) / 1000));
    expect(deadline.fraction).toBe('');
  });

  it('applies offsets before comparing', () => {
    const utc = parseDateTime('2026-07-27T19:15:00Z');
    expect(compareInstants(utc, parseDateTime('2026-07-27T21:15:00+02:00'))).toBe(0);
    expect(compareInstants(utc, parseDateTime('2026-07-27T14:45:00-04:30'))).toBe(0);
    expect(compareInstants(utc, parseDateTime('2026-07-27T19:15:00+00:00'))).toBe(0);
  });

  it('keeps every fractional digit (no millisecond rounding)', () => {
    const a = parseDateTime('2026-07-27T19:15:00.0000000001Z');
    const b = parseDateTime('2026-07-27T19:15:00Z');
    expect(compareInstants(a, b)).toBe(1);
    expect(compareInstants(b, a)).toBe(-1);
    expect(
      compareInstants(parseDateTime('2026-07-27T19:15:00.5000Z'), parseDateTime('2026-07-27T19:15:00.5Z')),
    ).toBe(0);
    expect(
      compareInstants(parseDateTime('2026-07-27T19:15:00.9999Z'), parseDateTime('2026-07-27T19:15:01Z')),
    ).toBe(-1);
  });

  it('treats the limit instant itself as expired', () => {
    const limit = parseDateTime('2026-07-27T19:15:00.25Z');
    expect(isAtOrAfter(parseDateTime('2026-07-27T19:15:00.250Z'), limit)).toBe(true);
    expect(isAtOrAfter(parseDateTime('2026-07-27T19:15:00.2499999Z'), limit)).toBe(false);
  });

  it.each<[string, DateTimeRule]>([
    ['2026-07-27T19:15:00', 'offset-missing'],
    ['2026-07-27t19:15:00Z', 'syntax'],
    ['2026-07-27T19:15:00z', 'syntax'],
    ['2026-07-27 19:15:00Z', 'syntax'],
    ['2026-07-27T19:15Z', 'syntax'],
    ['2026-07-27T19:15:00+0200', 'syntax'],
    ['2026-07-27T19:15:00.Z', 'syntax'],
    ['2026-13-01T00:00:00Z', 'month-range'],
    ['2026-00-01T00:00:00Z', 'month-range'],
    ['2025-02-29T00:00:00Z', 'day-range'],
    ['2026-04-31T00:00:00Z', 'day-range'],
    ['2026-07-27T24:00:00Z', 'hour-range'],
    ['2026-07-27T23:60:00Z', 'minute-range'],
    ['2026-07-27T23:59:60Z', 'second-range'],
    ['2026-07-27T23:59:59+24:00', 'offset-range'],
    ['2026-07-27T23:59:59+01:60', 'offset-range'],
  ])('rejects %s (%s)', (text, rule) => {
    expect(ruleOf(text)).toBe(rule);
    expect(isDateTime(text)).toBe(false);
  });

  it('accepts leap days and years before 100 exactly', () => {
    expect(isDateTime('2024-02-29T00:00:00Z')).toBe(true);
    expect(isDateTime('2000-02-29T00:00:00Z')).toBe(true);
    expect(ruleOf('1900-02-29T00:00:00Z')).toBe('day-range');
    expect(parseDateTime('0050-01-01T00:00:00Z').epochSeconds).toBe(-60589296000n);
  });

  it('converts to and from JavaScript time', () => {
    const now = dateTimeFromMillis(1_785_000_000_123);
    expect(now.text).toBe('2026-07-25T17:20:00.123Z');
    expect(toEpochMillis(now)).toBe(1_785_000_000_123);
    expect(toEpochMillis(parseDateTime('2026-07-25T17:20:00Z'))).toBe(1_785_000_000_000);
  });
});
