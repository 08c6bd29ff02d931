/**
 * The gateway's IQ handlers, keyed by IQ type, payload namespace and element name (as Prosody
 * hooks `iq-get/host/ns:element`). Each feature registers its own rows (discovery, tasks,
 * administration, ping); the router looks a request up once and answers whatever has no row,
 * or whose handler declines it, with service-unavailable (component/iq-router.ts).
 *
 * A key has at most one handler: two features claiming the same payload is a wiring error,
 * refused when the table is built, never a silent precedence.
 */
import type { Element } from '@xmpp/xml';
import type { Requester } from '../catalog/catalog.ts';
import type { Addressee } from './addressing.ts';
import type { StanzaFault } from './faults.ts';

export type IqType = 'get' | 'set';

export const IQ_TYPES: readonly IqType[] = ['get', 'set'];

/** One inbound IQ request, as a handler sees it. */
export interface IqCall {
  readonly type: IqType;
  /** The IQ's 'to' exactly as received, or the gateway JID when it has none. */
  readonly to: string;
  /** What `to` addresses: the gateway, an endpoint bare JID, a full JID, or no JID at all. */
  readonly addressee: Addressee;
  /** The authenticated sender the server stamped (#rules: every decision is for this principal). */
  readonly requester: Requester;
  /** The IQ's one child element. */
  readonly payload: Element;
}

/** A result (with its payload, if any) or a fault; the router wraps it in the IQ reply. */
export type IqReply =
  { readonly ok: true; readonly payload?: Element } | { readonly ok: false; readonly fault: StanzaFault };

/**
 * A handler's "not mine after all": the payload is registered, but not for this addressee (an
 * administrative operation sent to an endpoint, a task request sent to the gateway). The router
 * answers it exactly as a payload nobody registered.
 */
export const UNHANDLED = Symbol('unhandled IQ');

export type IqHandler = (call: IqCall) => IqReply | typeof UNHANDLED | Promise<IqReply | typeof UNHANDLED>;

export interface IqRoute {
  readonly type: IqType;
  readonly ns: string;
  readonly element: string;
  readonly handle: IqHandler;
}

/** The same handler under both IQ types: for payloads whose responder answers a wrong type itself. */
export function bothTypes(ns: string, element: string, handle: IqHandler): IqRoute[] {
  return IQ_TYPES.map((type) => ({ type, ns, element, handle }));
}

function keyOf(type: IqType, ns: string, element: string): string {
  return `iq-${type}/{${ns}}${element}`;
}

export class IqTable {
  readonly #handlers = new Map<string, IqHandler>();

  constructor(routes: Iterable<IqRoute>) {
    for (const { type, ns, element, handle } of routes) {
      const key = keyOf(type, ns, element);
      if (this.#handlers.has(key)) throw new Error(`two IQ handlers for ${key}`);
      this.#handlers.set(key, handle);
    }
  }

  /** The handler registered for this IQ type and payload, if any (none for a payload without a namespace). */
  handlerOf(type: IqType, ns: string | undefined, element: string): IqHandler | undefined {
    return ns === undefined ? undefined : this.#handlers.get(keyOf(type, ns, element));
  }

  /** Every registered key (`iq-get/{ns}element`), for tests and diagnostics. */
  keys(): string[] {
    return [...this.#handlers.keys()];
  }
}
