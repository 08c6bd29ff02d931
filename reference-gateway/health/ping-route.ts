/**
 * XEP-0199 ping's row of the gateway's IQ table: an empty result to every IQ get ping, at the
 * gateway and at every hosted JID alike, so a ping never tells hidden from nonexistent
 * endpoints (#privacy). A ping of type set has no row: service-unavailable, like any IQ
 * nobody handles.
 */
import { NS } from '../../protocol/namespaces.ts';
import type { IqRoute } from '../iq/iq-table.ts';

// errors.not-found-equivalence: the same empty result at every hosted JID, hidden or nonexistent.
export const PING_ROUTES: readonly IqRoute[] = [
  { type: 'get', ns: NS.ping, element: 'ping', handle: () => ({ ok: true }) },
];
