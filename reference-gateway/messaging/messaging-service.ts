/**
 * Human Messaging for hosted endpoints (#messaging), the imperative part: answers one-to-one
 * chat for the endpoints the config names (messaging.chatEndpoints) and originates every
 * message to a human through one gate, the recipient's block state (block-state.ts).
 *
 * Separation (#messaging "MUST keep human conversations separate from task execution state and
 * task correlation separate from channel destinations"): conversations live here, in memory,
 * keyed by endpoint and human; the task engine never sees a chat message and this module never
 * sees a task. A chat answer is a chat message along the conversation's route, never a task,
 * whatever produced its text; task events keep going to the invoking full JID (task-wiring.ts)
 * even while the same human chats from another resource.
 *
 * Blocking (#security, interp-44): every stanza an endpoint originates to a human here — an
 * answer, a receipt, a released reply — is sent only when the recipient's server says, right
 * before, that the recipient does not block that endpoint (bare JID or domain). "Blocked" and
 * "unknown" both mean: not sent, and no retry later (a held reply is consumed by its release).
 * Presence, subscriptions and the absence of bounces are never consulted.
 */
import { randomBytes } from 'node:crypto';
import type { Element } from '@xmpp/xml';
import { JidError, bareJidOf, normalizeJid } from '../../protocol/jid/index.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { recipientBlockState, type BlockState, type OutboundIq } from './block-state.ts';
import {
  CHAT_FEATURES,
  MAX_HELD_REPLIES,
  chatMessage,
  chatTurnOf,
  receiptFor,
  type ChatTurn,
} from './chat-turn.ts';

export interface MessagingOptions {
  /** Normalized bare JIDs of the endpoints that take part in chat. */
  readonly chatEndpoints: ReadonlySet<string>;
  readonly catalog: Pick<Catalog, 'visibleEndpoint'>;
  /** Writes a message stanza (GatewayComponent.send); false when it was not written. */
  readonly send: (stanza: Element) => Promise<boolean>;
  readonly iq: OutboundIq;
  readonly blockStateTimeoutMs: number;
  readonly log?: (line: string) => void;
  /** Fresh stanza/origin IDs (tests substitute it). */
  readonly newId?: () => string;
}

/** A reply an endpoint holds until its token is released: the conversation's route and text. */
interface HeldReply {
  readonly endpoint: string;
  readonly route: string;
  readonly text: string;
  readonly inReplyTo: { readonly author: string; readonly id: string } | undefined;
}

/** What became of one message an endpoint originated. */
export type Origination = 'sent' | 'not-sent' | `withheld-${Exclude<BlockState, 'unblocked'>}`;

function defaultId(): string {
  return randomBytes(16).toString('base64url');
}

export class MessagingService {
  readonly #options: MessagingOptions;
  readonly #newId: () => string;
  /** endpoint → token → held replies, in the order they were asked for. */
  readonly #held = new Map<string, Map<string, HeldReply[]>>();

  constructor(options: MessagingOptions) {
    this.#options = options;
    this.#newId = options.newId ?? defaultId;
  }

  /** The messaging features `endpoint` advertises (#messaging: only what is implemented). */
  featuresOf(endpoint: string): readonly string[] {
    return this.#options.chatEndpoints.has(endpoint) ? CHAT_FEATURES : [];
  }

