import { describe, expect, it } from 'vitest';
import { compileToolSchema } from './compile.ts';
import { MAX_LOCATION_LENGTH, MAX_REPORTED_ERRORS } from './validation-result.ts';

describe('validation results', () => {
  it('name the instance location, keyword and schema location of each failure', async () => {
    const compiled = await compileToolSchema(
      {
        type: 'object',
        properties: { 'a/b~c': { type: 'integer' }, list: { items: false } },
        required: ['needed'],
      },
      { direction: 'input' },
    );
    const result = compiled.validate({ 'a/b~c': 'x', list: [1] });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { instanceLocation: '/a~1b~0c', keyword: 'type', schemaLocation: '#/properties/a~1b~0c/type' },
        { instanceLocation: '/list/0', keyword: 'false', schemaLocation: '#/properties/list/items' },
        { instanceLocation: '', keyword: 'required', schemaLocation: '#/required' },
      ]),
    );
  });

  it('are bounded in count and length, and never quote instance values', async () => {
    const compiled = await compileToolSchema(
      { type: 'object', additionalProperties: { type: 'integer' } },
      { direction: 'input' },
    );
    const instance: Record<string, string> = {};
    for (let i = 0; i < 100; i++) instance[`k${i}`] = 'SECRET-VALUE';
    instance['x'.repeat(10_000)] = 'SECRET-VALUE';
    const result = compiled.validate(instance);
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(result.truncated).toBe(true);
    expect(JSON.stringify(result)).not.toContain('SECRET-VALUE');

    const long = compiled.validate({ ['y'.repeat(10_000)]: 'SECRET-VALUE' });
    expect(long.truncated).toBe(true);
    for (const error of long.errors)
      expect(error.instanceLocation.length).toBeLessThanOrEqual(MAX_LOCATION_LENGTH);
  });

  it('locates failures relative to the document, and absolutely inside an embedded resource', async () => {
    const compiled = await compileToolSchema(
      {
        $id: 'https://example.com/tools/t.json',
        type: 'object',
        properties: { a: { type: 'string' }, b: { $ref: 'part.json' } },
        $defs: { part: { $id: 'part.json', type: 'integer' } },
      },
      { direction: 'input' },
    );
    expect(compiled.validate({ a: 1, b: 'x' }).errors).toEqual([
      { instanceLocation: '/a', keyword: 'type', schemaLocation: '#/properties/a/type' },
      {
        instanceLocation: '/b',
        keyword: 'type',
        schemaLocation: 'https://example.com/tools/part.json#/type',
      },
    ]);
  });

  it('reports a valid instance with no errors', async () => {
    const compiled = await compileToolSchema({ type: 'object' }, { direction: 'input' });
    expect(compiled.validate({})).toEqual({ valid: true, errors: [], truncated: false });
  });
});
