/**
 * The gateway's own IQ requests (#component-deployment: "bounded reconnect, keepalive, IQ
 * correlation"; "Outstanding IQ requests MUST fail or time out when the component stream is
 * lost; they MUST NOT remain pending indefinitely"; #rules: bound the pending IQ count).
 *
 * Every request ends exactly once: with the reply, or with an OutboundIqError saying why not
 * (its deadline passed, the stream went down, the gateway stopped, the stream was not up, too
 * many requests were pending). A reply counts only when both its id and its sender match
 * (RFC 6120 §8.1.2.1: the response comes from the request's addressee): a result carrying a
 * guessed id from anyone else is ignored, so it cannot settle the request.
 *
 * No sockets and no clock here: the component hands in the writer and the timers.
 */
import type { Element } from '@xmpp/xml';
import { JidError, normalizeJid } from '../../protocol/jid/index.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import {
  StanzaParseError,
  buildIq,
  parseIq,
  type IqError,
  type IqResult,
} from '../../protocol/stanza/index.ts';

export type OutboundIqFailure =
  /** No reply within the request's deadline. */
  | 'timeout'
  /** The component stream went down while the request was pending, or while it was written. */
  | 'stream-lost'
  /** The gateway stopped while the request was pending. */
  | 'stopped'
  /** The stream was not up when the request was made: nothing was sent. */
  | 'offline'
  /** The pending-request bound was reached: nothing was sent. */
  | 'overloaded';

export class OutboundIqError extends Error {
  override readonly name = 'OutboundIqError';
  constructor(
    readonly reason: OutboundIqFailure,
    /** The request's addressee and id, for logs (never its payload). */
    readonly to: string,
    readonly id: string,
  ) {
    super(`IQ ${id} to ${to}: ${reason}`);
  }
}

export type OutboundIqReply = IqResult | IqError;

export interface OutboundIqRequest {
  readonly to: string;
  readonly type: 'get' | 'set';
  readonly payload: Element;
  /** The sender: the gateway JID or one of its endpoint JIDs. */
  readonly from: string;
  readonly timeoutMs: number;
}

export interface OutboundIqTiming {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

export interface OutboundIqTrackerOptions {
  /** Writes the request to the stream; rejects when it cannot. */
  readonly write: (stanza: Element) => Promise<void>;
  /** Whether the stream is up now (a request made while it is not fails at once). */
  readonly online: () => boolean;
  readonly timing: OutboundIqTiming;
  /** Most requests pending at once (#rules: bound the pending IQ count). */
  readonly maxPending?: number;
  /** Fresh stanza ids (tests substitute a counter). */
  readonly newId?: () => string;
}

export const DEFAULT_MAX_PENDING_IQS = 1024;

interface Pending {
  /** Normalized JID the reply must come from. */
  readonly expectedFrom: string;
  readonly to: string;
  readonly timer: unknown;
  readonly resolve: (reply: OutboundIqReply) => void;
  readonly reject: (error: OutboundIqError) => void;
}

function normalizedOrUndefined(jid: string | undefined): string | undefined {
  if (jid === undefined) return undefined;
  try {
    return normalizeJid(jid);
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

export class OutboundIqTracker {
  readonly #options: OutboundIqTrackerOptions;
  readonly #maxPending: number;
  readonly #newId: () => string;
  readonly #pending = new Map<string, Pending>();

  constructor(options: OutboundIqTrackerOptions) {
    this.#options = options;
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_IQS;
    this.#newId = options.newId ?? (() => generateIdentifier('gw-'));
    if (!(this.#maxPending >= 1)) throw new RangeError('maxPending must be at least 1');
  }

  /** Requests waiting for their reply. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Sends the request and resolves with its reply, result or error alike; rejects with
   * OutboundIqError when no reply will come. The `to` must be a JID: it is the sender the
   * reply is expected from.
   */
  request(request: OutboundIqRequest): Promise<OutboundIqReply> {
    const expectedFrom = normalizedOrUndefined(request.to);
    if (expectedFrom === undefined) throw new TypeError('an outbound IQ needs a valid "to" JID');
    const id = this.#newId();
    if (!this.#options.online()) return Promise.reject(new OutboundIqError('offline', request.to, id));
    // rules.resource-bounds: the pending IQ count.
    if (this.#pending.size >= this.#maxPending) {
      return Promise.reject(new OutboundIqError('overloaded', request.to, id));
    }
    const stanza = buildIq({ id, type: request.type, from: request.from, to: request.to }, request.payload);
    const settled = new Promise<OutboundIqReply>((resolve, reject) => {
      const timer = this.#options.timing.setTimeout(() => {
        this.#fail(id, 'timeout');
      }, request.timeoutMs);
      this.#pending.set(id, { expectedFrom, to: request.to, timer, resolve, reject });
    });
    this.#options.write(stanza).catch(() => {
      this.#fail(id, 'stream-lost');
    });
    return settled;
  }

  /**
   * Offers an inbound IQ result or error (detached, strictly parsed). True when it answered a
   * pending request, which it then settles; false when it is not a reply to one of ours (wrong
   * id, wrong sender, or not a result/error), and nothing changes.
   */
  settle(stanza: Element): boolean {
    let reply;
    try {
      reply = parseIq(stanza);
    } catch (error) {
      if (error instanceof StanzaParseError) return false;
      throw error;
    }
    if (reply.type !== 'result' && reply.type !== 'error') return false;
    const pending = this.#pending.get(reply.id);
    if (pending === undefined || normalizedOrUndefined(reply.from) !== pending.expectedFrom) return false;
    this.#pending.delete(reply.id);
    this.#options.timing.clearTimeout(pending.timer);
    pending.resolve(reply);
    return true;
  }

  /**
   * Fails every pending request with `reason` (the stream went down, or the gateway stops).
   *
   * component-deployment.no-indefinite-pending: every pending request fails when the stream goes
   * down.
   */
  failAll(reason: 'stream-lost' | 'stopped'): void {
    for (const id of [...this.#pending.keys()]) this.#fail(id, reason);
  }

  #fail(id: string, reason: OutboundIqFailure): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    this.#options.timing.clearTimeout(pending.timer);
    pending.reject(new OutboundIqError(reason, pending.to, id));
  }
}
