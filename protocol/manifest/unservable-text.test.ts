import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { unservableValueViolations } from './unservable-text.ts';

function found(value: Parameters<typeof unservableValueViolations>[0]): { rule: string; path: string }[] {
  return unservableValueViolations(value).map(({ rule, path }) => ({ rule, path }));
}

describe('text that canonical JSON in XML cannot carry (interp-12)', () => {
  it('is a real trap: RFC 8785 emits an escaped U+FFFF literally', () => {
    const value = parseStrictJson('{"d":"\\uFFFF"}');
    expect(canonicalJson(value)).toBe('{"d":"\uffff"}');
  });

  it('finds U+FFFE and U+FFFF in strings and member names at any depth, in document order', () => {
    expect(
      found({
        a: 'ok',
        b: ['x', 'y\ufffe'],
        'c\uffff': { d: [{ '/e~': 'z\uffff' }] },
      }),
    ).toEqual([
      { rule: 'value:unservable-character', path: '/b/1' },
      { rule: 'value:unservable-character', path: '/c\uffff' },
      { rule: 'value:unservable-character', path: '/c\uffff/d/0/~1e~0' },
    ]);
  });

  it('accepts noncharacters that XML allows and astral characters', () => {
    expect(found({ a: '\ufdd0\u{1fffe}\u{10ffff}\ufffd', '\ufdef': 1 })).toEqual([]);
  });

  it('refuses values that cannot be canonicalized at all', () => {
    expect(found(['\ud800', Number.NaN, Number.POSITIVE_INFINITY, 1e308])).toEqual([
      { rule: 'value:lone-surrogate', path: '/0' },
      { rule: 'value:non-finite-number', path: '/1' },
      { rule: 'value:non-finite-number', path: '/2' },
    ]);
  });

  it('walks deep values without recursion', () => {
    let deep: Parameters<typeof unservableValueViolations>[0] = '\uffff';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unservableValueViolations(deep)).toHaveLength(1);
  });
});
