/**
 * The bridge's one XMPP session: @xmpp/client logs in over STARTTLS on the caller config's
 * host and port, then the bridge sends IQs and reads messages through the protocol/ codecs.
 * Every stanza in either direction is offered to a transcript hook, so a test or an operator can
 * see exactly what the caller sent (#task-message-routing: to whom).
 *
 * Trust: @xmpp/client's STARTTLS takes no CA of its own and checks the certificate against the
 * JID's domain with Node's trust store, so a private CA (the harness's throw-away one) comes in
 * through NODE_EXTRA_CA_CERTS (docs/caller.md).
 */
import type { XmppClient } from '@xmpp/client';
import { xml, type Element } from '@xmpp/xml';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { normalizeJid } from '../../protocol/jid/index.ts';
import { logIn, newClientConnection, stopWithin } from '../../protocol/stanza/client-login.ts';
import { buildIq, parseIq } from '../../protocol/stanza/index.ts';
import { IqLost, type IqAnswer } from '../../reference-caller/querier.ts';
import type { XmppAccountSettings } from '../config/bridge-settings.ts';

const NS_STREAMS = 'http://etherx.jabber.org/streams';
const NS_STARTTLS = 'urn:ietf:params:xml:ns:xmpp-tls';
const NS_SASL = 'urn:ietf:params:xml:ns:xmpp-sasl';

export class SessionClosed extends Error {
  override readonly name = 'SessionClosed';
}

export interface TranscriptEntry {
  readonly at: string;
  readonly direction: 'sent' | 'received';
  readonly xml: string;
}

export interface XmppSessionOptions {
  readonly account: XmppAccountSettings;
  /** Every stanza sent and received, as text (the library's serialization). */
  readonly onTranscript?: (entry: TranscriptEntry) => void;
  readonly loginTimeoutMs?: number;
}

interface PendingIq {
  readonly to: string;
  readonly resolve: (answer: IqAnswer) => void;
}

export class XmppSession {
  readonly #connection: XmppClient;
  readonly #pending = new Map<string, PendingIq>();
  readonly #messageListeners = new Set<(message: Element) => void>();
  readonly #onTranscript: ((entry: TranscriptEntry) => void) | undefined;
  #closed = false;
  #jid = '';

  private constructor(connection: XmppClient, onTranscript?: (entry: TranscriptEntry) => void) {
    this.#connection = connection;
    this.#onTranscript = onTranscript;
  }

  /** Logs in, sends initial presence (so a bare-JID event fallback reaches this session) and returns. */
  static async open(options: XmppSessionOptions): Promise<XmppSession> {
    const { account } = options;
    const service = `xmpp://${account.host}:${String(account.port)}`;
    const timeout = options.loginTimeoutMs ?? 15_000;
    // No XEP-0198 either (newClientConnection): the library enables it concurrently with the
    // first stanzas, which some servers answer by ending the stream; the bridge recovers task
    // state by IQ instead (#task-recovery).
    const connection = newClientConnection({
      service,
      domain: account.domain,
      username: account.localpart,
      password: account.password,
      ...(account.resource === undefined ? {} : { resource: account.resource }),
      timeoutMs: timeout,
    });
    connection.prependListener('element', (element: Element) => {
      // The library would authenticate on a plain stream when no STARTTLS is offered; the bridge
      // never does: the caller contract requires TLS.
      if (!element.is('features', NS_STREAMS) || connection.isSecure()) return;
      if (element.getChild('starttls', NS_STARTTLS) !== undefined) return;
      element.remove('mechanisms', NS_SASL);
      connection.emit('error', new Error('the server offered no STARTTLS; not authenticating in the clear'));
    });
    const session = new XmppSession(connection, options.onTranscript);
    connection.on('stanza', (stanza: Element) => {
      session.#received(stanza);
    });
    connection.on('offline', () => {
      session.#fail();
    });
    try {
      session.#jid = (await logIn(connection, service, account.domain, timeout)).toString();
    } catch (error) {
      await stopWithin(connection, 2000);
      throw new Error(
        `cannot log in as ${account.bareJid} at ${service}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    await session.send(buildPresence());
    return session;
  }

  /** The bound full JID. */
  get jid(): string {
    return this.#jid;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async send(stanza: Element): Promise<void> {
    if (this.#closed) throw new SessionClosed('the XMPP session is closed');
    this.#onTranscript?.({ at: new Date().toISOString(), direction: 'sent', xml: stanza.toString() });
    await this.#connection.send(stanza);
  }

  /**
   * Sends an IQ get or set and resolves with its result or error; rejects with IqLost when no
   * answer comes in time. The answer must come from the addressee (RFC 6120 §8.1.2.1): a reply
   * from anyone else with the same ID is not an answer.
   */
  async iq(to: string, type: 'get' | 'set', payload: Element, timeoutMs: number): Promise<IqAnswer> {
    const stanzaId = generateIdentifier('iq-');
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<IqAnswer>((resolve, reject) => {
      this.#pending.set(stanzaId, { to, resolve });
      timer = setTimeout(() => {
        this.#pending.delete(stanzaId);
        reject(new IqLost(to, stanzaId));
      }, timeoutMs);
    });
    try {
      await this.send(buildIq({ id: stanzaId, type, to }, payload));
      return await answer;
    } finally {
      clearTimeout(timer);
      this.#pending.delete(stanzaId);
    }
  }

  onMessage(listener: (message: Element) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await stopWithin(this.#connection, 2000);
  }

  #received(stanza: Element): void {
    this.#onTranscript?.({ at: new Date().toISOString(), direction: 'received', xml: stanza.toString() });
    if (stanza.is('message')) {
      for (const listener of this.#messageListeners) listener(stanza);
      return;
    }
    if (!stanza.is('iq')) return;
    const type = stanza.attrs['type'];
    const id = stanza.attrs['id'];
    if ((type !== 'result' && type !== 'error') || typeof id !== 'string') return;
    const pending = this.#pending.get(id);
    const from = stanza.attrs['from'];
    if (pending === undefined || typeof from !== 'string' || !sameAddress(from, pending.to)) return;
    let parsed;
    try {
      parsed = parseIq(stanza);
    } catch {
      return;
    }
    if (parsed.type === 'result' || parsed.type === 'error') {
      this.#pending.delete(id);
      pending.resolve(parsed);
    }
  }

  #fail(): void {
    this.#closed = true;
  }
}

function sameAddress(from: string, to: string): boolean {
  try {
    return normalizeJid(from) === normalizeJid(to);
  } catch {
    return false;
  }
}

function buildPresence(): Element {
  return xml('presence');
}
