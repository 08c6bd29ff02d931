/**
 * The normative manifest JSON Schema (#manifest), compiled once. `format` stays an annotation
 * (2020-12 default): the URI rules it hints at are enforced by https-uri.ts instead, exactly
 * as the spec demands ("independently of the annotation-only JSON Schema format keyword").
 */
import manifestSchema from '../../fixtures/schemas/manifest.schema.json' with { type: 'json' };
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { fixedValidator } from '../json/fixed-validator.ts';
import type { JsonValue } from '../json/json-value.ts';
import { schemaViolations, type Violation } from './schema-violations.ts';

// Loaded on first use, not at import: a gateway whose world intake was cached validates no
// manifest at start.
let loaded: ValidateFunction | undefined;

/** Every way the value breaks the normative schema; empty when it conforms. */
export function manifestSchemaViolations(value: JsonValue): Violation[] {
  loaded ??= fixedValidator({
    options: { allErrors: true, strict: true, validateFormats: false },
    root: manifestSchema,
  });
  const validate = loaded;
  return validate(value) ? [] : schemaViolations(validate.errors);
}
