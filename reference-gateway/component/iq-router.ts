/**
 * Routes one inbound IQ through the handler table (../iq/iq-table.ts; the rows are assembled in
 * gateway-routes.ts) and returns the one reply, or nothing when no reply is due (results and
 * errors from others, stanzas without an id or a stamped sender). No sockets: every routing
 * rule is testable without a server.
 *
 * Errors carry only a defined condition and its type: never text, never the request payload
 * (#errors: replies must not reflect attacker-controlled JSON).
 */
import type { Element } from '@xmpp/xml';
import { JidError, bareJidOf, normalizeJid } from '../../protocol/jid/index.ts';
import {
  StanzaParseError,
  buildIqError,
  buildIqResult,
  localNameOf,
  namespaceOf,
  parseIq,
  type IqEnvelope,
} from '../../protocol/stanza/index.ts';
import type { Requester } from '../catalog/catalog.ts';
import { classifyAddressee } from '../iq/addressing.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';
import { UNHANDLED, type IqTable } from '../iq/iq-table.ts';

export interface IqRouter {
  /** The normalized component domain: the gateway's own JID. */
  readonly gatewayJid: string;
  readonly table: IqTable;
  /** Told the class of an error a handler threw (never its message: it may carry payloads). */
  readonly onHandlerError?: (errorName: string) => void;
}

/** The stamped sender as the catalog's requester, or undefined when it is absent or not a JID. */
export function requesterOf(from: string | undefined): Requester | undefined {
  if (from === undefined) return undefined;
  try {
    const bareJid = bareJidOf(from);
    return { fullJid: normalizeJid(from), bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

function errorReply(request: IqEnvelope, fault: StanzaFault): Element {
  return buildIqError(request, { condition: fault.condition, type: fault.type });
}

/** Best-effort envelope of an IQ that failed to parse, so it can still get its bad-request. */
function brokenRequestEnvelope(stanza: Element): IqEnvelope | undefined {
  const { id, type, from, to } = stanza.attrs as Record<string, unknown>;
  if (typeof id !== 'string' || (type !== 'get' && type !== 'set')) return undefined;
  if (typeof from !== 'string') return undefined;
  return { id, type, from, ...(typeof to === 'string' ? { to } : {}) };
}

/**
 * The reply to `stanza` (an <iq/> as received, detached from the stream), or undefined when
 * none is due. Exactly one call per inbound IQ, and the caller sends what it returns: that is
 * the whole "exactly one reply" guarantee.
 */
export async function routeIq(stanza: Element, router: IqRouter): Promise<Element | undefined> {
  let request;
  try {
    request = parseIq(stanza);
  } catch (error) {
    if (!(error instanceof StanzaParseError)) throw error;
    const envelope = brokenRequestEnvelope(stanza);
    return envelope === undefined ? undefined : errorReply(envelope, FAULT.badRequest);
  }
  // Results and errors are answers, never requests: answering them could loop (RFC 6120 §8.2.3).
  if (request.type === 'result' || request.type === 'error') return undefined;
  const requester = requesterOf(request.from);
  // The server stamps 'from' on everything it routes; without it there is nobody to answer.
  if (requester === undefined) return undefined;
  const { payload } = request;
  const to = request.to ?? router.gatewayJid;
  const handler = router.table.handlerOf(request.type, namespaceOf(payload), localNameOf(payload));
  let reply;
  try {
    reply =
      handler === undefined
        ? UNHANDLED
        : await handler({
            type: request.type,
            to,
            addressee: classifyAddressee(to, router.gatewayJid),
            requester,
            payload,
          });
  } catch (error) {
    // errors.one-reply-per-iq: a handler that fails still leaves the request its one answer.
    router.onHandlerError?.(error instanceof Error ? error.name : typeof error);
    return errorReply(request, FAULT.internalServerError);
  }
  // errors.unhandled-iq-error: a get or set nobody handles still gets its one answer, the
  // one XMPP servers give (RFC 6120 §8.4), whatever the payload and whoever it addresses.
  if (reply === UNHANDLED) return errorReply(request, FAULT.serviceUnavailable);
  // schema.base-structures-valid: every payload comes from the protocol/stanza builders, which emit
  // the structures of the normative XML Schemas.
  return reply.ok ? buildIqResult(request, reply.payload) : errorReply(request, reply.fault);
}
