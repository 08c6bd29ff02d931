/**
 * The order and UIDs of endpoint result sets (#list-agents, #search): octetwise ascending
 * normalized bare JID, and that JID is the RSM UID (interp-02, interp-15).
 */
import { JidError, compareUtf8, normalizeBareJid } from '../../protocol/jid/index.ts';
import type { VisibleEndpoint } from '../catalog/catalog.ts';
import type { OrderedSet, UidPosition } from './rsm-paging.ts';

export function byJidOctets(endpoints: readonly VisibleEndpoint[]): VisibleEndpoint[] {
  // The catalog already sorts; sorting again keeps the MUST independent of the store.
  return endpoints.toSorted((a, b) => compareUtf8(a.jid, b.jid));
}

/**
 * A JID UID has a position whether or not it names a visible endpoint: it is the sort key.
 * It is normalized like the listed JIDs; text that is not a bare JID has no position.
 */
function jidPosition(uid: string): UidPosition<VisibleEndpoint> | undefined {
  let key: string;
  try {
    key = normalizeBareJid(uid);
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
  return (endpoint) => compareUtf8(endpoint.jid, key);
}

/**
 * The ordered set the pager works on; `endpoints` must already be in JID octet order.
 *
 * list-agents.octet-order, search.octet-order: each item's RSM UID is exactly its JID.
 */
export function endpointSet(endpoints: readonly VisibleEndpoint[]): OrderedSet<VisibleEndpoint> {
  return { items: endpoints, uidOf: (endpoint) => endpoint.jid, positionOf: jidPosition };
}

/** The human-readable name of an endpoint: agent.title, else agent.name (#list-agents, #search). */
export function endpointDisplayName(endpoint: VisibleEndpoint): string {
  const { agent } = endpoint.active.manifest;
  return agent.title ?? agent.name;
}
