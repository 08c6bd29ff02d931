/**
 * Where the reference gateway gets a recipient's block state (#security, #messaging; interp-44).
 *
 * The spec forbids a component deployment to assume that server routing applies XEP-0191 to
 * its virtual senders, and defines no way for a XEP-0114 component to read a user's blocklist.
 * Nothing the component sees on its own is evidence of "not blocked": presence, a subscription,
 * a message that was routed without an error (#identity-presence, #security). So the gateway
 * asks the recipient's server, before every message an endpoint originates to a human, with a
 * deployment-local query that server offers (the harness's Prosody module
 * mod_agentconf_block_state, docs/federation.md "Blocking"):
 *
 *   <iq type='get' from='endpoint@gateway' to='human@server'><state xmlns='urn:agentconf:block-state:0'/></iq>
 *   → <state xmlns='urn:agentconf:block-state:0' blocked='true|false'/>
 *
 * The query comes from the exact virtual sender, and the server answers about that sender
 * only, read from the same blocklist XEP-0191 edits, so the answer is authoritative and
 * current for that identity (bare JID or its domain blocked). Any other outcome — an error
 * (a server without the module, a user that does not exist), a malformed answer, no answer in
 * time, the link down — is "unknown", and the gateway then does not originate the message:
 * it cannot know, so it does not deliver (#security: a deployment that cannot determine the
 * block state must not claim it honours it). Nothing is cached: every send asks again.
 */
import { xml } from '@xmpp/xml';
import { BLOCK_STATE_NS } from '../../protocol/messaging.ts';
import type { OutboundIqReply } from '../component/outbound-iq.ts';

export type BlockState = 'blocked' | 'unblocked' | 'unknown';

/** The gateway's outbound IQ (GatewayComponent.iq); rejects when no reply will come. */
export type OutboundIq = (request: {
  readonly to: string;
  readonly type: 'get';
  readonly payload: ReturnType<typeof xml>;
  readonly from: string;
  readonly timeoutMs: number;
}) => Promise<OutboundIqReply>;

/** The recipient's current block state for `sender` (an endpoint JID), as its server tells it. */
export async function recipientBlockState(
  iq: OutboundIq,
  sender: string,
  recipientBareJid: string,
  timeoutMs: number,
): Promise<BlockState> {
  let reply: OutboundIqReply;
  try {
    reply = await iq({
      to: recipientBareJid,
      type: 'get',
      payload: xml('state', { xmlns: BLOCK_STATE_NS }),
      from: sender,
      timeoutMs,
    });
  } catch {
    return 'unknown';
  }
  if (reply.type !== 'result' || reply.payload === undefined) return 'unknown';
  const { payload } = reply;
  if (payload.name !== 'state' || payload.attrs['xmlns'] !== BLOCK_STATE_NS) return 'unknown';
  const blocked: unknown = payload.attrs['blocked'];
  if (blocked === 'true') return 'blocked';
  if (blocked === 'false') return 'unblocked';
  return 'unknown';
}
