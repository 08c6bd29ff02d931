/**
 * The normative manifest JSON Schema (#manifest), compiled once. `format` stays an annotation
 * (2020-12 default): the URI rules it hints at are enforced by https-uri.ts instead, exactly
 * as the spec demands ("independently of the annotation-only JSON Schema format keyword").
 */
import manifestSchema from '../../fixtures/schemas/manifest.schema.json' with { type: 'json' };
import { fixedValidator } from '../json/fixed-validator.ts';
import type { JsonValue } from '../json/json-value.ts';
import { schemaViolations, type Violation } from './schema-violations.ts';

const validate = fixedValidator({
  options: { allErrors: true, strict: true, validateFormats: false },
  root: manifestSchema,
});

/** Every way the value breaks the normative schema; empty when it conforms. */
export function manifestSchemaViolations(value: JsonValue): Violation[] {
  return validate(value) ? [] : schemaViolations(validate.errors);
}
