/**
 * The Human Messaging profile's wire vocabulary (#messaging): the XEPs a chat endpoint may use
 * and advertise, and the harness's block-state query (docs/federation.md, "Blocking"), which
 * the reference gateway asks instead of assuming that routing enforces XEP-0191.
 */

/** Extensions #messaging lists, as disco features or element namespaces. */
export const MESSAGING_NS = {
  /** XEP-0085 chat state notifications (also its disco feature). */
  chatStates: 'http://jabber.org/protocol/chatstates',
  /** XEP-0184 message delivery receipts (also its disco feature). */
  receipts: 'urn:xmpp:receipts',
  /** XEP-0359 unique and stable stanza IDs (origin-id; also its disco feature). */
  stableIds: 'urn:xmpp:sid:0',
  /** XEP-0461 message replies (also its disco feature). */
  replies: 'urn:xmpp:reply:0',
  /** XEP-0334 message processing hints (no disco feature, XEP-0334 §3). */
  hints: 'urn:xmpp:hints',
  /** XEP-0191 blocking command (a server feature). */
  blocking: 'urn:xmpp:blocking',
} as const;

/** The XEP-0085 states an element may carry. */
export const CHAT_STATES = ['active', 'composing', 'paused', 'inactive', 'gone'] as const;

/**
 * The harness's block-state query (harness/federation/prosody-plugins/mod_agentconf_block_state.lua):
 * `<iq type='get' to='user@host'><state xmlns=…/></iq>` from the asking entity, answered with
 * `<state xmlns=… blocked='true|false'/>` about that entity only.
 */
export const BLOCK_STATE_NS = 'urn:agentconf:block-state:0';
