/**
 * How the caller engine reaches the network: one IQ out, its answer back. The engine never
 * holds a connection of its own, so the same code calls from a client session (the MCP bridge)
 * and from a component (the reference gateway's call-out runtime).
 */
import type { Element } from '@xmpp/xml';
import type { IqError, IqResult } from '../protocol/stanza/index.ts';

/** No answer to an IQ within its time: the request may or may not have been processed. */
export class IqLost extends Error {
  override readonly name = 'IqLost';
  constructor(
    readonly to: string,
    readonly stanzaId: string,
  ) {
    super(`no answer from ${to} to IQ ${stanzaId}`);
  }
}

export type IqAnswer = IqResult | IqError;

/** Sends one IQ and returns its answer (rejects with IqLost when none came). */
export type Querier = (to: string, type: 'get' | 'set', payload: Element) => Promise<IqAnswer>;
