/**
 * Which requirement an event payload that fails its schema breaks. The event schemas enforce every
 * member rule, so every failure breaks #event-json-schemas; a progress percent outside its range
 * also has a requirement of its own in #events, the more precise claim to report.
 */
import type { RequirementId } from '../registry/requirement-ids.ts';

export function requirementOfInvalidEvent(
  type: string,
  violations: readonly { readonly path: string }[],
): RequirementId {
  const onlyPercent = violations.length > 0 && violations.every((violation) => violation.path === '/percent');
  return type === 'progress' && onlyPercent
    ? 'events.progress-percent-range'
    : 'event-json-schemas.payloads-valid';
}
