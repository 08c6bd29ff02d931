/**
 * Lifecycle payload validation (#event-json-schemas): the normative schema for the event type,
 * then the rules it cannot express. "Implementations MUST reject event payloads that do not
 * validate"; a caller that gets violations ignores the whole message and logs a bounded,
 * redacted diagnostic (#events), which is why messages never quote the payload.
 */
import type { JsonValue } from '../json/json-value.ts';
import { ViolationList, type Violation } from '../manifest/schema-violations.ts';
import type { EventType } from '../task-states.ts';
import { eventRuleViolations } from './event-rules.ts';
import { eventSchemaViolations } from './event-schema.ts';
import type { EventPayload } from './payload-types.ts';

export type EventViolation = Violation;

export type EventValidation<T extends EventType = EventType> =
  | { readonly ok: true; readonly type: T; readonly payload: EventPayload<T> }
  | { readonly ok: false; readonly violations: readonly EventViolation[] };

export function validateEventPayload<T extends EventType>(type: T, payload: JsonValue): EventValidation<T> {
  const violations = new ViolationList();
  violations.addAll(eventSchemaViolations(type, payload));
  // A rule is skipped where the schema already failed the same member (e.g. updatedAt: 5).
  for (const violation of eventRuleViolations(type, payload)) violations.add(violation);
  if (violations.items.length > 0) return { ok: false, violations: violations.items };
  return { ok: true, type, payload: payload as unknown as EventPayload<T> };
}
