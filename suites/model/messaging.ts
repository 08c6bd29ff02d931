/**
 * Human Messaging delivery (#messaging, #security, interp-44): whether a message a hosted
 * virtual endpoint originates may reach a human, by message kind and by the human's block state.
 *
 * - Every message the endpoint originates to a human, ordinary chat and application-specific
 *   direct delivery alike (and so chat states, receipts and form questions it sends), honours
 *   XEP-0191 blocking (security.honor-blocking): blocked ⇒ withheld.
 * - Unknown block state (the recipient's server gives no authoritative answer): a deployment
 *   that cannot determine the current block state may not claim the blocking requirements
 *   (security.no-unfounded-blocking-claim); for a gateway that claims Human Messaging the only
 *   delivery that cannot break a block in force is none ⇒ withheld.
 * - Not blocked: delivery is the application's choice (messaging.direct-chat is a MAY; requester
 *   delivery also needs consent, security.recipient-consent, which is not observable) ⇒ either.
 * - Presence subscription or availability is no evidence of being unblocked
 *   (identity-presence.presence-not-unblock-evidence): nothing about presence is an input here.
 * - Task lifecycle messages to a caller are task-owned, not human messaging; blocking them is
 *   out of scope (interp-44) ⇒ either.
 */
import { JidError, normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';
import { expectation, pass, type Expectation } from './expectation.ts';
import type { ModelWorld } from './world.ts';

export const MESSAGE_KINDS = [
  'chat-reply',
  'chat-state',
  'receipt',
  'form-question',
  'requester-delivery',
  'task-event',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export type BlockState = 'blocked' | 'not-blocked' | 'unknown';

/**
 * Whether a blocklist item covers the sender, by the JID matching XEP-0191 takes from RFC 6121
 * privacy lists: the item's full JID, bare JID, domain or domain/resource.
 */
export function blockItemCovers(item: string, sender: string): boolean {
  let blocked: ReturnType<typeof parseJid>;
  let from: ReturnType<typeof parseJid>;
  try {
    blocked = parseJid(item);
    from = parseJid(sender);
  } catch (problem) {
    if (problem instanceof JidError) return false;
    throw problem;
  }
  const domain = (jid: ReturnType<typeof parseJid>): string => normalizeBareJid(jid.domainpart);
  if (domain(blocked) !== domain(from)) return false;
  if (blocked.localpart === undefined)
    return blocked.resourcepart === undefined || blocked.resourcepart === from.resourcepart;
  if (blocked.localpart.toLowerCase() !== from.localpart?.toLowerCase()) return false;
  return blocked.resourcepart === undefined || blocked.resourcepart === from.resourcepart;
}

/** The block state a human's server would report for this sender. */
export function blockStateOf(world: ModelWorld, human: string, sender: string): BlockState {
  const blocklist = world.blocklists.get(normalizeBareJid(human));
  if (blocklist === 'unknown') return 'unknown';
  return (blocklist ?? []).some((item) => blockItemCovers(item, sender)) ? 'blocked' : 'not-blocked';
}

/** Whether a message of `kind` from the endpoint may reach the human. */
export function humanDelivery(
  world: ModelWorld,
  human: string,
  endpointJid: string,
  kind: MessageKind,
): Expectation {
  const operation = `${kind} from ${endpointJid} to ${human}`;
  const either = [pass({ kind: 'delivered' } as const), pass({ kind: 'withheld' } as const)];
  if (kind === 'task-event') {
    return expectation({
      operation,
      requirements: ['messaging.task-not-chat'],
      interpretations: ['interp-44'],
      alternatives: either,
    });
  }
  const state = blockStateOf(world, human, endpointJid);
  if (state === 'not-blocked') {
    return expectation({ operation, requirements: ['security.honor-blocking'], alternatives: either });
  }
  const delivery =
    kind === 'requester-delivery' ? ['messaging.blocking-claim', 'messaging.requester-delivery-policy'] : [];
  return expectation({
    operation,
    requirements: [
      ...delivery,
      ...(state === 'blocked'
        ? [
            'security.honor-blocking',
            'security.no-assumed-server-blocking',
            'identity-presence.presence-not-unblock-evidence',
          ]
        : ['security.no-unfounded-blocking-claim', 'security.honor-blocking']),
    ],
    interpretations: ['interp-44'],
    alternatives: [pass({ kind: 'withheld' })],
  });
}
