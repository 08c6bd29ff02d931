/**
 * Broken Human Messaging variants of the reference gateway (issue 16): each a source patch of
 * reference-gateway/messaging/, used by integration/verdict-proofs-messaging.test.ts and by the
 * mutant catalog. README.md gives the reasons with their anchors.
 */
import type { GatewayVariant } from './gateway-variants.ts';

const SERVICE = 'reference-gateway/messaging/messaging-service.ts';

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
  patches: [
    {
      file: SERVICE,
      find: `    const state = await recipientBlockState(
      this.#options.iq,
      endpoint,
      human,
      this.#options.blockStateTimeoutMs,
    );`,
      replace: `    // Server routing is assumed to apply the recipient's XEP-0191 blocklist.
    const state = (await Promise.resolve('unblocked')) as BlockState;
    void recipientBlockState;`,
    },
  ],
};

/**
 * Turns a chat answer into a task (#messaging: a conversation MUST NOT be treated as a task
 * because an agent or model produces the reply): the answer leaves as a completed task event,
 * a normal message with an agent-task <event/>, instead of a chat message.
 */
export const CHAT_REPLY_AS_TASK: GatewayVariant = {
  name: 'chat-reply-as-task',
  change: 'the answer to a chat message is sent as a completed agent-task event instead of a chat message',
  patches: [
    {
      file: SERVICE,
      find: '        outgoing.push(this.#chat(endpoint, turn.from, `echo: ${request.text}`, inReplyTo));',
      replace: `        {
          const taskId = this.#newId() + this.#newId();
          const payload = JSON.stringify({ content: [{ type: 'text', text: \`echo: \${request.text}\` }] });
          outgoing.push(
            xml(
              'message',
              { from: endpoint, to: turn.from, id: this.#newId() },
              xml('event', { xmlns: 'urn:xmpp:agent-task:0', type: 'completed', 'task-id': taskId, revision: '1', 'event-id': this.#newId() + this.#newId(), timestamp: new Date().toISOString() }, xml('json', { 'media-type': 'application/json' }, payload)),
            ),
          );
        }`,
    },
    {
      file: SERVICE,
      find: "import type { Element } from '@xmpp/xml';",
      replace: "import { xml, type Element } from '@xmpp/xml';",
    },
  ],
};
