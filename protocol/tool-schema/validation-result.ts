/**
 * What a validation reports (#json-encoding: diagnostics bounded and safe). Errors name where the
 * instance failed and which keyword refused it — never the instance's values — and both the number
 * of errors and the length of each location are capped, because locations contain the caller's
 * member names.
 */
import type { JsonValue } from '../json/json-value.ts';
import type { OutputUnit, Validator } from './evaluator.ts';
import { loadedEvaluator } from './evaluator.ts';
import { pointerTokens } from '../json/json-pointer.ts';

export interface SchemaValidationError {
  /** JSON pointer into the instance. */
  readonly instanceLocation: string;
  /** The refusing keyword, or "false" for a `false` subschema. */
  readonly keyword: string;
  /** "#"-prefixed pointer into the tool schema, or an absolute URI inside an embedded resource. */
  readonly schemaLocation: string;
}

export interface SchemaValidationResult {
  readonly valid: boolean;
  readonly errors: readonly SchemaValidationError[];
  /** True when more errors existed than are reported, or a location was shortened. */
  readonly truncated: boolean;
}

export const MAX_REPORTED_ERRORS = 16;
export const MAX_LOCATION_LENGTH = 256;

const BOOLEAN_SCHEMA_KEYWORD = 'https://json-schema.org/evaluation/validate';
const VALID: SchemaValidationResult = Object.freeze({
  valid: true,
  errors: Object.freeze([]),
  truncated: false,
});

/**
 * Evaluates one instance. The cheap flag-only pass decides validity; error detail is collected in a
 * second pass only for instances that fail, which are the rare ones on a gateway.
 */
export function evaluateInstance(
  validator: Validator,
  instance: JsonValue,
  documentUri: string,
): SchemaValidationResult {
  // A Validator exists only once the evaluator was loaded to make it.
  loadedEvaluator().applyEvaluatorPosture();
  if (validator(instance).valid) return VALID;
  const detailed = validator(instance, 'BASIC');
  const units = detailed.valid ? [] : (detailed.errors ?? []);
  let truncated = units.length > MAX_REPORTED_ERRORS;
  const errors = units.slice(0, MAX_REPORTED_ERRORS).map((unit) => {
    const error = describe(unit, documentUri);
    if (
      error.instanceLocation.length > MAX_LOCATION_LENGTH ||
      error.schemaLocation.length > MAX_LOCATION_LENGTH
    ) {
      truncated = true;
    }
    return {
      instanceLocation: shorten(error.instanceLocation),
      keyword: shorten(error.keyword),
      schemaLocation: shorten(error.schemaLocation),
    };
  });
  return { valid: false, errors, truncated };
}

function describe(unit: OutputUnit, documentUri: string): SchemaValidationError {
  const schemaLocation = unit.absoluteKeywordLocation.startsWith(`${documentUri}#`)
    ? unit.absoluteKeywordLocation.slice(documentUri.length)
    : unit.absoluteKeywordLocation;
  const hash = schemaLocation.indexOf('#');
  const schemaPointer = hash === -1 ? '' : safeDecode(schemaLocation.slice(hash + 1));
  const keyword =
    unit.keyword === BOOLEAN_SCHEMA_KEYWORD ? 'false' : (pointerTokens(schemaPointer)?.at(-1) ?? '');
  return {
    instanceLocation: safeDecode(
      unit.instanceLocation.startsWith('#') ? unit.instanceLocation.slice(1) : unit.instanceLocation,
    ),
    keyword,
    schemaLocation: hash === -1 ? schemaLocation : `${schemaLocation.slice(0, hash)}#${schemaPointer}`,
  };
}

/** The evaluator writes locations with encodeURI; decodeURI is its exact inverse. */
function safeDecode(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}

function shorten(text: string): string {
  if (text.length <= MAX_LOCATION_LENGTH) return text;
  let cut = text.slice(0, MAX_LOCATION_LENGTH - 1);
  // Never leave half of a surrogate pair behind.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}
