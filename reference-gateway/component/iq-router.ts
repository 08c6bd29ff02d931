/**
 * Routes one inbound IQ to the responder that owns its payload and returns the one reply, or
 * nothing when no reply is due (results and errors from others, stanzas without an id or a
 * stamped sender). Pure apart from the provisioning service: no sockets, so every routing rule
 * is testable without a server.
 *
 * - discovery, metadata and search payloads → respondToDiscovery (#discovery, #search), under
 *   the per-principal rate limits of those three operations (#security);
 * - Administrative Provisioning payloads addressed to the gateway JID → Provisioning
 *   (#registration-flow); mutations are IQ set, <registration-status/> is IQ get;
 * - agent-task requests addressed to an endpoint bare JID → the task engine (task-routing.ts),
 *   when the gateway runs one; discovery at the endpoints it executes advertises the task
 *   features;
 * - XEP-0199 ping → empty result (at the gateway and at every hosted JID alike, so a ping never
 *   tells hidden from nonexistent endpoints);
 * - anything else → service-unavailable (RFC 6120 §8.4).
 *
 * Errors carry only a defined condition and its type: never text, never the request payload
 * (#errors: replies must not reflect attacker-controlled JSON).
 */
import type { Element } from '@xmpp/xml';
import { JidError, bareJidOf, normalizeBareJid, normalizeJid } from '../../protocol/jid/index.ts';
import { NS, NS_AGENT_API } from '../../protocol/namespaces.ts';
import {
  StanzaParseError,
  buildActive,
  buildDeactivated,
  buildIqError,
  buildIqResult,
  buildRegistered,
  buildRegistration,
  buildRemoved,
  localNameOf,
  namespaceOf,
  parseActivate,
  parseDeactivate,
  parseIq,
  parseRegister,
  parseRegistrationStatus,
  parseRemoveEndpoint,
  parseRemoveVersion,
  type IqEnvelope,
} from '../../protocol/stanza/index.ts';
import type { Catalog, Requester } from '../catalog/catalog.ts';
import type { RateLimitedOperation } from '../config/limits.ts';
import { respondToDiscovery, type DiscoverySettings } from '../discovery/index.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';
import { admit } from '../policy/admission.ts';
import type { RateLimiter } from '../policy/rate-limiter.ts';
import type { Provisioning } from '../registration/provisioning.ts';
import { refuse as refuseRegistration, type Outcome } from '../registration/registration-fault.ts';
import { discoverySettingsAt, respondToTaskRequest, type TaskRouting } from './task-routing.ts';

export interface IqRouterContext {
  /** The normalized component domain: the gateway's own JID. */
  readonly gatewayJid: string;
  readonly catalog: Catalog;
  readonly settings: DiscoverySettings;
  readonly provisioning: Provisioning;
  /** Whether non-admins on local domains may self-register (decides the refusal of unparsable <register/>). */
  readonly selfRegistration: boolean;
  /** The configured token buckets (limits.rateLimits); provisioning holds the same limiter. */
  readonly rateLimiter: RateLimiter<RateLimitedOperation>;
  /** The task engine and where it executes; without it no task request is served or advertised. */
  readonly tasks?: TaskRouting;
}

type AdminOperation =
  'register' | 'activate' | 'deactivate' | 'registration-status' | 'remove-version' | 'remove-endpoint';

const ADMIN_OPERATIONS: ReadonlyMap<string, 'get' | 'set'> = new Map<AdminOperation, 'get' | 'set'>([
  ['register', 'set'],
  ['activate', 'set'],
  ['deactivate', 'set'],
  ['registration-status', 'get'],
  ['remove-version', 'set'],
  ['remove-endpoint', 'set'],
]);

/**
 * The rate-limited operation of a discovery payload (#security names directory enumeration,
 * search and schema retrieval): manifest and schema requests are metadata, Jabber Search is
 * search, every disco#info and disco#items is discovery.
 */
