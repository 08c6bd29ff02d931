import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import { compileToolSchema } from './compile.ts';

// Parsed, so "__proto__" is an ordinary member as it is in any strictly parsed argument object.
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__'];
const withMember = (name: string, value: unknown): JsonObject =>
  JSON.parse(JSON.stringify({ [name]: value })) as JsonObject;

describe('properties keyword with Object.prototype member names', () => {
  it.each(PROTOTYPE_NAMES)('treats an undeclared %s member as any other undeclared member', async (name) => {
    const open = await compileToolSchema(
      { type: 'object', properties: { a: { type: 'string' } } },
      { direction: 'input' },
    );
    expect(open.validate(withMember(name, 1))).toMatchObject({ valid: true });
    const closed = await compileToolSchema(
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      { direction: 'input' },
    );
    expect(closed.validate(withMember(name, 1))).toMatchObject({ valid: false });
  });

  it.each(PROTOTYPE_NAMES)('applies the declared subschema of a %s member', async (name) => {
    const schema = JSON.parse(
      `{"type":"object","properties":{${JSON.stringify(name)}:{"type":"string"}}}`,
    ) as JsonObject;
    const compiled = await compileToolSchema(schema, { direction: 'input' });
    expect(compiled.validate(withMember(name, 'x'))).toMatchObject({ valid: true });
    expect(compiled.validate(withMember(name, 1))).toMatchObject({ valid: false });
  });
});
