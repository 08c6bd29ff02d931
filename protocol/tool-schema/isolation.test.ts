import { describe, expect, it } from 'vitest';
import { compileToolSchema } from './compile.ts';
import { getAllRegisteredSchemaUris, hasDialect } from './evaluator-module.ts';
import { expectRejected } from './test-support/expect-rejection.ts';

const input = { direction: 'input' } as const;
const SHARED_ID = 'https://example.com/tools/shared-id.json';

function withField(type: string): { $id: string; type: 'object'; properties: { value: { type: string } } } {
  return { $id: SHARED_ID, type: 'object', properties: { value: { type } } };
}

describe('registry isolation', () => {
  it('keeps two tools that share an $id apart', async () => {
    const strings = await compileToolSchema(withField('string'), input);
    const numbers = await compileToolSchema(withField('number'), input);
    expect(strings.validate({ value: 'x' }).valid).toBe(true);
    expect(strings.validate({ value: 1 }).valid).toBe(false);
    expect(numbers.validate({ value: 1 }).valid).toBe(true);
    expect(numbers.validate({ value: 'x' }).valid).toBe(false);
  });

  it('keeps concurrent compiles apart', async () => {
    const types = ['string', 'number', 'boolean', 'array', 'null'];
    const compiled = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        compileToolSchema(withField(types[index % types.length] ?? 'string'), input),
      ),
    );
    const samples: Record<string, unknown> = { string: 's', number: 1, boolean: true, array: [], null: null };
    compiled.forEach((schema, index) => {
      const own = types[index % types.length] ?? 'string';
      for (const [type, sample] of Object.entries(samples)) {
        expect(schema.validate({ value: sample as null }).valid, `${own} vs ${type}`).toBe(type === own);
      }
    });
  });

  it('leaves the registry as it found it, whether a compile succeeds or fails', async () => {
    const before = getAllRegisteredSchemaUris().sort();
    await compileToolSchema(withField('string'), input);
    await expectRejected({ type: 'object', $ref: '#/$defs/missing' }, 'unresolvable-reference', '/$ref');
    await expectRejected(
      { $id: SHARED_ID, type: 'object', properties: { a: { type: 'strin' } } },
      'invalid-schema',
      '/properties/a/type',
    );
    expect(getAllRegisteredSchemaUris().sort()).toEqual(before);
    await expect(compileToolSchema(withField('string'), input)).resolves.toBeDefined();
  });

  it('cannot redefine the 2020-12 dialect through $id and $vocabulary', async () => {
    const coreOnly = { 'https://json-schema.org/draft/2020-12/vocab/core': true };
    const metaSchemaId = 'https://json-schema.org/draft/2020-12/schema';
    await expectRejected(
      { $id: metaSchemaId, $vocabulary: coreOnly, type: 'object' },
      'reserved-identifier',
      '/$id',
    );
    // The evaluator treats any object with $id as a resource, even inside const; refused there too.
    await expectRejected(
      { type: 'object', const: { $id: metaSchemaId, $vocabulary: coreOnly } },
      'invalid-schema',
      '/const/$vocabulary',
    );
    const strict = await compileToolSchema({ type: 'object', properties: { a: { type: 'string' } } }, input);
    expect(strict.validate({ a: 1 }).valid).toBe(false);
    expect(hasDialect(metaSchemaId)).toBe(true);
  });

  it('loads no dialect for an embedded resource that declares $vocabulary', async () => {
    const id = 'https://example.com/tools/embedded-vocabulary';
    const schema = {
      type: 'object',
      $defs: { v: { $id: id, $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/core': true } } },
    };
    await compileToolSchema(schema, input);
    expect(hasDialect(id)).toBe(false);
  });
});
