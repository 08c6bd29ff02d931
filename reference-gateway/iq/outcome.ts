/**
 * What a responder answers to one request: a result payload, or a fault (faults.ts) that the
 * router turns into an IQ error.
 */
import type { Element } from '@xmpp/xml';
import type { StanzaFault } from './faults.ts';

export type Outcome =
  { readonly ok: true; readonly payload: Element } | { readonly ok: false; readonly fault: StanzaFault };

export function answer(payload: Element): Outcome {
  return { ok: true, payload };
}

export function refuse(fault: StanzaFault): Outcome {
  return { ok: false, fault };
}
