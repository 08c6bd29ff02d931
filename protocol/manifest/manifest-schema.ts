/**
 * The normative manifest JSON Schema (#manifest), compiled once. `format` stays an annotation
 * (2020-12 default): the URI rules it hints at are enforced by https-uri.ts instead, exactly
 * as the spec demands ("independently of the annotation-only JSON Schema format keyword").
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import manifestSchema from '../../fixtures/schemas/manifest.schema.json' with { type: 'json' };
import type { JsonValue } from '../json/json-value.ts';
import { schemaViolations, type Violation } from './schema-violations.ts';

const ajv = new Ajv2020({ allErrors: true, strict: true, validateFormats: false });
const validate = ajv.compile(manifestSchema);

/** Every way the value breaks the normative schema; empty when it conforms. */
export function manifestSchemaViolations(value: JsonValue): Violation[] {
  return validate(value) ? [] : schemaViolations(validate.errors);
}
