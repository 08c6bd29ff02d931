import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Lexical } from './lexical.ts';
import {
  XS_INT_MAX,
  lexBoolean,
  lexDateTime,
  lexEnum,
  lexHashAlgo,
  lexHashValue,
  lexIdentifier,
  lexNonNegativeInteger,
  lexToolName,
  lexVersion,
} from './lexical.ts';

function value<T>(result: Lexical<T>): T {
  if (!result.ok) throw new Error(`${result.rule}: ${result.detail}`);
  return result.value;
}

function rule<T>(result: Lexical<T>): string {
  if (result.ok) throw new Error('unexpectedly valid');
  return result.rule;
}

describe('xs:nonNegativeInteger', () => {
  it.each([
    ['0', 0],
    ['4', 4],
    ['+4', 4],
    ['007', 7],
    [' 4\n', 4],
    ['-0', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('reads %j as %d (XML Schema collapses surrounding whitespace)', (text, expected) => {
    expect(value(lexNonNegativeInteger(text))).toBe(expected);
  });

  it.each(['', '-1', '1.0', '1e3', '0x10', '١', '4 4'])('refuses %j as invalid-integer', (text) => {
    expect(rule(lexNonNegativeInteger(text))).toBe('invalid-integer');
  });

  it('reports values beyond the safe range as integer-out-of-range, not as malformed', () => {
    expect(rule(lexNonNegativeInteger('9007199254740992'))).toBe('integer-out-of-range');
    expect(rule(lexNonNegativeInteger(String(XS_INT_MAX + 1), XS_INT_MAX))).toBe('integer-out-of-range');
  });
});

describe('xs:boolean', () => {
  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
    [' true ', true],
  ])('reads %j', (text, expected) => {
    expect(value(lexBoolean(text))).toBe(expected);
  });

  it.each(['TRUE', 'yes', '', '01'])('refuses %j', (text) => {
    expect(rule(lexBoolean(text))).toBe('invalid-boolean');
  });
});

describe('XEP-0082 date-times', () => {
  it('reads offsets and keeps every fractional digit', () => {
    const parsed = value(lexDateTime('2026-07-27T21:15:00.123456789+02:00'));
    expect(parsed.epochSeconds).toBe(value(lexDateTime('2026-07-27T19:15:00Z')).epochSeconds);
    expect(parsed.fraction).toBe('123456789');
  });

  it.each(['2026-07-27T19:15:00', ' 2026-07-27T19:15:00Z', '2026-02-30T00:00:00Z', '2026-07-27 19:15:00Z'])(
    'refuses %j (offset required, no whitespace: interp-31)',
    (text) => {
      expect(rule(lexDateTime(text))).toBe('invalid-datetime');
    },
  );
});

describe('identifiers, versions, tool names, enumerations', () => {
  it('applies the #invocation identifier grammar', () => {
    expect(value(lexIdentifier('task-7f2a9c41d8804e96bb478af6453c0371'))).toBe(
      'task-7f2a9c41d8804e96bb478af6453c0371',
    );
    expect(rule(lexIdentifier('short'))).toBe('invalid-identifier');
    expect(rule(lexIdentifier('a'.repeat(129)))).toBe('invalid-identifier');
    expect(rule(lexIdentifier('task 7f2a9c41d8804e96bb478af'))).toBe('invalid-identifier');
  });

  it('applies the #namespaces version grammar', () => {
    expect(value(lexVersion('1.4.0'))).toBe('1.4.0');
    expect(rule(lexVersion(''))).toBe('invalid-version');
    expect(rule(lexVersion('1.4 '))).toBe('invalid-version');
  });

  it('accepts any non-empty XML-legal tool name and refuses the rest', () => {
    expect(value(lexToolName('weather forecast\t✓'))).toBe('weather forecast\t✓');
    expect(rule(lexToolName(''))).toBe('invalid-tool-name');
    expect(rule(lexToolName('a\u0001'))).toBe('invalid-tool-name');
  });

  it('reads enumerations exactly', () => {
    const direction = lexEnum(['input', 'output'] as const);
    expect(value(direction('input'))).toBe('input');
    expect(rule(direction('Input'))).toBe('invalid-attribute');
  });
});

describe('XEP-0300 hash values', () => {
  const digest = createHash('sha256').update('x').digest();

  it('accepts canonical padded Base64 of a 32-byte sha-256 digest', () => {
    expect(value(lexHashValue(digest.toString('base64'), 'sha-256'))).toEqual(new Uint8Array(digest));
    expect(value(lexHashAlgo('sha-256'))).toBe('sha-256');
  });

  it.each([
    ['whitespace', 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4= '],
    ['line break', 'K2/YdwvIBAlfUIeZHiNCyiYA\n4m4W2wrEOqXQDoQyXp4='],
    ['missing padding', 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4'],
    ['base64url alphabet', 'K2_YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4='],
    ['non-zero padding bits', 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp5='],
    ['extra padding', 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=='],
  ])('refuses %s as invalid-base64', (_what, text) => {
    expect(rule(lexHashValue(text, 'sha-256'))).toBe('invalid-base64');
  });

  it('refuses a digest of the wrong size for a known algorithm, and allows any size for unknown ones', () => {
    const short = createHash('sha1').update('x').digest('base64');
    expect(rule(lexHashValue(short, 'sha-256'))).toBe('invalid-hash-length');
    expect(value(lexHashValue(short, 'sha-1')).length).toBe(20);
    expect(value(lexHashValue(short, 'x-custom')).length).toBe(20);
  });

  it('requires the algorithm to be an NCName', () => {
    expect(rule(lexHashAlgo('sha 256'))).toBe('invalid-attribute');
    expect(rule(lexHashAlgo('urn:sha'))).toBe('invalid-attribute');
  });

  it('accepts exactly the canonical encoding of any byte string (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), fc.nat({ max: 63 }), (bytes, flip) => {
        const canonical = Buffer.from(bytes).toString('base64');
        expect(value(lexHashValue(canonical, 'x-any'))).toEqual(bytes);
        const altered = canonical.replace(/[A-Za-z0-9+/](=+)$/, (match, padding: string) => {
          const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
          const index = alphabet.indexOf(match.charAt(0));
          const mask = padding.length === 1 ? 0b11 : 0b1111;
          return (alphabet[(index & ~mask) | ((flip % mask) + 1)] ?? '') + padding;
        });
        if (altered !== canonical) expect(rule(lexHashValue(altered, 'x-any'))).toBe('invalid-base64');
      }),
    );
  });
});
