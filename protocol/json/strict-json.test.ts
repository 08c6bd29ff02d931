import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical.ts';
import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.ts';
import {
  JsonRejection,
  REJECTION_CLASSIFICATION,
  type JsonRejectionRule,
  type JsonRejectionClass,
} from './json-rejection.ts';
import type { JsonValue } from './json-value.ts';
import { parseStrictJson, type StrictJsonOptions } from './strict-json.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function rejectionOf(
  input: string | Uint8Array,
  limits?: Partial<JsonLimits>,
  options?: StrictJsonOptions,
): JsonRejection {
  try {
    parseStrictJson(input, limits, options);
  } catch (error) {
    if (error instanceof JsonRejection) return error;
    throw error;
  }
  return expect.unreachable(`accepted ${typeof input === 'string' ? JSON.stringify(input) : 'bytes'}`);
}

interface ExpectedRejection {
  readonly rule: JsonRejectionRule;
  readonly line: number;
  readonly column: number;
}

function expectRejection(
  input: string | Uint8Array,
  expected: ExpectedRejection,
  limits?: Partial<JsonLimits>,
  options?: StrictJsonOptions,
): JsonRejection {
  const rejection = rejectionOf(input, limits, options);
  expect({ rule: rejection.rule, line: rejection.line, column: rejection.column }).toEqual(expected);
  expect(rejection.message).toContain(`at line ${expected.line}, column ${expected.column}`);
  return rejection;
}

/** Depth of nested containers, walked without recursion so a deep result cannot overflow the test. */
function nestingDepth(value: JsonValue): number {
  let depth = 0;
  let current: JsonValue | undefined = value;
  while (typeof current === 'object' && current !== null) {
    depth++;
    current = Array.isArray(current) ? current[0] : Object.values(current)[0];
  }
  return depth;
}

