/**
 * What a discovery responder answers: a result payload or a typed stanza fault that the XMPP
 * wiring turns into an IQ error. A fault carries only a defined condition and its type, never
 * text or the request's payload, so no reply can echo request JSON (#errors: "omit or truncate
 * attacker-controlled JSON") and equal faults serialize to equal bytes (interp-19).
 */
import type { Element } from '@xmpp/xml';
import { buildStanzaError } from '../../protocol/stanza/index.ts';
import type { DefinedCondition, StanzaErrorType } from '../../protocol/stanza/index.ts';

export interface StanzaFault {
  readonly condition: DefinedCondition;
  readonly type: StanzaErrorType;
}

/**
 * The faults discovery uses, with the types of interp-42. Responders return these
 * shared frozen objects, so "hidden" and "nonexistent" cannot drift apart even in identity.
 */
export const FAULT = {
  /** Nonexistent, hidden, inactive or unauthorized objects alike (#errors, interp-19). */
  itemNotFound: Object.freeze({ condition: 'item-not-found', type: 'cancel' }),
  /** A request that does not parse, or an RSM combination XEP-0059 gives no meaning. */
  badRequest: Object.freeze({ condition: 'bad-request', type: 'modify' }),
  /** A manifest hash that does not select the registered object (#schemas). */
  conflict: Object.freeze({ condition: 'conflict', type: 'cancel' }),
  /** The addressed entity does not offer this protocol (RFC 6120 §8.3.3.19). */
  serviceUnavailable: Object.freeze({ condition: 'service-unavailable', type: 'cancel' }),
  /** The IQ 'to' is not a JID at all. */
  jidMalformed: Object.freeze({ condition: 'jid-malformed', type: 'modify' }),
} as const satisfies Record<string, StanzaFault>;

/** The <error/> child for an IQ error reply: the condition alone, no text, no 'by'. */
export function faultElement(fault: StanzaFault): Element {
  return buildStanzaError({ condition: fault.condition, type: fault.type });
}

/** A responder's answer to one request. */
export type Outcome =
  { readonly ok: true; readonly payload: Element } | { readonly ok: false; readonly fault: StanzaFault };

export function answer(payload: Element): Outcome {
  return { ok: true, payload };
}

export function refuse(fault: StanzaFault): Outcome {
  return { ok: false, fault };
}
