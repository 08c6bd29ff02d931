/**
 * Every IQ error the gateway answers, named once with its stanza error condition and type
 * (interp-42 fixes the types). Discovery, tasks, registration and the router all answer with
 * these shared frozen objects, so "hidden" and "nonexistent" cannot drift apart even in
 * identity (#errors, interp-19).
 *
 * A fault carries only a defined condition and its type, never text or the request's payload,
 * so no reply can echo request JSON (#errors: "omit or truncate attacker-controlled JSON") and
 * equal faults serialize to equal bytes.
 */
import type { Element } from '@xmpp/xml';
import { buildStanzaError } from '../../protocol/stanza/index.ts';
import type { DefinedCondition, StanzaErrorType } from '../../protocol/stanza/index.ts';

export interface StanzaFault {
  readonly condition: DefinedCondition;
  readonly type: StanzaErrorType;
}

export const FAULT = {
  /** Nonexistent, hidden, inactive, expired or unauthorized objects alike (#errors, interp-19). */
  itemNotFound: Object.freeze({ condition: 'item-not-found', type: 'cancel' }),
  /** A request that does not parse, an invalid identifier, or an RSM combination XEP-0059 gives no meaning. */
  badRequest: Object.freeze({ condition: 'bad-request', type: 'modify' }),
  /** A hash that does not select the registered object, a replay that differs, a late answer. */
  conflict: Object.freeze({ condition: 'conflict', type: 'cancel' }),
  /** The addressed entity does not offer this protocol (RFC 6120 §8.3.3.19). */
  serviceUnavailable: Object.freeze({ condition: 'service-unavailable', type: 'cancel' }),
  /** The IQ 'to' is not a JID at all. */
  jidMalformed: Object.freeze({ condition: 'jid-malformed', type: 'modify' }),
  /** JSON that breaks I-JSON or a schema, or a manifest defect (interp-11). */
  notAcceptable: Object.freeze({ condition: 'not-acceptable', type: 'modify' }),
  /** A documented limit or a rate limit, only ever after authorization (interp-42). */
  resourceConstraint: Object.freeze({ condition: 'resource-constraint', type: 'wait' }),
  /** A request the object's current state does not allow yet, e.g. the result of a running task. */
  unexpectedRequest: Object.freeze({ condition: 'unexpected-request', type: 'wait' }),
  /** A sender without the authority the operation needs (interp-24), or an approval we cannot enforce. */
  forbidden: Object.freeze({ condition: 'forbidden', type: 'auth' }),
  /** An operation the object's state forbids for good: removing what is active or retained (interp-24). */
  notAllowed: Object.freeze({ condition: 'not-allowed', type: 'cancel' }),
  /** A store or runtime fault while answering: the request still gets its one reply. */
  internalServerError: Object.freeze({ condition: 'internal-server-error', type: 'wait' }),
} as const satisfies Record<string, StanzaFault>;

/** The <error/> child for an IQ error reply: the condition alone, no text, no 'by'. */
export function faultElement(fault: StanzaFault): Element {
  return buildStanzaError({ condition: fault.condition, type: fault.type });
}