describe('parseStrictJson rejections: one per rule, with position (#json-encoding)', () => {
  it('invalid-utf8: the first invalid sequence, with its byte offset', () => {
    const bytes = Uint8Array.of(...utf8('{"a":\n"é'), 0xff, ...utf8('"}'));
    const rejection = expectRejection(bytes, { rule: 'invalid-utf8', line: 2, column: 3 });
    expect(rejection.offset).toBe(8);
    expect(rejection.byteOffset).toBe(9);
    expect(rejection.classification).toBe('encoding');
  });

  it('invalid-utf8: surrogates encoded in UTF-8, overlong forms and a truncated final sequence', () => {
    expectRejection(Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22), {
      rule: 'invalid-utf8',
      line: 1,
      column: 2,
    });
    expectRejection(Uint8Array.of(0x22, 0xc0, 0xaf, 0x22), { rule: 'invalid-utf8', line: 1, column: 2 });
    const truncated = expectRejection(Uint8Array.of(0x22, 0x61, 0xe2, 0x82), {
      rule: 'invalid-utf8',
      line: 1,
      column: 3,
    });
    expect(truncated.byteOffset).toBe(2);
  });

  it('byte-order-mark: refused in bytes and in strings', () => {
    expectRejection(Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('{}')), {
      rule: 'byte-order-mark',
      line: 1,
      column: 1,
    });
    expectRejection('\ufeff{}', { rule: 'byte-order-mark', line: 1, column: 1 });
  });

  it('empty: no value at all, including whitespace only', () => {
    expectRejection('', { rule: 'empty', line: 1, column: 1 });
    expectRejection(new Uint8Array(0), { rule: 'empty', line: 1, column: 1 });
    expectRejection(' \r\n\t', { rule: 'empty', line: 2, column: 2 });
  });

  it.each<[string, string, number, number]>([
    ['leading zero', '[1,\n 01]', 2, 2],
    ['negative leading zero', '-012', 1, 2],
    ['trailing comma in an array', '[1,\n2,\n]', 3, 1],
    ['trailing comma in an object', '{"a":1,}', 1, 8],
    ['line comment', '[1, // one\n2]', 1, 5],
    ['block comment', '/* c */ 1', 1, 1],
    ['single-quoted string', "{'a':1}", 1, 2],
    ['unquoted member name', '{a:1}', 1, 2],
    ['missing colon', '{"a" 1}', 1, 6],
    ['missing comma in an array', '[1 2]', 1, 4],
    ['missing comma in an object', '{"a":1 "b":2}', 1, 8],
    ['unterminated object', '{"a":1', 1, 7],
    ['backslash at the end of input', '"\\', 1, 3],
    ['invalid escape', '"\\x41"', 1, 2],
    ['escaped single quote', '"\\\'"', 1, 2],
    ['short \\u escape', '"\\u12"', 1, 2],
    ['raw control character U+0000', '"a\u0000"', 1, 3],
    ['raw control character U+001F', '"\u001f"', 1, 2],
    ['raw line feed in a string', '"a\nb"', 1, 3],
    ['unterminated string', '["abc', 1, 6],
    ['unterminated array', '[1,2', 1, 5],
    ['number without digits', '-', 1, 2],
    ['fraction without digits', '1.', 1, 3],
    ['fraction without integer part', '.5', 1, 1],
    ['explicit plus sign', '+1', 1, 1],
    ['exponent without digits', '1e+', 1, 4],
    ['hexadecimal number', '[0x10]', 1, 3],
    ['NaN', 'NaN', 1, 1],
    ['Infinity', '-Infinity', 1, 2],
    ['truncated literal', '[tru]', 1, 2],
    ['capitalised literal', 'True', 1, 1],
    ['non-breaking space as whitespace', '[1,\u00a02]', 1, 4],
    ['raw lone surrogate outside a string', '[\ud800]', 1, 2],
  ])('syntax: %s', (_name, input, line, column) => {
    const rejection = expectRejection(input, { rule: 'syntax', line, column });
    expect(rejection.message).toMatch(/^syntax error: /);
    expect(rejection.classification).toBe('syntax');
  });

  it('trailing-data: anything but whitespace after the value', () => {
    expectRejection('{}\n  x', { rule: 'trailing-data', line: 2, column: 3 });
    expectRejection('1 2', { rule: 'trailing-data', line: 1, column: 3 });
    expectRejection('truex', { rule: 'trailing-data', line: 1, column: 5 });
  });

  it('duplicate-member: names compare after unescaping, at the second name', () => {
    const rejection = expectRejection('{"a": 1, "a": 2}', { rule: 'duplicate-member', line: 1, column: 10 });
    expect(rejection.message).toBe('duplicate member "a" at line 1, column 10');
    expect(rejection.classification).toBe('ijson');
    expectRejection('{"a":1,\n "\\u0061":2}', { rule: 'duplicate-member', line: 2, column: 2 });
    expectRejection('{"x":{"b":[],\r\n"b":{}}}', { rule: 'duplicate-member', line: 2, column: 1 });
    expectRejection('{"__proto__":1,"__proto__":2}', { rule: 'duplicate-member', line: 1, column: 16 });
  });

  it('duplicate-member: names that only look alike are distinct', () => {
    expect(parseStrictJson('{"a":1,"A":2,"a ":3,"\\u00e9":4,"e\\u0301":5}')).toEqual({
      a: 1,
      A: 2,
      'a ': 3,
      é: 4,
      'e\u0301': 5,
    });
  });

  it('lone-surrogate: escapes that do not form a pair', () => {
    expectRejection('"\\ud800"', { rule: 'lone-surrogate', line: 1, column: 2 });
    expectRejection('["ok",\n "x\\ud800\\u0041"]', { rule: 'lone-surrogate', line: 2, column: 4 });
    expectRejection('"\\ud800\\ud800"', { rule: 'lone-surrogate', line: 1, column: 2 });
    expectRejection('"\\udc00"', { rule: 'lone-surrogate', line: 1, column: 2 });
    expectRejection('"\\ude02\\ud83d"', { rule: 'lone-surrogate', line: 1, column: 2 });
    expectRejection('{"\\udfff":1}', { rule: 'lone-surrogate', line: 1, column: 3 });
  });

  it('lone-surrogate: raw in string input, in values and member names', () => {
    const rejection = expectRejection('["a",\n"b\ud800c"]', { rule: 'lone-surrogate', line: 2, column: 3 });
    expect(rejection.byteOffset).toBeUndefined();
    expectRejection('{"\udc00":1}', { rule: 'lone-surrogate', line: 1, column: 3 });
  });

  it('number-overflow: literals beyond the largest double', () => {
    expectRejection('1e400', { rule: 'number-overflow', line: 1, column: 1 });
    expectRejection('[0,\n -1e400]', { rule: 'number-overflow', line: 2, column: 2 });
    expectRejection('{"n": 1.7976931348623159e308}', { rule: 'number-overflow', line: 1, column: 7 });
    expectRejection(`1${'0'.repeat(400)}`, { rule: 'number-overflow', line: 1, column: 1 });
  });

  it('number-underflow: non-zero literals that round to zero', () => {
    expectRejection('1e-400', { rule: 'number-underflow', line: 1, column: 1 });
    expectRejection('[\n\n  -0.5e-400]', { rule: 'number-underflow', line: 3, column: 3 });
    expectRejection(`0.${'0'.repeat(400)}1`, { rule: 'number-underflow', line: 1, column: 1 });
  });

  it('number-inexact: only with integers: reject-inexact, for every inexact literal', () => {
    const strict: StrictJsonOptions = { integers: 'reject-inexact' };
    expectRejection('9007199254740993', { rule: 'number-inexact', line: 1, column: 1 }, {}, strict);
    expectRejection('[1,\n 0.1]', { rule: 'number-inexact', line: 2, column: 2 }, {}, strict);
    // The trade-off of this reading: RFC 8785's own sample number and 1E30 are refused too.
    expectRejection('333333333.33333329', { rule: 'number-inexact', line: 1, column: 1 }, {}, strict);
    expectRejection('1E30', { rule: 'number-inexact', line: 1, column: 1 }, {}, strict);
    expect(parseStrictJson('9007199254740993')).toBe(9007199254740992);
  });

  it('number-inexact: exact literals still pass under reject-inexact', () => {
    const strict: StrictJsonOptions = { integers: 'reject-inexact' };
    const exact = '[9007199254740992, -0, 4.50, 0.5, 1e22, 0e-400, 2.5e-1, 123456789012345, 1.0e0]';
    expect(parseStrictJson(exact, {}, strict)).toEqual([
      9007199254740992, -0, 4.5, 0.5, 1e22, 0, 0.25, 123456789012345, 1,
    ]);
  });

  it('limit-bytes: counted in UTF-8 for strings and bytes alike', () => {
    const text = '["é",\n"€€"]'; // 16 UTF-8 bytes; byte 12 lies inside the second "€"
    expect(parseStrictJson(text, { maxBytes: 16 })).toEqual(['é', '€€']);
    expect(parseStrictJson(utf8(text), { maxBytes: 16 })).toEqual(['é', '€€']);
    expectRejection(text, { rule: 'limit-bytes', line: 2, column: 3 }, { maxBytes: 12 });
    const fromBytes = expectRejection(
      utf8(text),
      { rule: 'limit-bytes', line: 2, column: 3 },
      { maxBytes: 12 },
    );
    expect(fromBytes.byteOffset).toBe(12);
    expect(fromBytes.classification).toBe('limit');
  });

  it('limit-depth: at the first container beyond the limit', () => {
    expect(nestingDepth(parseStrictJson('[[[]]]', { maxDepth: 3 }))).toBe(3);
    expectRejection('[[\n[[]]]]', { rule: 'limit-depth', line: 2, column: 2 }, { maxDepth: 3 });
    expectRejection('{"a":{"b":\n {}}}', { rule: 'limit-depth', line: 2, column: 2 }, { maxDepth: 2 });
    expectRejection('[]', { rule: 'limit-depth', line: 1, column: 1 }, { maxDepth: 0 });
    expect(parseStrictJson('"scalar"', { maxDepth: 0 })).toBe('scalar');
  });

  it('limit-string-length: decoded UTF-16 code units, member names included', () => {
    expect(parseStrictJson('"\\u0041\\u0042\\u0043"', { maxStringLength: 3 })).toBe('ABC');
    expect(parseStrictJson('"😂é"', { maxStringLength: 3 })).toBe('😂é');
    expectRejection(
      '["abc",\n "abcd"]',
      { rule: 'limit-string-length', line: 2, column: 2 },
      { maxStringLength: 3 },
    );
    expectRejection(
      '{"abcd":1}',
      { rule: 'limit-string-length', line: 1, column: 2 },
      { maxStringLength: 3 },
    );
    expectRejection('"😂😂"', { rule: 'limit-string-length', line: 1, column: 1 }, { maxStringLength: 3 });
  });

  it('limit-object-members: at the first member beyond the limit', () => {
    expect(parseStrictJson('{"a":1,"b":2}', { maxObjectMembers: 2 })).toEqual({ a: 1, b: 2 });
    expectRejection(
      '{"a":1,"b":2,\n "c":3}',
      { rule: 'limit-object-members', line: 2, column: 2 },
      { maxObjectMembers: 2 },
    );
    expectRejection('{"a":1}', { rule: 'limit-object-members', line: 1, column: 2 }, { maxObjectMembers: 0 });
  });

  it('limit-array-elements: at the first element beyond the limit', () => {
    expect(parseStrictJson('[1,2]', { maxArrayElements: 2 })).toEqual([1, 2]);
    expectRejection(
      '[1,2,\n 3]',
      { rule: 'limit-array-elements', line: 2, column: 2 },
      { maxArrayElements: 2 },
    );
    expectRejection('[ 1]', { rule: 'limit-array-elements', line: 1, column: 3 }, { maxArrayElements: 0 });
    expect(parseStrictJson('[]', { maxArrayElements: 0 })).toEqual([]);
  });

  it('limit-values: containers and scalars all count, member names do not', () => {
    expect(parseStrictJson('{"a":[1],"b":2}', { maxValues: 4 })).toEqual({ a: [1], b: 2 });
    expectRejection('{"a":[1],"b":2}', { rule: 'limit-values', line: 1, column: 14 }, { maxValues: 3 });
    expectRejection('[1,\n[2]]', { rule: 'limit-values', line: 2, column: 2 }, { maxValues: 3 });
  });

  it('classifies every rule, and only the I-JSON prerequisites as ijson', () => {
    const byClass = (wanted: JsonRejectionClass): string[] =>
      Object.entries(REJECTION_CLASSIFICATION)
        .filter(([, found]) => found === wanted)
        .map(([rule]) => rule)
        .sort();
    expect(byClass('ijson')).toEqual([
      'duplicate-member',
      'lone-surrogate',
      'number-inexact',
      'number-overflow',
      'number-underflow',
    ]);
    expect(byClass('encoding')).toEqual(['byte-order-mark', 'invalid-utf8']);
    expect(byClass('syntax')).toEqual(['empty', 'syntax', 'trailing-data']);
    expect(byClass('limit')).toHaveLength(6);
  });

  it('quotes only a bounded excerpt of the input in messages', () => {
    const secret = 'S'.repeat(10_000);
    const duplicate = rejectionOf(`{"${secret}":1,"${secret}":2}`);
    expect(duplicate.rule).toBe('duplicate-member');
    expect(duplicate.message.length).toBeLessThan(120);
    const overflow = rejectionOf(`9${'9'.repeat(10_000)}`);
    expect(overflow.rule).toBe('number-overflow');
    expect(overflow.message.length).toBeLessThan(120);
  });

  it('refuses malformed limits as a programming error, not as a rejection', () => {
    expect(() => parseStrictJson('1', { maxDepth: -1 })).toThrow(RangeError);
    expect(() => parseStrictJson('1', { maxBytes: 1.5 })).toThrow(RangeError);
    expect(() => parseStrictJson('1', { maxValues: Number.NaN })).toThrow(RangeError);
    expect(parseStrictJson('[[1]]', { maxDepth: Number.POSITIVE_INFINITY })).toEqual([[1]]);
  });
});

