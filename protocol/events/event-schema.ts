/**
 * The normative lifecycle payload schema (#event-json-schemas), compiled once. It has no root
 * type: the <event/> element's 'type' attribute selects `$defs/<type>`, so each definition is
 * compiled through its URI reference. `format: date-time` stays an annotation here; the
 * XEP-0082 check is ours (event-rules.ts), because the spec profile is narrower than RFC 3339.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import eventSchema from '../../fixtures/schemas/event.schema.json' with { type: 'json' };
import { fixedValidator } from '../json/fixed-validator.ts';
import type { JsonValue } from '../json/json-value.ts';
import { schemaViolations, type Violation } from '../manifest/schema-violations.ts';
import { EVENT_TYPES, type EventType } from '../task-states.ts';

/**
 * strictNumbers (also ajv's default) makes `type: number` refuse NaN and ±Infinity, which is
 * what enforces "percent MUST be a finite number" (#events) for values built in code; JSON
 * text cannot carry them, and the strict parse refuses overflow to Infinity.
 */
const OPTIONS = { allErrors: true, strict: true, strictNumbers: true, validateFormats: false };

function compileDefinition(type: EventType): ValidateFunction {
  return fixedValidator({ options: OPTIONS, refs: [eventSchema], root: `${eventSchema.$id}#/$defs/${type}` });
}

/**
 * Each loaded on its first event, not when a process imports this module: a gateway start
 * emits none, and loading them all cost it 10-20 ms.
 */
const validators = new Map<EventType, ValidateFunction>();
const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Every way the payload breaks `$defs/<type>`; empty when it conforms. */
export function eventSchemaViolations(type: EventType, payload: JsonValue): Violation[] {
  if (!KNOWN_TYPES.has(type)) {
    return [{ rule: 'event-type:unknown', path: '', message: 'not a lifecycle event type' }];
  }
  let validate = validators.get(type);
  if (validate === undefined) {
    validate = compileDefinition(type);
    validators.set(type, validate);
  }
  return validate(payload) ? [] : schemaViolations(validate.errors);
}
