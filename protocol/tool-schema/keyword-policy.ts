/**
 * Telling an unsupported assertion keyword from an unknown annotation (#schemas). JSON Schema
 * 2020-12 itself collects every unrecognised keyword as an annotation, so a name alone cannot say
 * what its author meant. The line drawn here: a keyword (or keyword form) that asserts or applies
 * subschemas in another JSON Schema release, and that 2020-12 does not define that way, is an
 * assertion its author expects to be enforced — silently ignoring it would accept arguments the tool
 * author meant to refuse, so registration fails. Every other unknown member is an annotation and is
 * kept. The list is closed and explicit; a new name needs a citation of the release that defines it.
 */
import type { JsonValue } from '../json/json-value.ts';

/** Names that assert or apply in another release, with that release, for the diagnostic. */
const FOREIGN_ASSERTION_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ['additionalItems', 'drafts 04 to 2019-09 (2020-12 uses items/prefixItems)'],
  ['dependencies', 'drafts 03 to 07 (2020-12 uses dependentSchemas/dependentRequired)'],
  ['$recursiveRef', 'draft 2019-09 (2020-12 uses $dynamicRef)'],
  ['$recursiveAnchor', 'draft 2019-09 (2020-12 uses $dynamicAnchor)'],
  ['divisibleBy', 'draft 03 (2020-12 uses multipleOf)'],
  ['disallow', 'draft 03 (2020-12 uses not)'],
  ['extends', 'draft 03 (2020-12 uses allOf)'],
  ['requires', 'draft 02 (2020-12 uses dependentRequired)'],
  ['nullable', 'the OpenAPI 3.0 Schema Object (2020-12 lists "null" in type)'],
  ['propertyDependencies', 'the next JSON Schema release (v1)'],
  ['requireAllExcept', 'the next JSON Schema release (v1)'],
  ['itemPattern', 'the next JSON Schema release (v1)'],
  ['conditional', 'the next JSON Schema release (v1)'],
]);

/**
 * Why this member of a schema object is an unsupported assertion, or undefined when 2020-12 can
 * evaluate it as written (a 2020-12 keyword in its 2020-12 form, or an annotation).
 */
export function unsupportedAssertionReason(keyword: string, value: JsonValue): string | undefined {
  const release = FOREIGN_ASSERTION_KEYWORDS.get(keyword);
  if (release !== undefined) return `'${keyword}' is an assertion keyword of ${release}`;
  return legacyFormReason(keyword, value);
}

/** 2020-12 keywords written in the shape an older release gave them a different meaning. */
function legacyFormReason(keyword: string, value: JsonValue): string | undefined {
  switch (keyword) {
    case 'items':
      return Array.isArray(value) ? "array-form 'items' is the drafts 04 to 2019-09 tuple form" : undefined;
    case 'required':
      return typeof value === 'boolean' ? "boolean 'required' is the draft 03 form" : undefined;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return typeof value === 'boolean' ? `boolean '${keyword}' is the draft 04 form` : undefined;
    case 'type':
      return Array.isArray(value) && value.some((member) => typeof member !== 'string')
        ? "schemas inside 'type' are the draft 03 union form"
        : undefined;
    default:
      return undefined;
  }
}