describe('parseStrictJson accepted input', () => {
  it('decodes every escape', () => {
    expect(parseStrictJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\u0000"')).toBe(
      '"\\/\b\f\n\r\t\u0041é€\u0000',
    );
  });

  it('joins surrogate pairs written as escapes, raw in strings and raw in bytes', () => {
    expect(parseStrictJson('"\\ud83d\\ude02"')).toBe('😂');
    expect(parseStrictJson('"\\uD83D\\uDE02x"')).toBe('😂x');
    expect(parseStrictJson('"a😂b"')).toBe('a😂b');
    expect(parseStrictJson(utf8('{"😂":"𝄞"}'))).toEqual({ '😂': '𝄞' });
  });

  it('keeps whitespace inside strings and skips the four JSON whitespace characters outside', () => {
    expect(parseStrictJson(' \t\r\n{ "a b" :\t[ " x\\ty " ] }\n')).toEqual({ 'a b': [' x\ty '] });
  });

  it('reads numbers as their round-to-nearest double', () => {
    expect(Object.is(parseStrictJson('-0'), -0)).toBe(true);
    expect(Object.is(parseStrictJson('-0.0'), -0)).toBe(true);
    expect(parseStrictJson('[1.0, 4.50, 1E30, 1e-7, 0e-400, 2e-3, 1e+2, -12.5E-1]')).toEqual([
      1, 4.5, 1e30, 1e-7, 0, 0.002, 100, -1.25,
    ]);
    expect(parseStrictJson('9007199254740993')).toBe(9007199254740992);
    expect(parseStrictJson('123456789012345680000')).toBe(123456789012345680000);
    expect(parseStrictJson('5e-324')).toBe(Number.MIN_VALUE);
    expect(parseStrictJson('1.7976931348623157e308')).toBe(Number.MAX_VALUE);
  });

  it('parses scalars at the top level and empty containers', () => {
    expect(parseStrictJson('true')).toBe(true);
    expect(parseStrictJson('false')).toBe(false);
    expect(parseStrictJson('null')).toBeNull();
    expect(parseStrictJson('""')).toBe('');
    expect(parseStrictJson('[{},[],{"":""}]')).toEqual([{}, [], { '': '' }]);
  });

  it('accepts bytes and strings alike', () => {
    const text = '{"city":"Zürich","days":[1,2]}';
    expect(parseStrictJson(utf8(text))).toEqual(parseStrictJson(text));
  });
});