  /**
   * Handles an inbound message; true when it was chat for a chat endpoint (answered or
   * deliberately not), false when it is someone else's business (task traffic, bounces).
   */
  async handle(message: Element): Promise<boolean> {
    const turn = chatTurnOf(message);
    if (turn === undefined) return false;
    let endpoint: string;
    let human: string;
    try {
      endpoint = bareJidOf(turn.to);
      human = bareJidOf(turn.from);
    } catch (error) {
      if (error instanceof JidError) return false;
      throw error;
    }
    if (!this.#options.chatEndpoints.has(endpoint)) return false;
    const requester = {
      fullJid: normalizeJid(turn.from),
      bareJid: human,
      domain: human.slice(human.indexOf('@') + 1),
    };
    // Chat with an endpoint the sender may not see would reveal it (#privacy): no answer at all,
    // as for an endpoint that does not exist.
    if (this.#options.catalog.visibleEndpoint(requester, endpoint) === undefined) return true;
    await this.#answer(turn, endpoint, human);
    return true;
  }

  async #answer(turn: ChatTurn, endpoint: string, human: string): Promise<void> {
    const { request } = turn;
    const inReplyTo = turn.id === undefined ? undefined : { author: turn.from, id: turn.id };
    const outgoing: Element[] = [];
    if (turn.receiptRequested && turn.id !== undefined) {
      outgoing.push(receiptFor({ ...turn, id: turn.id }, this.#newId()));
    }
    switch (request.kind) {
      case 'echo':
        outgoing.push(this.#chat(endpoint, turn.from, `echo: ${request.text}`, inReplyTo));
        break;
      case 'hold':
        // Acknowledged, so whoever releases it knows the hold is in place.
        if (
          this.#hold(endpoint, request.token, { endpoint, route: turn.from, text: request.text, inReplyTo })
        ) {
          outgoing.push(
            this.#chat(endpoint, turn.from, JSON.stringify({ holding: request.token }), inReplyTo),
          );
        }
        break;
      case 'release': {
        const attempted = await this.#release(endpoint, request.token);
        const text = JSON.stringify({ released: request.token, attempted });
        outgoing.push(this.#chat(endpoint, turn.from, text, inReplyTo));
        break;
      }
      case 'none':
        break;
    }
    if (outgoing.length > 0) await this.originate(endpoint, human, outgoing);
  }

  #chat(
    endpoint: string,
    route: string,
    text: string,
    inReplyTo: { readonly author: string; readonly id: string } | undefined,
  ): Element {
    return chatMessage({ from: endpoint, to: route, id: this.#newId(), text, inReplyTo });
  }

  #hold(endpoint: string, token: string, reply: HeldReply): boolean {
    let tokens = this.#held.get(endpoint);
    if (tokens === undefined) {
      tokens = new Map();
      this.#held.set(endpoint, tokens);
    }
    const count = [...tokens.values()].reduce((sum, list) => sum + list.length, 0);
    if (count >= MAX_HELD_REPLIES) {
      this.#options.log?.('messaging: held reply dropped: the endpoint holds too many');
      return false;
    }
    tokens.set(token, [...(tokens.get(token) ?? []), reply]);
    return true;
  }

  /** Originates every reply held under `token` (each gated on its recipient); how many were tried. */
  async #release(endpoint: string, token: string): Promise<number> {
    const tokens = this.#held.get(endpoint);
    const replies = tokens?.get(token) ?? [];
    tokens?.delete(token);
    for (const reply of replies) {
      const stanza = this.#chat(reply.endpoint, reply.route, reply.text, reply.inReplyTo);
      await this.originate(reply.endpoint, bareJidOf(reply.route), [stanza]);
    }
    return replies.length;
  }

  /**
   * The one way a message leaves an endpoint for a human: asked the recipient's server for the
   * block state of exactly this endpoint first, sent only on "unblocked".
   */
  async originate(endpoint: string, human: string, stanzas: readonly Element[]): Promise<Origination> {
    const state = await recipientBlockState(
      this.#options.iq,
      endpoint,
      human,
      this.#options.blockStateTimeoutMs,
    );
    if (state !== 'unblocked') {
      this.#options.log?.(
        `messaging: ${String(stanzas.length)} message(s) withheld: recipient block state ${state}`,
      );
      return `withheld-${state}`;
    }
    let sent = true;
    for (const stanza of stanzas) sent = (await this.#options.send(stanza)) && sent;
    return sent ? 'sent' : 'not-sent';
  }
}
