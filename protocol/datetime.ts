/**
 * XEP-0082 date-times as the spec uses them (#cancellation, #event-json-schemas): a UTC offset
 * is mandatory, instants are compared after applying offsets, and every fractional digit
 * counts (no rounding to milliseconds). The accepted grammar is the intersection of XEP-0082
 * and RFC 3339 (interp-31): uppercase T and Z, offsets as ±hh:mm, no leap second.
 */

export type DateTimeRule =
  | 'syntax'
  | 'offset-missing'
  | 'month-range'
  | 'day-range'
  | 'hour-range'
  | 'minute-range'
  | 'second-range'
  | 'offset-range';

export class DateTimeError extends Error {
  override readonly name = 'DateTimeError';
  constructor(
    readonly rule: DateTimeRule,
    readonly text: string,
  ) {
    super(`not an XEP-0082 date-time (${rule}): ${JSON.stringify(text.slice(0, 64))}`);
  }
}

/** One instant: whole seconds since the epoch (UTC) plus the exact fractional digits. */
export interface XmppDateTime {
  readonly text: string;
  readonly epochSeconds: bigint;
  /** Fractional-second digits with trailing zeros removed ("" for whole seconds). */
  readonly fraction: string;
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function parseDateTime(text: string): XmppDateTime {
  const m = DATE_TIME.exec(text);
  if (m === null) throw new DateTimeError('syntax', text);
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  if (zulu === undefined && sign === undefined) throw new DateTimeError('offset-missing', text);
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) throw new DateTimeError('month-range', text);
  if (day < 1 || day > daysInMonth(year, month)) throw new DateTimeError('day-range', text);
  if (hour > 23) throw new DateTimeError('hour-range', text);
  if (minute > 59) throw new DateTimeError('minute-range', text);
  if (second > 59) throw new DateTimeError('second-range', text);
  let offsetSeconds = 0;
  if (sign !== undefined) {
    const offsetHours = Number(oh);
    const offsetMinutes = Number(om);
    if (offsetHours > 23 || offsetMinutes > 59) throw new DateTimeError('offset-range', text);
    offsetSeconds = (sign === '+' ? 1 : -1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  // setUTCFullYear, unlike Date.UTC, does not remap years 0-99 to the 1900s.
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  const localSeconds = BigInt(local.getTime() / 1000);
  return {
    text,
    epochSeconds: localSeconds - BigInt(offsetSeconds),
    fraction: (frac ?? '').replace(/0+$/, ''),
  };
}

export function isDateTime(text: string): boolean {
  try {
    parseDateTime(text);
    return true;
  } catch {
    return false;
  }
}

/** Orders two instants exactly: -1, 0 or 1. */
export function compareInstants(a: XmppDateTime, b: XmppDateTime): -1 | 0 | 1 {
  if (a.epochSeconds !== b.epochSeconds) return a.epochSeconds < b.epochSeconds ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  if (fa === fb) return 0;
  return fa < fb ? -1 : 1;
}

/** True when `now` is at or after `limit`: the spec's expiry test for deadlines and input. */
export function isAtOrAfter(now: XmppDateTime, limit: XmppDateTime): boolean {
  return compareInstants(now, limit) >= 0;
}

/** The instant of a JavaScript millisecond timestamp, rendered as `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function dateTimeFromMillis(epochMillis: number): XmppDateTime {
  return parseDateTime(new Date(epochMillis).toISOString());
}

/** Milliseconds since the epoch, truncating digits beyond the millisecond (for timers only). */
export function toEpochMillis(value: XmppDateTime): number {
  return Number(value.epochSeconds) * 1000 + Number(value.fraction.slice(0, 3).padEnd(3, '0'));
}
