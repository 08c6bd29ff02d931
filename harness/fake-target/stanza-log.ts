/**
 * Every stanza the caller under test sends the fake target, in arrival order with its time, and
 * awaitable streams over them: a case waits for "the next invoke from X" with a deadline, never
 * sleeps. A stream has its own cursor, so two waits for the next invoke return two invokes.
 */
import type { Element } from '@xmpp/xml';

import { serialize } from '../../protocol/stanza/index.ts';

/** What the fake target made of a stanza (an IQ request's payload kind, or the stanza's name). */
export type StanzaKind =
  | 'disco-info'
  | 'disco-items'
  | 'manifest'
  | 'schema'
  | 'invoke'
  | 'cancel'
  | 'provide-input'
  | 'task-state'
  | 'task-result'
  | 'other-iq'
  | 'iq-response'
  | 'message'
  | 'presence';

export interface RecordedStanza {
  /** 0-based position in the log. */
  readonly index: number;
  readonly kind: StanzaKind;
  /**
   * The stanza as serialized from the parsed element. The caller's own bytes are not observable
   * here: its server re-serializes every stanza it routes to a component.
   */
  readonly xml: string;
  readonly element: Element;
  readonly name: string;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly id: string | undefined;
  readonly type: string | undefined;
  /** Milliseconds since the fake target started, monotonic. */
  readonly atMs: number;
  /** Wall-clock arrival, for reports. */
  readonly receivedAt: Date;
}

export interface StanzaMatch {
  readonly kind?: StanzaKind | readonly StanzaKind[];
  /** Exact `from` (a full JID) or, without a slash, the sender's bare JID. */
  readonly from?: string;
  /** Exact `to`. */
  readonly to?: string;
  readonly where?: (stanza: RecordedStanza) => boolean;
}

/** No matching stanza arrived before the deadline. */
export class StanzaWaitTimeout extends Error {
  override readonly name = 'StanzaWaitTimeout';
}

export function bareOf(jid: string | undefined): string | undefined {
  return jid?.split('/')[0];
}

export function matches(match: StanzaMatch, stanza: RecordedStanza): boolean {
  if (match.kind !== undefined) {
    const kinds: readonly StanzaKind[] = typeof match.kind === 'string' ? [match.kind] : match.kind;
    if (!kinds.includes(stanza.kind)) return false;
  }
  if (match.from !== undefined) {
    const from = match.from.includes('/') ? stanza.from : bareOf(stanza.from);
    if (from !== match.from) return false;
  }
  if (match.to !== undefined && stanza.to !== match.to) return false;
  return match.where === undefined || match.where(stanza);
}

export function describeMatch(match: StanzaMatch): string {
  const parts = [
    match.kind === undefined ? 'any stanza' : [match.kind].flat().join(' or '),
    ...(match.from === undefined ? [] : [`from ${match.from}`]),
    ...(match.to === undefined ? [] : [`to ${match.to}`]),
    ...(match.where === undefined ? [] : ['(with a condition)']),
  ];
  return parts.join(' ');
}

interface Waiter {
  readonly accept: (stanza: RecordedStanza) => boolean;
}

export class StanzaLog {
  readonly #stanzas: RecordedStanza[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #startedAt = performance.now();

  /** Appends a stanza the fake target received and wakes the waits it satisfies. */
  record(kind: StanzaKind, element: Element): RecordedStanza {
    const attrs = element.attrs;
    const stanza: RecordedStanza = {
      index: this.#stanzas.length,
      kind,
      xml: serialize(element),
      element,
      name: element.name,
      from: attrs['from'],
      to: attrs['to'],
      id: attrs['id'],
      type: attrs['type'],
      atMs: performance.now() - this.#startedAt,
      receivedAt: new Date(),
    };
    this.#stanzas.push(stanza);
    for (const waiter of [...this.#waiters]) if (waiter.accept(stanza)) this.#waiters.delete(waiter);
    return stanza;
  }

  /** Every stanza so far, or those that match. */
  all(match: StanzaMatch = {}): RecordedStanza[] {
    return this.#stanzas.filter((stanza) => matches(match, stanza));
  }

  get length(): number {
    return this.#stanzas.length;
  }

  /**
   * The first stanza at or after position `since` that matches, waiting up to `timeoutMs`; an
   * aborted `signal` stops the wait (rejecting with its reason) and leaves no timer behind.
   */
  async waitFor(
    match: StanzaMatch,
    options: { since?: number; timeoutMs: number; signal?: AbortSignal },
  ): Promise<RecordedStanza> {
    const since = options.since ?? 0;
    const present = this.#stanzas.slice(since).find((stanza) => matches(match, stanza));
    if (present !== undefined) return present;
    const { signal } = options;
    signal?.throwIfAborted();
    return await new Promise<RecordedStanza>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('the wait was aborted'));
      };
      const waiter: Waiter = {
        accept: (stanza) => {
          if (stanza.index < since || !matches(match, stanza)) return false;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(stanza);
          return true;
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
        reject(
          new StanzaWaitTimeout(
            `the fake target received no ${describeMatch(match)} within ${options.timeoutMs} ms (from position ${since}; ${this.#stanzas.length} stanza(s) so far)`,
          ),
        );
      }, options.timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** A stream of the matching stanzas with its own cursor, starting at `since` (default: now). */
  stream(match: StanzaMatch, since = this.#stanzas.length): StanzaStream {
    return new StanzaStream(this, match, since);
  }

  /** The log as text, one stanza a line, for failure output. */
  toText(): string {
    return this.#stanzas
      .map((stanza) => `${stanza.atMs.toFixed(3).padStart(10)} ms  ${stanza.kind.padEnd(13)} ${stanza.xml}`)
      .join('\n');
  }
}

export class StanzaStream {
  #cursor: number;

  constructor(
    private readonly log: StanzaLog,
    readonly match: StanzaMatch,
    since: number,
  ) {
    this.#cursor = since;
  }

  /** The next matching stanza after the last one this stream returned (see StanzaLog.waitFor). */
  async next(timeoutMs: number, signal?: AbortSignal): Promise<RecordedStanza> {
    const stanza = await this.log.waitFor(this.match, {
      since: this.#cursor,
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    this.#cursor = stanza.index + 1;
    return stanza;
  }

  /** The matching stanzas that arrived after the last one returned and were not taken yet. */
  pending(): RecordedStanza[] {
    return this.log.all(this.match).filter((stanza) => stanza.index >= this.#cursor);
  }
}
