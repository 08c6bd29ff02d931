import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDocument } from './canonical.ts';
import type { JsonLimits } from './json-limits.ts';
import { JsonRejection } from './json-rejection.ts';
import type { JsonValue } from './json-value.ts';
import { parseStrictCanonical } from './strict-canonical.ts';
import { parseStrictJson, type StrictJsonOptions } from './strict-json.ts';

type Outcome =
  | { readonly accepted: true; readonly value: JsonValue; readonly bytes: string; readonly hash: string }
  | { readonly accepted: false; readonly rejection: JsonRejection };

function rejected(error: unknown): Outcome {
  if (!(error instanceof JsonRejection)) throw error;
  return { accepted: false, rejection: error };
}

/** The reference: the strict parse, then canonicalDocument of what it returned. */
function twoCalls(
  input: string | Uint8Array,
  limits?: Partial<JsonLimits>,
  options?: StrictJsonOptions,
): Outcome {
  try {
    const value = parseStrictJson(input, limits, options);
    const { bytes, hash } = canonicalDocument(value);
    return { accepted: true, value, bytes: bytes.toString('hex'), hash: hash.value };
  } catch (error) {
    return rejected(error);
  }
}

function oneCall(
  input: string | Uint8Array,
  limits?: Partial<JsonLimits>,
  options?: StrictJsonOptions,
): Outcome {
  try {
    const { value, document } = parseStrictCanonical(input, limits, options);
    return { accepted: true, value, bytes: document.bytes.toString('hex'), hash: document.hash.value };
  } catch (error) {
    return rejected(error);
  }
}

/** Every record in `value`, depth first. */
function records(value: JsonValue): object[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(records);
  return [value, ...Object.values(value).flatMap(records)];
}

function expectSameOutcome(
  input: string | Uint8Array,
  limits?: Partial<JsonLimits>,
  options?: StrictJsonOptions,
): Outcome {
  const expected = twoCalls(input, limits, options);
  const actual = oneCall(input, limits, options);
  if (!expected.accepted) {
    expect(actual.accepted).toBe(false);
    if (actual.accepted) return actual;
    // The same rule, message and position.
    expect(actual.rejection.rule).toBe(expected.rejection.rule);
    expect(actual.rejection.message).toBe(expected.rejection.message);
    const { offset, byteOffset, line, column } = expected.rejection;
    expect(actual.rejection).toMatchObject({ offset, byteOffset, line, column });
    return actual;
  }
  expect(actual.accepted).toBe(true);
  if (!actual.accepted) return actual;
  expect(actual.bytes).toBe(expected.bytes);
  expect(actual.hash).toBe(expected.hash);
  // Member order aside (toEqual ignores it), the same value, and records without a prototype.
  expect(actual.value).toEqual(expected.value);
  for (const record of records(actual.value)) expect(Object.getPrototypeOf(record)).toBeNull();
  return actual;
}

describe('parseStrictCanonical', () => {
  it('gives canonicalDocument(parseStrictJson(text)) for generated JSON, sent compact or indented', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 12, stringUnit: 'grapheme' }),
        fc.constantFrom(undefined, 1, 2, '\t'),
        (value, indent) => {
          const text = JSON.stringify(value, null, indent);
          expectSameOutcome(text);
          expectSameOutcome(Buffer.from(text, 'utf8'));
        },
      ),
    );
  });

  it('orders member names by UTF-16 code units, integer-like and "__proto__" names included', () => {
    const name = fc.oneof(
      fc.constantFrom(
        '__proto__',
        '0',
        '1',
        '10',
        '2',
        '01',
        '-1',
        '4294967295',
        'a',
        'B',
        '€',
        '😀',
        '\u00e9',
        '',
      ),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.nat().map(String),
    );
    const members = fc.uniqueArray(fc.tuple(name, fc.jsonValue({ maxDepth: 2 })), {
      selector: ([key]) => key,
      maxLength: 24,
    });
    fc.assert(
      fc.property(members, members, (outer, inner) => {
        const object = (entries: [string, unknown][]): string =>
          `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
        const text = `[${object(outer)},{"nested":${object(inner)}}]`;
        const outcome = expectSameOutcome(text);
        expect(outcome.accepted).toBe(true);
      }),
    );
  });

  it('writes numbers as the reference does: -0, exponents, long integers, fractions', () => {
    const literal = fc.oneof(
      fc.constantFrom(
        '-0',
        '0',
        '-0.0',
        '0e5',
        '1E2',
        '1e-7',
        '123456789012345',
        '1234567890123456789',
        '-9007199254740993',
      ),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc
        .tuple(fc.integer(), fc.nat(999), fc.integer({ min: -330, max: 330 }))
        .map(([i, f, e]) => `${i}.${f}e${e}`),
    );
    fc.assert(
      fc.property(fc.array(literal, { maxLength: 8 }), fc.boolean(), (literals, exact) => {
        expectSameOutcome(`[${literals.join(',')}]`, {}, exact ? { integers: 'reject-inexact' } : {});
      }),
    );
  });

  it('refuses what the strict parse refuses, with the same rejection, on JSON-like noise', () => {
    const piece = fc.constantFrom(
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
      '0',
      '1',
      '-',
      '.',
      'e',
      'true',
      'null',
      '"a"',
      '"b"',
      '"\\u0061"',
      '"\\ud800"',
      '"\ud800"',
      '"\\ud83d\\ude00"',
      '1e400',
      '1e-400',
      '0.1',
      '\u0001',
      '\ufeff',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('')),
        (text) => {
          expectSameOutcome(text);
          expectSameOutcome(Buffer.from(text, 'utf8'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what the strict parse refuses under every limit, with the same rejection', () => {
    const limits = fc.record(
      {
        maxBytes: fc.integer({ min: 0, max: 200 }),
        maxDepth: fc.integer({ min: 0, max: 6 }),
        maxStringLength: fc.integer({ min: 0, max: 12 }),
        maxObjectMembers: fc.integer({ min: 0, max: 20 }),
        maxArrayElements: fc.integer({ min: 0, max: 6 }),
        maxValues: fc.integer({ min: 0, max: 40 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), limits, (value, chosen) => {
        expectSameOutcome(JSON.stringify(value), chosen);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds a duplicate among many members (past the linear scan) and after unescaping', () => {
    const names = Array.from({ length: 40 }, (_, index) => `"m${String(index)}":${String(index)}`);
    expectSameOutcome(`{${names.join(',')}}`);
    for (const duplicate of ['"m3":0', '"\\u006d3":0', '"m39":0']) {
      const outcome = expectSameOutcome(`{${names.join(',')},${duplicate}}`);
      expect(outcome.accepted).toBe(false);
    }
  });

  it('takes the full canonicalization for nesting beyond the native serializer', () => {
    const depth = 600;
    const text = `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
    const outcome = expectSameOutcome(text, { maxDepth: 2 * depth });
    expect(outcome.accepted).toBe(true);
  });
});
