/**
 * Which validations may skip the worker (#security: evaluation MUST be resource bounded). The
 * worker's wall-clock budget is the bound for any schema, but a hand-off costs two thread hops
 * per batch, which dominated small admissions (bench/admission). For a schema whose cost can be
 * bounded before evaluating, the bound is static instead, and the evaluation runs in the calling
 * thread.
 *
 * The argument: without references a schema is a tree, so each subschema site is applied to each
 * instance value at most once (the applicators reach an instance value by one path), and without
 * regular expressions, `uniqueItems` (quadratic in the array) and the `unevaluated*` keywords
 * (which re-evaluate sibling subschemas to collect annotations) every keyword's own work is linear
 * in its data (`const`, `enum`, `required`, `dependentRequired`) or constant. So the work is at
 * most (sites + data values) × (instance values) keyword steps, and a small product is a small,
 * known cost. Anything else goes to the worker and its budget.
 */
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { isJsonObject } from '../json/json-value.ts';
import { walkSchema } from './schema-walk.ts';

/** Keywords whose cost the static bound cannot see: their presence anywhere sends every validation to the worker. */
const UNBOUNDED_KEYWORDS: ReadonlySet<string> = new Set([
  'pattern',
  'patternProperties',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** Keywords whose data each instance value is compared against. */
const DATA_KEYWORDS: readonly string[] = ['const', 'enum', 'required', 'dependentRequired'];

/**
 * Keyword steps an inline validation may take, (schema weight) × (instance values): at the
 * evaluator's few microseconds per step, a few milliseconds at most.
 */
export const INLINE_WORK_MAX = 20_000;

/** Instance JSON text beyond which the worker is used whatever the schema (string scans are linear in it). */
export const INLINE_INSTANCE_MAX_BYTES = 8_192;

/** JSON values in `value` (itself and every container included), counting no further than `limit + 1`. */
export function countJsonValues(value: JsonValue, limit: number = Number.MAX_SAFE_INTEGER): number {
  let count = 1;
  const stack: JsonValue[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const children = Array.isArray(next) ? next : isJsonObject(next) ? Object.values(next) : [];
    // Counted before they are looked into, so a huge container costs nothing past the limit.
    count += children.length;
    if (count > limit) return limit + 1;
    for (const child of children) stack.push(child);
  }
  return count;
}

/**
 * The schema's weight for the bound (subschema sites plus data values), or undefined when its cost
 * cannot be bounded statically.
 */
export function inlineWeightOf(schema: JsonObject, retrievalUri: string): number | undefined {
  let weight = 0;
  for (const site of walkSchema(schema, retrievalUri)) {
    weight += 1;
    if (typeof site.schema === 'boolean') continue;
    for (const keyword of Object.keys(site.schema)) {
      if (UNBOUNDED_KEYWORDS.has(keyword)) return undefined;
    }
    if (site.schema['uniqueItems'] === true) return undefined;
    for (const keyword of DATA_KEYWORDS) {
      const data = site.schema[keyword];
      if (data !== undefined) weight += countJsonValues(data);
    }
    if (weight > INLINE_WORK_MAX) return undefined;
  }
  return weight;
}

/** Whether validating `instance` (its JSON text `text`) against a schema of `weight` stays within the inline bound. */
export function withinInlineBound(weight: number | undefined, instance: JsonValue, text: string): boolean {
  if (weight === undefined || text.length > INLINE_INSTANCE_MAX_BYTES) return false;
  const limit = Math.floor(INLINE_WORK_MAX / weight);
  return countJsonValues(instance, limit) <= limit;
}
