/**
 * Turns ajv's errors for the spec's normative JSON Schemas (#manifest, #event-json-schemas)
 * into violations with a rule, a JSON pointer and a message of our own. Messages name the
 * constraint and schema-given limits but never the offending value: diagnostics must stay
 * bounded and must not reflect the rejected JSON (#json-encoding, #errors).
 *
 * Shared by protocol/manifest and protocol/events; it lives here because the manifest came first.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';

export interface Violation {
  /** `<family>:<detail>`, e.g. `schema:required`; stable, for tests and error mapping. */
  readonly rule: string;
  /** RFC 6901 JSON pointer into the validated value ('' is the whole value). */
  readonly path: string;
  readonly message: string;
}

import { appendPointer as childPointer } from '../json/json-pointer.ts';

export { childPointer };
export { pointerToken } from '../json/json-pointer.ts';

function param(error: ErrorObject, name: string): unknown {
  return (error.params as Record<string, unknown>)[name];
}

function describe(error: ErrorObject): string {
  const limit = param(error, 'limit');
  switch (error.keyword) {
    case 'required':
      return 'this member is required';
    case 'additionalProperties':
      return 'this member is not allowed here';
    case 'type': {
      const type = String(param(error, 'type'));
      // NaN and ±Infinity fail `number` too (ajv strictNumbers), so say so.
      return type === 'number' || type === 'integer'
        ? `must be a finite JSON ${type}`
        : `must be of JSON type ${type}`;
    }
    case 'const':
      return `must equal ${JSON.stringify(param(error, 'allowedValue'))}`;
    case 'enum':
      return `must be one of ${JSON.stringify(param(error, 'allowedValues'))}`;
    case 'pattern':
      return `does not match the pattern ${String(param(error, 'pattern'))}`;
    case 'minLength':
      return `must have at least ${String(limit)} character(s)`;
    case 'maxLength':
      return `must have at most ${String(limit)} character(s)`;
    case 'minimum':
      return `must be at least ${String(limit)}`;
    case 'maximum':
      return `must be at most ${String(limit)}`;
    case 'maxItems':
      return `must have at most ${String(limit)} item(s)`;
    case 'minProperties':
      return `must have at least ${String(limit)} member(s)`;
    case 'uniqueItems':
      return `repeats item ${String(param(error, 'i'))}`;
    default:
      return `violates the schema keyword "${error.keyword}"`;
  }
}

/**
 * The pointer of the thing at fault: ajv reports member-level keywords at the parent object,
 * we point at the missing or unexpected member, and at the later of two duplicate items.
 */
function faultPointer(error: ErrorObject): string {
  const member = param(error, error.keyword === 'required' ? 'missingProperty' : 'additionalProperty');
  if (
    (error.keyword === 'required' || error.keyword === 'additionalProperties') &&
    typeof member === 'string'
  ) {
    return childPointer(error.instancePath, member);
  }
  // ajv scans backwards: `j` is the later index of the pair, `i` the earlier.
  const later = param(error, 'j');
  if (error.keyword === 'uniqueItems' && typeof later === 'number')
    return childPointer(error.instancePath, later);
  return error.instancePath;
}

export function schemaViolations(errors: readonly ErrorObject[] | null | undefined): Violation[] {
  return (errors ?? []).map((error) => ({
    rule: `schema:${error.keyword}`,
    path: faultPointer(error),
    message: describe(error),
  }));
}

/**
 * Collects violations so that each defect is reported once: a later check is dropped when
 * an earlier violation already sits at its location or inside it (the earlier one is the
 * more specific cause, e.g. the schema's `type` error for a value a semantic rule also dislikes).
 */
export class ViolationList<V extends Violation = Violation> {
  readonly #items: V[] = [];

  get items(): readonly V[] {
    return this.#items;
  }

  /** True when a violation is already recorded at `path` or below it. */
  covers(path: string): boolean {
    return this.#items.some((v) => v.path === path || v.path.startsWith(`${path}/`));
  }

  add(violation: V): void {
    if (!this.covers(violation.path)) this.#items.push(violation);
  }

  /** Records every violation, even several at one location (the schema's own findings). */
  addAll(violations: readonly V[]): void {
    this.#items.push(...violations);
  }
}
