/**
 * What version 0 recognises (#schemas): the JSON Schema 2020-12 dialect with the vocabularies the
 * spec requires, and where each 2020-12 keyword keeps its subschemas. Format-Assertion is absent on
 * purpose: `format` stays annotation-only until an extension negotiates assertion behaviour, so a
 * schema that requires that vocabulary asks for something this gateway does not do.
 */

export const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** `$schema` values naming 2020-12: the URI itself, or with the empty fragment the meta-schema uses. */
export function isDialect202012(value: string): boolean {
  return value === DIALECT_2020_12 || value === `${DIALECT_2020_12}#`;
}

export const SUPPORTED_VOCABULARIES: ReadonlySet<string> = new Set([
  'https://json-schema.org/draft/2020-12/vocab/core',
  'https://json-schema.org/draft/2020-12/vocab/applicator',
  'https://json-schema.org/draft/2020-12/vocab/unevaluated',
  'https://json-schema.org/draft/2020-12/vocab/validation',
  'https://json-schema.org/draft/2020-12/vocab/meta-data',
  'https://json-schema.org/draft/2020-12/vocab/format-annotation',
  'https://json-schema.org/draft/2020-12/vocab/content',
]);

/** Keywords whose value is one subschema. */
export const SINGLE_SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'additionalProperties',
  'contains',
  'contentSchema',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);

/** Keywords whose value is an array of subschemas. */
export const SUBSCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);

/**
 * Keywords whose value maps names to subschemas. `definitions` is not a 2020-12 keyword, but it is
 * the pre-2019 spelling of `$defs` that generated tool schemas still use as a `$ref` target; it is
 * walked like `$defs` so what a reference reaches is held to the same rules.
 */
export const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  '$defs',
  'definitions',
  'dependentSchemas',
  'patternProperties',
  'properties',
]);