function discoveryOperation(payload: Element): RateLimitedOperation {
  const ns = namespaceOf(payload);
  if (ns === NS.search) return 'search';
  return ns === NS_AGENT_API ? 'metadata' : 'discovery';
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

function addressedToGateway(to: string | undefined, gatewayJid: string): boolean {
  if (to === undefined) return true;
  try {
    return normalizeBareJid(to) === gatewayJid;
  } catch (error) {
    if (error instanceof JidError) return false;
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

function parsedOrUndefined<T>(parse: (element: Element) => T, payload: Element): T | undefined {
  try {
    return parse(payload);
  } catch (error) {
    if (error instanceof StanzaParseError) return undefined;
    throw error;
  }
}

/** A provisioning outcome as a result payload or a fault: condition and type only. */
function provisioned<T>(outcome: Outcome<T>, build: (value: T) => Element): Element | StanzaFault {
  return outcome.ok ? build(outcome.value) : { condition: outcome.fault.condition, type: outcome.fault.type };
}

async function administer(
  operation: string,
  payload: Element,
  sender: Requester,
  context: IqRouterContext,
): Promise<Element | StanzaFault> {
  const { provisioning } = context;
  if (operation === 'register') {
    const request = parsedOrUndefined(parseRegister, payload);
    if (request === undefined) {
      // Authorization is decided before the payload's grammar for everyone but those it could authorize.
      if (provisioning.isAdmin(sender) || provisioning.maySelfRegister(sender)) return FAULT.badRequest;
      const { fault } = refuseRegistration(
        context.selfRegistration ? 'not-local-sender' : 'self-registration-unavailable',
      );
      return { condition: fault.condition, type: fault.type };
    }
    return provisioned(await provisioning.register(sender, request.manifestJson), (r) =>
      buildRegistered(r.registered),
    );
  }
  // A non-admin learns nothing, not even whether its request was well-formed (interp-24).
  const badRequest = (): StanzaFault => (provisioning.isAdmin(sender) ? FAULT.badRequest : FAULT.forbidden);
  switch (operation) {
    case 'activate': {
      const request = parsedOrUndefined(parseActivate, payload);
      return request === undefined
        ? badRequest()
        : provisioned(provisioning.activate(sender, request), buildActive);
    }
    case 'deactivate': {
      const request = parsedOrUndefined(parseDeactivate, payload);
      return request === undefined
        ? badRequest()
        : provisioned(provisioning.deactivate(sender, request), buildDeactivated);
    }
    case 'registration-status': {
      const request = parsedOrUndefined(parseRegistrationStatus, payload);
      return request === undefined
        ? badRequest()
        : provisioned(provisioning.registrationStatus(sender, request), buildRegistration);
    }
    case 'remove-version': {
      const request = parsedOrUndefined(parseRemoveVersion, payload);
      return request === undefined
        ? badRequest()
        : provisioned(provisioning.removeVersion(sender, request), buildRemoved);
    }
    case 'remove-endpoint': {
      const request = parsedOrUndefined(parseRemoveEndpoint, payload);
      return request === undefined
        ? badRequest()
        : provisioned(provisioning.removeEndpoint(sender, request), buildRemoved);
    }
    default:
      return FAULT.serviceUnavailable;
  }
}

/**
 * The reply to `stanza` (an <iq/> as received, detached from the stream), or undefined when
 * none is due. Exactly one call per inbound IQ, and the caller sends what it returns: that is
 * the whole "exactly one reply" guarantee.
 */
export async function routeIq(stanza: Element, context: IqRouterContext): Promise<Element | undefined> {
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
  const to = request.to ?? context.gatewayJid;

  const discovery = respondToDiscovery(
    { iqType: request.type, to, requester, payload },
    context.catalog,
    discoverySettingsAt(to, context.settings, context.tasks),
  );
  if (discovery !== undefined) {
    // Every request takes a token, but only a request that would succeed may learn that it was
    // limited: an error answer (hidden, nonexistent, malformed) stays exactly what it is, so a
    // limit never tells hidden from nonexistent (#privacy, interp-42). The answer is
    // computed first because success is what authorization means for these operations.
    const operation = discoveryOperation(payload);
    const admission = admit(context.rateLimiter, operation, requester.bareJid, discovery.ok);
    if (admission.kind === 'rate-limited') return errorReply(request, FAULT.resourceConstraint);
    return discovery.ok ? buildIqResult(request, discovery.payload) : errorReply(request, discovery.fault);
  }
  const ns = namespaceOf(payload);
  const local = localNameOf(payload);
  if (ns === NS.ping && local === 'ping') {
    return request.type === 'get' ? buildIqResult(request) : errorReply(request, FAULT.serviceUnavailable);
  }
  const adminType = ns === NS_AGENT_API ? ADMIN_OPERATIONS.get(local) : undefined;
  if (adminType === request.type && addressedToGateway(request.to, context.gatewayJid)) {
    const outcome = await administer(local, payload, requester, context);
    return 'condition' in outcome ? errorReply(request, outcome) : buildIqResult(request, outcome);
  }
  const task =
    context.tasks === undefined
      ? undefined
      : await respondToTaskRequest({ iqType: request.type, to, payload }, requester, context.tasks);
  if (task !== undefined) {
    return task.ok ? buildIqResult(request, task.payload) : errorReply(request, task.fault);
  }
  return errorReply(request, FAULT.serviceUnavailable);
}
