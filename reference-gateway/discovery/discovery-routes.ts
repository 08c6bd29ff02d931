/**
 * Discovery's rows of the gateway's IQ table: disco#info, disco#items, Jabber Search, manifest
 * and schema requests (#discovery, #search, #manifest-retrieval, #schemas), each under the
 * per-principal rate limit of its operation (#security names directory enumeration, search
 * and schema retrieval).
 *
 * Both IQ types of every payload reach respondToDiscovery, which answers a wrong type itself
 * (service-unavailable, after jid-malformed): a request of the wrong type takes its token like
 * any other.
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { RateLimitedOperation } from '../config/limits.ts';
import { FAULT } from '../iq/faults.ts';
import { UNHANDLED, bothTypes, type IqCall, type IqRoute } from '../iq/iq-table.ts';
import { refuse } from '../iq/outcome.ts';
import { admit } from '../policy/admission.ts';
import type { RateLimiter } from '../policy/rate-limiter.ts';
import { DISCOVERY_PAYLOADS, respondToDiscovery, type DiscoveryPayloadKind } from './dispatcher.ts';
import type { DiscoverySettings } from './settings.ts';

export interface DiscoveryRouteContext {
  readonly catalog: Catalog;
  /** The settings answered at an IQ's 'to' (task features only where a runtime executes). */
  readonly settingsAt: (to: string) => DiscoverySettings;
  /** The configured token buckets (limits.rateLimits). */
  readonly rateLimiter: RateLimiter<RateLimitedOperation>;
}

/** Manifest and schema requests are metadata; every disco#info and disco#items is discovery. */
const OPERATION: Readonly<Record<DiscoveryPayloadKind, RateLimitedOperation>> = {
  'disco-info': 'discovery',
  'disco-items': 'discovery',
  search: 'search',
  manifest: 'metadata',
  schema: 'metadata',
};

function respond(call: IqCall, operation: RateLimitedOperation, context: DiscoveryRouteContext) {
  const { type, to, requester, payload } = call;
  const outcome = respondToDiscovery(
    { iqType: type, to, requester, payload },
    context.catalog,
    context.settingsAt(to),
  );
  if (outcome === undefined) return UNHANDLED;
  // security.rate-limits, json-encoding.authorize-before-limits: every request takes a token,
  // but only a request that would succeed may learn that it was limited: an error answer
  // (hidden, nonexistent, malformed) stays exactly what it is, so a limit never tells hidden
  // from nonexistent (#privacy, interp-42). The answer is computed first because success is
  // what authorization means for these operations.
  const admission = admit(context.rateLimiter, operation, requester.bareJid, outcome.ok);
  return admission.kind === 'rate-limited' ? refuse(FAULT.resourceConstraint) : outcome;
}

export function discoveryRoutes(context: DiscoveryRouteContext): IqRoute[] {
  return DISCOVERY_PAYLOADS.flatMap(([ns, element, kind]) =>
    bothTypes(ns, element, (call) => respond(call, OPERATION[kind], context)),
  );
}
