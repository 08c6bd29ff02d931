/**
 * Which entity an IQ addresses (#addressing): the gateway's domain JID, or an endpoint bare
 * JID. Only the address is looked at here; whether an endpoint exists or is visible is the
 * catalog's question, asked later on one path for every case.
 */
import { JidError, normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';

export type Addressee =
  | { readonly kind: 'gateway' }
  | { readonly kind: 'endpoint'; readonly jid: string }
  /**
   * A full JID. Endpoints are bare JIDs and the gateway answers at its domain; a resource
   * names nothing discovery serves (interp-19 accepts service-unavailable).
   */
  | { readonly kind: 'full-jid' }
  | { readonly kind: 'malformed' };

// addressing.gateway-domain-jid, addressing.endpoint-bare-jid: the gateway answers at its own
// domain JID, each endpoint at its own bare JID.
export function classifyAddressee(to: string, gatewayJid: string): Addressee {
  try {
    if (parseJid(to).resourcepart !== undefined) return { kind: 'full-jid' };
    const jid = normalizeBareJid(to);
    return jid === gatewayJid ? { kind: 'gateway' } : { kind: 'endpoint', jid };
  } catch (error) {
    if (error instanceof JidError) return { kind: 'malformed' };
    throw error;
  }
}
