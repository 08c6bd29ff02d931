/**
 * Authoritative schema validation within the time budget (#rules: the target validates
 * against the registered schema; #security: evaluation is bounded). The evaluation runs on the
 * budgeted worker; running out of time or queue is a documented limit, not a verdict.
 */
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { CompiledToolSchema } from '../../protocol/tool-schema/index.ts';
import type { EngineContext } from './engine-context.ts';

export type SchemaVerdict = 'valid' | 'invalid' | 'limit';

export async function checkSchema(
  ctx: EngineContext,
  schema: CompiledToolSchema,
  value: JsonValue,
): Promise<SchemaVerdict> {
  const outcome = await ctx.validator.validate(schema, value, { timeoutMs: ctx.limits.validationTimeoutMs });
  if ('valid' in outcome) return outcome.valid ? 'valid' : 'invalid';
  // validation-timeout, validation-overloaded, or a worker that failed: no verdict was reached.
  return 'limit';
}
