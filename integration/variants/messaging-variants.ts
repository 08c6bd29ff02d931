/**
 * Broken Human Messaging variants of the reference gateway (issue 16): each a source patch of
 * reference-gateway/messaging/, used by integration/verdict-proofs-messaging.test.ts and by the
 * mutant catalog. README.md gives the reasons with their anchors.
 */
import { variantPatches, type GatewayVariant } from './gateway-variants.ts';

/**
 * Leaves blocking to server routing (#security: a component deployment MUST NOT assume it): the
 * recipient's block state is never asked for, every message is sent. The federated server of
 * the harness does not apply blocklists to the component's messages, so blocked humans there
 * receive them.
 */
export const ASSUMES_SERVER_BLOCKING: GatewayVariant = {
  name: 'assumes-server-blocking',
  change:
    "endpoints originate chat without asking the recipient's block state (server routing assumed to enforce XEP-0191)",
  patches: variantPatches('assumes-server-blocking'),
};

/**
 * Turns a chat answer into a task (#messaging: a conversation MUST NOT be treated as a task
 * because an agent or model produces the reply): the answer leaves as a completed task event,
 * a normal message with an agent-task <event/>, instead of a chat message.
 */
export const CHAT_REPLY_AS_TASK: GatewayVariant = {
  name: 'chat-reply-as-task',
  change: 'the answer to a chat message is sent as a completed agent-task event instead of a chat message',
  patches: variantPatches('chat-reply-as-task'),
};

/**
 * Permitted: chat endpoints without XEP-0184 (not advertised, a request ignored: #messaging asks
 * only that what is advertised be implemented), and presence probes of an endpoint the sender may
 * not see left unanswered, like those of a JID that names nothing (RFC 6121 §4.3.2 has the
 * contact's server answer 'unsubscribed' with a SHOULD; silence shows nothing either way).
 */
export const QUIET_CHAT_AND_PROBES: GatewayVariant = {
  name: 'quiet-chat-and-probes',
  change:
    'chat endpoints neither advertise nor send XEP-0184 receipts, and probes of endpoints the sender may not see go unanswered',
  patches: variantPatches('quiet-chat-and-probes'),
};
