/** Test support: expect a compile to be refused by one rule at one path. */
import { expect } from 'vitest';
import type { JsonValue } from '../../json/json-value.ts';
import type { CompileToolSchemaOptions } from '../compile.ts';
import { compileToolSchema } from '../compile.ts';
import type { ToolSchemaRule } from '../rejection.ts';
import { ToolSchemaRejection } from '../rejection.ts';

export async function rejectionOf(
  schema: JsonValue,
  options: CompileToolSchemaOptions = { direction: 'input' },
): Promise<ToolSchemaRejection> {
  try {
    await compileToolSchema(schema, options);
  } catch (error) {
    if (error instanceof ToolSchemaRejection) return error;
    throw error;
  }
  throw new Error('the schema was accepted');
}

export async function expectRejected(
  schema: JsonValue,
  rule: ToolSchemaRule,
  path: string,
  options?: CompileToolSchemaOptions,
): Promise<void> {
  const rejection = await rejectionOf(schema, options);
  expect({ rule: rejection.rule, path: rejection.path }).toEqual({ rule, path });
}
