import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDocument } from './canonical.ts';
import { resolveJsonLimits, type JsonLimits } from './json-limits.ts';
import { JsonRejection } from './json-rejection.ts';
import type { JsonValue } from './json-value.ts';
import { nativeStrictCanonical } from './native-strict-canonical.ts';
import { parseStrictCanonical } from './strict-canonical.ts';
import { parseStrictJson } from './strict-json.ts';
import canonicalize from './vendor/canonicalize/canonicalize.js';

/** Fixed so that a failure replays; printed so that the run that failed can be named. */
const SEED = 20261206;

function withSeed(name: string): { seed: number } {
  process.stdout.write(`native-strict-canonical ${name}: fast-check seed ${SEED}\n`);
  return { seed: SEED };
}

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;
const UNDERFLOW_CANDIDATE = /[eE]-0*[1-9][0-9][0-9]|0{200}/;

/** Every record in `value`, depth first. */
function records(value: JsonValue): object[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(records);
  return [value, ...Object.values(value).flatMap(records)];
}

function strictOutcome(text: string, limits: JsonLimits): JsonValue | JsonRejection {
  try {
    return parseStrictJson(text, limits);
  } catch (error) {
    if (error instanceof JsonRejection) return error;
    throw error;
  }
}

/**
 * The property that makes the native path safe: whatever it decides, the strict parse accepts
 * with the same value, and the text is the RFC 8785 form the canonicalize library gives.
 * Returns whether it decided.
 */
function expectSoundNativeDecision(text: string, limits: JsonLimits): boolean {
  const native = nativeStrictCanonical(text, undefined, limits);
  // Colons are counted in the bytes when there are bytes: the same decision either way.
  const fromBytes = nativeStrictCanonical(text, Buffer.from(text, 'utf8'), limits);
  expect(fromBytes?.document).toEqual(native?.document);
  if (native === undefined) return false;
  const strict = strictOutcome(text, limits);
  expect(strict).not.toBeInstanceOf(JsonRejection);
  if (strict instanceof JsonRejection) return true;
  expect(native.value).toEqual(strict);
  expect(native.document.bytes.toString('utf8')).toBe(canonicalize(strict));
  expect(native.document).toEqual(canonicalDocument(strict));
  for (const record of records(native.value)) {
    expect(Object.getPrototypeOf(record)).toBeNull();
    const names = Object.keys(record);
    expect(names).toEqual([...names].sort());
  }
  return true;
}

/** parseStrictCanonical refuses exactly as parseStrictJson does, or agrees on the document. */
function expectSameAsStrict(text: string, limits: JsonLimits): void {
  const strict = strictOutcome(text, limits);
  let outcome: ReturnType<typeof parseStrictCanonical> | JsonRejection;
  try {
    outcome = parseStrictCanonical(text, limits);
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    outcome = error;
  }
  if (strict instanceof JsonRejection) {
    expect(outcome).toBeInstanceOf(JsonRejection);
    if (!(outcome instanceof JsonRejection)) return;
    expect(outcome.rule).toBe(strict.rule);
    expect(outcome.message).toBe(strict.message);
    const { offset, byteOffset, line, column } = strict;
    expect(outcome).toMatchObject({ offset, byteOffset, line, column });
    return;
  }
  expect(outcome).not.toBeInstanceOf(JsonRejection);
  if (outcome instanceof JsonRejection) return;
  expect(outcome.value).toEqual(strict);
  const reference = canonicalDocument(strict);
  expect(outcome.document.bytes.equals(reference.bytes)).toBe(true);
  expect(outcome.document.hash).toEqual(reference.hash);
}

const DEFAULT_LIMITS = resolveJsonLimits();

/** Member names V8 keeps in insertion order: the ones the native path is meant to decide. */
const ordinaryName = fc
  .string({ unit: 'grapheme', maxLength: 6 })
  .filter((name) => !INTEGER_LIKE.test(name) && name !== '__proto__');

function jsonWithNames(memberName: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(memberName, tie('value'), { maxKeys: 8 }),
    ),
  })).value;
}

const plainJson = jsonWithNames(ordinaryName);

/**
 * Texts JSON.parse accepts that the strict parse may refuse: names from a small pool, so
 * that duplicates are frequent, spelled plainly or escaped and holding colons; surrogate and
 * colon escapes; overflowing and underflowing literals next to ordinary zeros.
 */
const name = fc.constantFrom(
  '"a"',
  '"\\u0061"',
  '"b"',
  '"a:"',
  '"a\\u003a"',
  '":"',
  '"urn:x:0"',
  '"0"',
  '"9"',
  '"10"',
  '"__proto__"',
  '"\\ud800"',
  '"\\ud83d\\ude00"',
);
const scalar = fc.constantFrom(
  'null',
  'true',
  '0',
  '-0',
  '0.0e-999',
  '1',
  '1e-7',
  '1e-400',
  '-1E-0400',
  `0.${'0'.repeat(330)}1`,
  '1e400',
  '-1e309',
  '"x"',
  '"a:b"',
  '"\\u003a"',
  '"\\ud800"',
  '"\\udc00x"',
  '"\\ud83d\\ude00"',
  '"e-400"',
);
const lenientJson = fc.letrec<{ text: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('text'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(name, tie('text')), { maxLength: 4 })
      .map((members) => `{${members.map(([key, value]) => `${key}:${value}`).join(',')}}`),
  ),
})).text;

