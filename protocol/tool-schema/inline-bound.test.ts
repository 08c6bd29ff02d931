import { describe, expect, it } from 'vitest';
import {
  INLINE_INSTANCE_MAX_BYTES,
  INLINE_WORK_MAX,
  countJsonValues,
  inlineWeightOf,
  withinInlineBound,
} from './inline-bound.ts';

const URI = 'https://tool-schema.invalid/0/schema.json';

describe('inlineWeightOf', () => {
  it('counts subschema sites and the values of const, enum, required and dependentRequired', () => {
    // Sites: root, properties/a, properties/b, items of b = 4; data values, arrays included:
    // enum 4 + required 2 + const 1.
    expect(
      inlineWeightOf(
        {
          type: 'object',
          properties: { a: { enum: [1, 2, 3] }, b: { type: 'array', items: { const: 'x' } } },
          required: ['a'],
        },
        URI,
      ),
    ).toBe(11);
    expect(inlineWeightOf({ type: 'object', dependentRequired: { a: ['b', 'c'] } }, URI)).toBe(5);
  });

  it('gives no weight to a schema whose cost the static bound cannot see', () => {
    for (const schema of [
      { type: 'object', properties: { s: { type: 'string', pattern: '^a+$' } } },
      { type: 'object', patternProperties: { '^x': true } },
      { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: true } },
      { type: 'object', properties: { a: { $dynamicRef: '#meta' } } },
      { type: 'object', properties: { l: { type: 'array', uniqueItems: true } } },
      { type: 'object', unevaluatedProperties: false },
      { type: 'object', properties: { l: { unevaluatedItems: false } } },
      { type: 'object', enum: Array.from({ length: INLINE_WORK_MAX + 1 }, (_, index) => index) },
    ]) {
      expect(inlineWeightOf(schema, URI), JSON.stringify(schema).slice(0, 80)).toBeUndefined();
    }
    // uniqueItems false asserts nothing: still bounded.
    expect(inlineWeightOf({ type: 'array', uniqueItems: false }, URI)).toBe(1);
  });

  it('does not mistake data for keywords: a "pattern" inside enum or const is a value', () => {
    expect(inlineWeightOf({ type: 'object', const: { pattern: '^(a+)+$', $ref: '#' } }, URI)).toBe(4);
  });
});

describe('withinInlineBound', () => {
  it('allows weight × instance values up to the work bound, and no instance text beyond its size', () => {
    const values = (count: number) => Array.from({ length: count - 1 }, () => 0);
    expect(countJsonValues(values(100))).toBe(100);
    expect(withinInlineBound(200, values(100), '[]')).toBe(true);
    expect(withinInlineBound(200, values(101), '[]')).toBe(false);
    expect(withinInlineBound(undefined, {}, '{}')).toBe(false);
    expect(withinInlineBound(1, 'x', 'x'.repeat(INLINE_INSTANCE_MAX_BYTES + 1))).toBe(false);
  });

  it('stops counting once the bound is passed', () => {
    expect(
      countJsonValues(
        Array.from({ length: 1_000_000 }, () => 0),
        10,
      ),
    ).toBe(11);
  });
});
