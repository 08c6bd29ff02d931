import { readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import fc from 'fast-check';
import canonicalize from './vendor/canonicalize/canonicalize.js';
import { describe, expect, it } from 'vitest';
import { JCS_VECTORS_DIR, REPO_ROOT, SPEC_PATH, sharedAvailable } from '../test-support/shared-paths.ts';
import {
  canonicalBytes,
  canonicalDocument,
  canonicalJson,
  canonicallyEqual,
  sha256Base64,
} from './canonical.ts';
import { JsonRejection } from './json-rejection.ts';
import { isJsonObject, type JsonValue } from './json-value.ts';
import { parseStrictJson } from './strict-json.ts';

const MANIFESTS_DIR = resolve(REPO_ROOT, 'fixtures', 'manifests');
const readManifest = (name: string): Buffer => readFileSync(resolve(MANIFESTS_DIR, name));

function member(value: JsonValue | undefined, name: string): JsonValue | undefined {
  return isJsonObject(value) ? value[name] : undefined;
}

function firstTool(manifest: JsonValue): JsonValue | undefined {
  const tools = member(manifest, 'tools');
  return Array.isArray(tools) ? tools[0] : undefined;
}

function hashOf(value: JsonValue | undefined): string {
  if (value === undefined) return expect.unreachable('member missing from the manifest');
  return canonicalDocument(value).hash.value;
}

const jcsAvailable = sharedAvailable(JCS_VECTORS_DIR, 'RFC 8785 canonicalization vectors');
const jcsVectorNames = jcsAvailable
  ? readdirSync(resolve(JCS_VECTORS_DIR, 'input'))
      .filter((file) => file.endsWith('.json'))
      .map((file) => basename(file, '.json'))
      .sort()
  : [];

describe.skipIf(!jcsAvailable)(
  'RFC 8785 vectors: strict parse, then canonical bytes (#canonical-json)',
  () => {
    const inputOf = (name: string): Buffer => readFileSync(resolve(JCS_VECTORS_DIR, 'input', `${name}.json`));
    const outputOf = (name: string): Buffer =>
      readFileSync(resolve(JCS_VECTORS_DIR, 'output', `${name}.json`));

    it('finds the six published vectors', () => {
      expect(jcsVectorNames).toEqual(['arrays', 'french', 'structures', 'unicode', 'values', 'weird']);
    });

    // Every vector passes the strict parse under the default number reading.
    it.each(jcsVectorNames)('%s.json canonicalizes to exactly output/%s.json', (name) => {
      const parsed = parseStrictJson(inputOf(name));
      expect(canonicalBytes(parsed).equals(outputOf(name))).toBe(true);
    });

    it('values.json is refused on purpose under reject-inexact: 333333333.33333329 is not a double', () => {
      let rejection: unknown;
      try {
        parseStrictJson(inputOf('values'), {}, { integers: 'reject-inexact' });
      } catch (error) {
        rejection = error;
      }
      expect(rejection).toBeInstanceOf(JsonRejection);
      expect(rejection).toMatchObject({ rule: 'number-inexact', line: 2, column: 15 });
    });
  },
);

describe('spec hash vectors (#manifest, #registration-flow, interp-01)', () => {
  const minimal = parseStrictJson(readManifest('weather-minimal.json'));
  const full = parseStrictJson(readManifest('weather-full.json'));

  it('the minimal manifest hashes to the value the examples pin', () => {
    expect(hashOf(minimal)).toBe('K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=');
    const inline =
      '{"manifestSpecVersion":"0","agent":{"jid":"weather@agents.example","name":"weather","version":"1.4.0"},"tools":[]}';
    expect(canonicalJson(parseStrictJson(inline))).toBe(canonicalJson(minimal));
  });

  it('the full "Agent API manifest" example hashes to fFqw…, not to the K2/… the examples pin', () => {
    expect(hashOf(full)).toBe('fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=');
  });

  it('its input and output schemas hash to the computed schema vectors', () => {
    const tool = firstTool(full);
    expect(hashOf(member(tool, 'inputSchema'))).toBe('XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=');
    expect(hashOf(member(tool, 'outputSchema'))).toBe('JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA=');
    const inlineInputSchema =
      '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}';
    expect(hashOf(parseStrictJson(inlineInputSchema))).toBe('XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=');
  });

  it('hashes are SHA-256 of exactly the canonical bytes', () => {
    const document = canonicalDocument(full);
    expect(document.hash.algo).toBe('sha-256');
    expect(document.bytes.equals(canonicalBytes(full))).toBe(true);
    expect(document.hash.value).toBe(sha256Base64(document.bytes));
  });
});

describe.skipIf(!sharedAvailable(SPEC_PATH, 'fixture drift check against the spec'))(
  'fixtures/manifests/weather-full.json',
  () => {
    it('is the spec\'s "Agent API manifest" example, character for character', () => {
      const spec = readFileSync(SPEC_PATH, 'utf8');
      const example = /<example caption='Agent API manifest'><!\[CDATA\[\n([\s\S]*?)\]\]><\/example>/.exec(
        spec,
      );
      expect(example?.[1]).toBe(readManifest('weather-full.json').toString('utf8'));
    });
  },
);

describe('number canonicalization (interp-10 table)', () => {
  it.each([
    ['-0', '0'],
    ['1.0', '1'],
    ['4.50', '4.5'],
    ['1E30', '1e+30'],
    ['9007199254740993', '9007199254740992'],
    ['333333333.33333329', '333333333.3333333'],
    ['123456789012345680000', '123456789012345680000'],
    ['0e-400', '0'],
  ])('%s → %s', (literal, canonical) => {
    expect(canonicalJson(parseStrictJson(literal))).toBe(canonical);
  });

  it('makes {"n":1.0} and {"n":1} the same document', () => {
    expect(canonicallyEqual(parseStrictJson('{"n":1.0}'), parseStrictJson('{"n":1}'))).toBe(true);
  });

  it('refuses what cannot be canonicalized before canonicalization is reached', () => {
    for (const literal of ['1e400', '-1e400', '1.7976931348623159e308']) {
      expect(() => parseStrictJson(literal)).toThrow(JsonRejection);
    }
  });
});

describe('canonicalization of parsed records', () => {
  it('includes a "__proto__" member like any other, in sorted position', () => {
    const parsed = parseStrictJson('{"b":1,"__proto__":{"z":[],"a":null},"A":true}');
    expect(canonicalJson(parsed)).toBe('{"A":true,"__proto__":{"a":null,"z":[]},"b":1}');
  });

  it('serializes a 100000-deep parse without recursion', () => {
    const depth = 100_000;
    const parsed = parseStrictJson('['.repeat(depth) + ']'.repeat(depth), { maxDepth: depth });
    expect(canonicalJson(parsed)).toBe('['.repeat(depth) + ']'.repeat(depth));
  });

  // The native fast path must agree with the canonicalize library everywhere: names V8 orders
  // as array indices, "__proto__", astral and BMP names whose UTF-16 order differs from code-point
  // order, numbers of every magnitude, and depths either side of the fast path's limit.
  it('gives the canonicalize library’s bytes for every JSON value (fast path and fallback)', () => {
    const names = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom(
        '0',
        '1',
        '10',
        '9',
        '01',
        '4294967295',
        '4294967294',
        '__proto__',
        '\uff5e',
        '😀',
        'a',
        'B',
      ),
    );
    const values = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.string({ unit: 'grapheme' }),
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(names, tie('value'), { maxKeys: 6 }),
      ),
    })).value;
    fc.assert(
      fc.property(values, (generated) => {
        const value = parseStrictJson(JSON.stringify(generated));
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
    for (const depth of [511, 512, 513]) {
      const nested = parseStrictJson(`${'{"k":['.repeat(depth)}1${']}'.repeat(depth)}`, {
        maxDepth: 2 * depth + 1,
      });
      expect(canonicalJson(nested)).toBe(canonicalize(nested));
    }
  });

  it('is idempotent: canonical(parse(canonical(v))) === canonical(v)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 20, stringUnit: 'grapheme' }), (generated) => {
        const value = parseStrictJson(JSON.stringify(generated));
        const canonical = canonicalJson(value);
        expect(canonicalJson(parseStrictJson(canonical))).toBe(canonical);
        expect(parseStrictJson(canonicalBytes(value))).toEqual(value);
      }),
    );
  });
});