const limits = fc.oneof(
  fc.constant(DEFAULT_LIMITS),
  fc
    .record(
      {
        maxDepth: fc.integer({ min: 0, max: 5 }),
        maxStringLength: fc.integer({ min: 0, max: 6 }),
        maxObjectMembers: fc.integer({ min: 0, max: 4 }),
        maxArrayElements: fc.integer({ min: 0, max: 4 }),
        maxValues: fc.integer({ min: 0, max: 20 }),
      },
      { requiredKeys: [] },
    )
    .map((chosen) => resolveJsonLimits(chosen)),
);

describe('nativeStrictCanonical', () => {
  it('decides plain generated JSON and writes what the canonicalize library writes', () => {
    fc.assert(
      fc.property(plainJson, fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const decided = expectSoundNativeDecision(text, DEFAULT_LIMITS);
        // A 0 next to a three-digit negative exponent is left to the strict parse, by design.
        if (!UNDERFLOW_CANDIDATE.test(text)) expect(decided).toBe(true);
      }),
      { ...withSeed('plain JSON'), numRuns: 500 },
    );
  });

  it('decides soundly when member names are integer-like or "__proto__"', () => {
    const anyName = fc.oneof(ordinaryName, fc.nat(20).map(String), fc.constant('__proto__'));
    fc.assert(
      fc.property(jsonWithNames(anyName), (value) => {
        expectSoundNativeDecision(JSON.stringify(value), DEFAULT_LIMITS);
      }),
      { ...withSeed('any names'), numRuns: 500 },
    );
  });

  it('decides only what the strict parse accepts, on texts JSON.parse lets through', () => {
    let decided = 0;
    let refused = 0;
    fc.assert(
      fc.property(lenientJson, limits, (text, chosen) => {
        if (expectSoundNativeDecision(text, chosen)) decided++;
        if (strictOutcome(text, chosen) instanceof JsonRejection) refused++;
      }),
      { ...withSeed('lenient JSON'), numRuns: 3000 },
    );
    // Both sides of the property were exercised.
    expect(decided).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });

  it('leaves each check to the strict parse, which decides as before', () => {
    const cases: [string, string, Partial<JsonLimits>?][] = [
      ['{"a":1,"a":2}', 'duplicate-member'],
      ['{"a":1,"\\u0061":2}', 'duplicate-member'],
      ['{"a:":"x:y","a:":"x:y"}', 'duplicate-member'],
      ['[{"b":[{"c":0}],"b":[]}]', 'duplicate-member'],
      ['{"a\\u003a":1,"a:":2}', 'duplicate-member'],
      ['["\\ud800"]', 'lone-surrogate'],
      ['{"\\udfff":1}', 'lone-surrogate'],
      ['[1e400]', 'number-overflow'],
      ['[0, 1e-400]', 'number-underflow'],
      [`[0, 0.${'0'.repeat(330)}1]`, 'number-underflow'],
      ['[[[]]]', 'limit-depth', { maxDepth: 2 }],
      ['["abcd"]', 'limit-string-length', { maxStringLength: 3 }],
      ['{"abcd":1}', 'limit-string-length', { maxStringLength: 3 }],
      ['{"a":1,"b":2}', 'limit-object-members', { maxObjectMembers: 1 }],
      ['[1,2,3]', 'limit-array-elements', { maxArrayElements: 2 }],
      ['[1,[2]]', 'limit-values', { maxValues: 3 }],
    ];
    // Integer-like names (enumerated numerically by V8) and "__proto__" are the parse's too.
    for (const text of ['{"10":1,"9":2}', '{"b":1,"a":{"__proto__":2}}']) {
      expect(nativeStrictCanonical(text, undefined, DEFAULT_LIMITS), text).toBeUndefined();
      expectSameAsStrict(text, DEFAULT_LIMITS);
    }
    for (const [text, rule, chosen] of cases) {
      const resolved = resolveJsonLimits(chosen);
      expect(nativeStrictCanonical(text, undefined, resolved), text).toBeUndefined();
      expect(() => parseStrictCanonical(text, resolved), text).toThrow(JsonRejection);
      expect(strictOutcome(text, resolved)).toMatchObject({ rule });
      expectSameAsStrict(text, resolved);
    }
  });

  it('gives parseStrictCanonical the strict parse’s outcome on lenient texts', () => {
    fc.assert(
      fc.property(lenientJson, limits, (text, chosen) => {
        expectSameAsStrict(text, chosen);
      }),
      { ...withSeed('outcomes'), numRuns: 2000 },
    );
  });
});