describe('parseStrictJson object records', () => {
  it('makes "__proto__" an ordinary own member, never a prototype', () => {
    const parsed = parseStrictJson('{"__proto__": {"polluted": true}, "a": 1}');
    expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
    const record = parsed as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(record)).toBeNull();
    expect(Object.keys(record)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('does the same for nested and empty objects', () => {
    const parsed = parseStrictJson('[{"x":{"__proto__":[]}}, {}]');
    const [outer, empty] = parsed as [Record<string, JsonValue>, object];
    const inner = outer['x'] as Record<string, JsonValue>;
    expect(Object.keys(inner)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(inner)).toBeNull();
    expect(Object.getPrototypeOf(outer)).toBeNull();
    expect(Object.getPrototypeOf(empty)).toBeNull();
    expect(canonicalJson(parsed)).toBe('[{"x":{"__proto__":[]}},{}]');
  });

  it('inherits no names such as "constructor" or "toString"', () => {
    const parsed = parseStrictJson('{"a":1}') as object;
    expect('constructor' in parsed).toBe(false);
    expect(Reflect.get(parsed, 'toString')).toBeUndefined();
    expect(parseStrictJson('{"constructor":1,"toString":2}')).toEqual({ constructor: 1, toString: 2 });
  });
});

describe('parseStrictJson nesting: iterative, limited, never a stack overflow', () => {
  const depth = 100_000;
  const deepArrays = '['.repeat(depth) + ']'.repeat(depth);
  const deepObjects = '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

  it(`rejects nesting of ${depth} with the default limit`, () => {
    const limitColumn = DEFAULT_JSON_LIMITS.maxDepth + 1;
    expectRejection(deepArrays, { rule: 'limit-depth', line: 1, column: limitColumn });
    expectRejection(deepObjects, {
      rule: 'limit-depth',
      line: 1,
      column: 5 * DEFAULT_JSON_LIMITS.maxDepth + 1,
    });
  });

  it(`accepts nesting of ${depth} when the limit allows exactly that`, () => {
    const limits = { maxDepth: depth };
    expect(nestingDepth(parseStrictJson(deepArrays, limits))).toBe(depth);
    expect(nestingDepth(parseStrictJson(deepObjects, limits))).toBe(depth);
    expect(nestingDepth(parseStrictJson(deepArrays, { maxDepth: depth + 1 }))).toBe(depth);
  });

  it(`rejects nesting of ${depth} one level below that limit, at the last bracket`, () => {
    expectRejection(deepArrays, { rule: 'limit-depth', line: 1, column: depth }, { maxDepth: depth - 1 });
  });
});

describe('parseStrictJson properties', () => {
  it('agrees with JSON.parse on JSON.stringify output', () => {
    // JSON.stringify writes -0 as 0, so both sides see 0; keys and strings include non-ASCII.
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 20, stringUnit: 'grapheme' }), (value) => {
        const text = JSON.stringify(value);
        expect(parseStrictJson(text)).toEqual(JSON.parse(text));
        expect(parseStrictJson(utf8(text))).toEqual(JSON.parse(text));
      }),
    );
  });

  it('round-trips any well-formed string and rejects any string with a lone surrogate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const encoded = JSON.stringify(text);
        if (/\p{Cs}/u.test(text)) expect(rejectionOf(encoded).rule).toBe('lone-surrogate');
        else expect(parseStrictJson(encoded)).toBe(text);
      }),
    );
  });

  it('throws nothing but JsonRejection for random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          parseStrictJson(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonRejection);
        }
      }),
    );
  });

  it('on JSON-like noise, accepts only what JSON.parse accepts, identically, and differs only on I-JSON rules', () => {
    const piece = fc.constantFrom(
      ...[
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"',
        '\\',
        ' ',
        '\n',
        'u',
        'd',
        '8',
        'c',
        '0',
        '1',
        '9',
        '-',
        '.',
        'e',
      ],
      ...[
        '+',
        'a',
        'true',
        'null',
        'false',
        '"a"',
        '"\\u0061"',
        '1e400',
        '1e-400',
        '\\ud800',
        '\ud800',
        '\u0001',
      ],
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('')),
        (text) => {
          let reference: { value: unknown } | undefined;
          try {
            reference = { value: JSON.parse(text) };
          } catch {
            reference = undefined;
          }
          let rejection: JsonRejection | undefined;
          let parsed: JsonValue | undefined;
          try {
            parsed = parseStrictJson(text);
          } catch (error) {
            if (!(error instanceof JsonRejection)) throw error;
            rejection = error;
          }
          if (reference === undefined) expect(rejection).toBeInstanceOf(JsonRejection);
          else if (rejection === undefined) expect(parsed).toEqual(reference.value);
          else expect(rejection.classification).toBe('ijson');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
