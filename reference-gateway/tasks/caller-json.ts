/**
 * Caller JSON (<arguments/>, <input/>) through the strict I-JSON parse, mapped to the IQ error
 * the rejection class calls for (#json-encoding, #errors, interp-11): I-JSON failures
 * → not-acceptable, syntax → bad-request, documented limits → resource-constraint. The
 * rejection's message never reaches the wire.
 */
import type { JsonLimits } from '../../protocol/json/json-limits.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';

export type CallerJson =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly fault: StanzaFault };

const FAULT_OF_CLASS = {
  ijson: FAULT.notAcceptable,
  syntax: FAULT.badRequest,
  limit: FAULT.resourceConstraint,
  encoding: FAULT.badRequest,
} as const;

// json-encoding.single-json-value, json-encoding.ijson-rejection, json-encoding.no-reflection: one
// strict I-JSON value; the rejection's text never reaches the wire.
export function parseCallerJson(text: string, limits: JsonLimits): CallerJson {
  try {
    return { ok: true, value: parseStrictJson(text, limits) };
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    return { ok: false, fault: FAULT_OF_CLASS[error.classification] };
  }
}

/** JSON the engine wrote itself passed the caller limits before it was stored; re-reading sets none. */
export const STORED_JSON_LIMITS: JsonLimits = Object.freeze({
  maxBytes: Infinity,
  maxDepth: Infinity,
  maxStringLength: Infinity,
  maxObjectMembers: Infinity,
  maxArrayElements: Infinity,
  maxValues: Infinity,
});
