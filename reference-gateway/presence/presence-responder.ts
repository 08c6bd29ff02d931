/**
 * Presence for hosted endpoint JIDs (#identity-presence: a hosted virtual endpoint SHOULD answer
 * subscription requests and probes as XMPP IM does, and MAY approve a subscription with
 * `subscribed` followed by available presence). Pure: the inbound presence's type, addressee
 * and stamped sender in, the stanzas to send out; the component writes them.
 *
 * The gateway keeps no roster. A subscription is approved for exactly the senders that may see
 * the endpoint, and every probe re-asks the catalog, so what presence reveals follows the one
 * visibility decision of discovery (#rules) at every moment, also after a policy change.
 *
 * | inbound type  | visible endpoint                     | hidden, deactivated or nonexistent |
 * | ------------- | ------------------------------------ | ---------------------------------- |
 * | `subscribe`   | `subscribed`, then available         | `unsubscribed`                     |
 * | `probe`       | available                            | `unsubscribed`                     |
 * | `unsubscribe` | `unsubscribed`, then `unavailable`   | nothing                            |
 * | anything else | nothing                              | nothing                            |
 *
 * Why the right-hand column (#privacy, #errors: hidden and nonexistent must not differ):
 * RFC 6121 fixes what a server answers for a JID without an account (§8.5.1: `subscribe` gets
 * `unsubscribed`, other subscription types are ignored; §4.3.2: a probe from a sender without a
 * subscription SHOULD get `unsubscribed`). A hidden endpoint gets exactly that answer, so to its
 * senders it is a JID nobody holds. The probe answer also cleans up after a policy change: a
 * sender who subscribed while the endpoint was visible gets `unsubscribed` at its next login
 * probe, and its server drops the stale subscription instead of showing a contact forever.
 *
 * `unsubscribe` from a sender that may see the endpoint is confirmed with `unsubscribed`
 * (the gateway holds nothing for it any more) and `unavailable`, because the endpoint stops
 * sharing its availability with that sender (RFC 6121 §3.3.3).
 *
 * The gateway's own JID is a service address, not an endpoint: #identity-presence defines no
 * presence for it, and its reachability is what disco and XEP-0199 ping answer. It answers like
 * a JID without presence to share: `subscribe` and `probe` get `unsubscribed` (declining rather
 * than leaving a subscription request pending forever), everything else nothing. That is the same
 * for every sender, so it reveals nothing.
 *
 * Availability: presence reflects runtime communications availability only (#identity-presence);
 * this gateway answers for an endpoint exactly while it is connected, so a visible endpoint is
 * available. Presence is never evidence that communication is unblocked (#security).
 */
import { xml, type Element } from '@xmpp/xml';
import { JidError, bareJidOf } from '../../protocol/jid/index.ts';
import type { Catalog, Requester } from '../catalog/catalog.ts';

export interface PresenceRequest {
  /** The 'type' attribute as received (absent: available presence). */
  readonly type: string | undefined;
  /** The 'to' attribute as received. */
  readonly to: string;
  /** The full JID as the server stamped it (the reply to a probe goes there). */
  readonly from: string;
  /** The stamped sender: the principal every visibility decision is for. */
  readonly requester: Requester;
}

export interface PresenceContext {
  /** The normalized component domain. */
  readonly gatewayJid: string;
  readonly catalog: Pick<Catalog, 'visibleEndpoint'>;
}

type Addressee =
  | { readonly kind: 'gateway' }
  | { readonly kind: 'endpoint'; readonly jid: string }
  /** Not an address this gateway answers for (another domain, or not a JID). */
  | { readonly kind: 'foreign' };

/** Subscriptions are between bare JIDs (RFC 6121 §3.1.3: a full JID is treated as its bare JID). */
function addresseeOf(to: string, gatewayJid: string): Addressee {
  let bare: string;
  try {
    bare = bareJidOf(to);
  } catch (error) {
    if (error instanceof JidError) return { kind: 'foreign' };
    throw error;
  }
  if (bare === gatewayJid) return { kind: 'gateway' };
  const at = bare.indexOf('@');
  return at !== -1 && bare.slice(at + 1) === gatewayJid
    ? { kind: 'endpoint', jid: bare }
    : { kind: 'foreign' };
}

function presence(from: string, to: string, type?: string): Element {
  return xml('presence', type === undefined ? { from, to } : { from, to, type });
}

/** The stanzas answering one inbound presence (possibly none). */
export function respondToPresence(request: PresenceRequest, context: PresenceContext): Element[] {
  const { type, requester } = request;
  if (type !== 'subscribe' && type !== 'probe' && type !== 'unsubscribe') return [];
  const addressee = addresseeOf(request.to, context.gatewayJid);
  if (addressee.kind === 'foreign') return [];
  const self = addressee.kind === 'gateway' ? context.gatewayJid : addressee.jid;
  // identity-presence.public-profile-data, privacy.profile-not-authority: presence follows the one
  // visibility decision and grants nothing.
  const visible =
    addressee.kind === 'endpoint' && context.catalog.visibleEndpoint(requester, addressee.jid) !== undefined;
  if (!visible) {
    return type === 'unsubscribe' ? [] : [presence(self, requester.bareJid, 'unsubscribed')];
  }
  switch (type) {
    case 'subscribe':
      return [presence(self, requester.bareJid, 'subscribed'), presence(self, requester.bareJid)];
    // identity-presence.availability-in-presence: availability is told by presence, never by disco
    // data.
    case 'probe':
      return [presence(self, request.from)];
    case 'unsubscribe':
      return [
        presence(self, requester.bareJid, 'unsubscribed'),
        presence(self, requester.bareJid, 'unavailable'),
      ];
  }
}
