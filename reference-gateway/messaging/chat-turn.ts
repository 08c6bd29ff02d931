/**
 * One-to-one chat for hosted endpoints (#messaging), the pure part: what an inbound message
 * asks of a chat endpoint, and the stanzas that answer it. The conversation's behaviour is the
 * conformance chat of docs/conformance-tools.md ("Chat"): echo, or hold a reply until released,
 * which lets the suites make an endpoint originate a message at a moment they choose.
 *
 * Chat is channel-owned (#messaging): nothing here touches task state, and nothing a message
 * says can choose where an answer goes. A reply goes to the full JID the human wrote from (the
 * conversation's route); a held reply goes to the route of the conversation that asked for it.
 */
import { xml, type Element } from '@xmpp/xml';
import { MESSAGING_NS } from '../../protocol/messaging.ts';

/** The disco features of a chat endpoint: exactly the extensions its chat implements (#messaging). */
export const CHAT_FEATURES: readonly string[] = [
  MESSAGING_NS.chatStates,
  MESSAGING_NS.receipts,
  MESSAGING_NS.stableIds,
  MESSAGING_NS.replies,
];

const TOKEN = /^[A-Za-z0-9._~:-]{1,128}$/;
/** A held reply's text when the hold names none. */
export const DEFAULT_HELD_TEXT = 'held reply';
/** Held replies per endpoint: chat state is memory, so it is bounded (#security). */
export const MAX_HELD_REPLIES = 256;

export type ChatRequest =
  | { readonly kind: 'echo'; readonly text: string }
  | { readonly kind: 'hold'; readonly token: string; readonly text: string }
  | { readonly kind: 'release'; readonly token: string }
  /** No body (a standalone chat state), or nothing to answer. */
  | { readonly kind: 'none' };

export interface ChatTurn {
  /** The human's full JID as the server stamped it: the conversation's route. */
  readonly from: string;
  /** The endpoint addressed (bare JID, as received). */
  readonly to: string;
  /** The message's id attribute, when it has one (what a receipt and a reply reference). */
  readonly id: string | undefined;
  readonly receiptRequested: boolean;
  readonly request: ChatRequest;
}

function bodyOf(message: Element): string | undefined {
  const body = message.getChild('body');
  return body === undefined ? undefined : body.getText();
}

function requestOf(body: string | undefined): ChatRequest {
  if (body === undefined || body.trim() === '') return { kind: 'none' };
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { kind: 'echo', text: body };
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const record = parsed as Record<string, unknown>;
      const { hold, release, text } = record;
      if (typeof hold === 'string' && TOKEN.test(hold)) {
        return { kind: 'hold', token: hold, text: typeof text === 'string' ? text : DEFAULT_HELD_TEXT };
      }
      if (typeof release === 'string' && TOKEN.test(release)) return { kind: 'release', token: release };
    }
  }
  return { kind: 'echo', text: body };
}

/**
 * The chat turn an inbound message is, or undefined when it is not one-to-one chat: only
 * `type='chat'` is a conversation here (normal messages are task traffic or nothing; groupchat
 * is out of scope, #messaging).
 */
export function chatTurnOf(message: Element): ChatTurn | undefined {
  if (message.name !== 'message' || message.attrs['type'] !== 'chat') return undefined;
  const from: unknown = message.attrs['from'];
  const to: unknown = message.attrs['to'];
  if (typeof from !== 'string' || typeof to !== 'string') return undefined;
  const id: unknown = message.attrs['id'];
  return {
    from,
    to,
    id: typeof id === 'string' && id !== '' ? id : undefined,
    receiptRequested: message.getChild('request', MESSAGING_NS.receipts) !== undefined,
    request: requestOf(bodyOf(message)),
  };
}

/** A chat message from the endpoint along a conversation's route. */
export function chatMessage(options: {
  readonly from: string;
  readonly to: string;
  readonly id: string;
  readonly text: string;
  /** The message answered (XEP-0461), when known. */
  readonly inReplyTo?: { readonly author: string; readonly id: string } | undefined;
}): Element {
  const { from, to, id, text, inReplyTo } = options;
  return xml(
    'message',
    { type: 'chat', from, to, id },
    xml('body', {}, text),
    // XEP-0085: an endpoint that sends content is active in the conversation.
    xml('active', { xmlns: MESSAGING_NS.chatStates }),
    // XEP-0359: the stable ID the endpoint gave its message.
    xml('origin-id', { xmlns: MESSAGING_NS.stableIds, id }),
    // #security: provenance of the answer, when the triggering message is known.
    ...(inReplyTo === undefined
      ? []
      : [xml('reply', { xmlns: MESSAGING_NS.replies, to: inReplyTo.author, id: inReplyTo.id })]),
    // XEP-0334: one-to-one chat is meant for offline delivery too (#messaging).
    xml('store', { xmlns: MESSAGING_NS.hints }),
  );
}

/** The XEP-0184 receipt for a chat message that asked for one. */
export function receiptFor(turn: ChatTurn & { readonly id: string }, id: string): Element {
  return xml(
    'message',
    { from: turn.to, to: turn.from, id },
    xml('received', { xmlns: MESSAGING_NS.receipts, id: turn.id }),
  );
}

export function isHoldToken(value: string): boolean {
  return TOKEN.test(value);
}
