/**
 * One XMPP session of a caller (an account and a resource) on a federation, as the suite uses it:
 * IQs that resolve with the result payload or reject with a typed error, raw sends for negative
 * tests, waits on inbound stanzas, a queue of inbound task events, and a transcript of every
 * stanza in both directions with the exact text that crossed the wire.
 *
 * The library (@xmpp/client) does TLS, SASL and resource binding. After that the caller writes
 * its own text (serialize(), which escapes TAB/LF/CR in attributes; ltx's toString does not)
 * and reads its own input: the raw bytes are cut into stanzas and each is parsed strictly, so a
 * reply is judged on what the server sent, not on the library's lenient parse.
 */

import { xml, type Element } from '@xmpp/xml';

import { generateIdentifier } from '../../protocol/identifiers.ts';
import { normalizeJid } from '../../protocol/jid/index.ts';
import { XmlStreamReader, type StreamEvent } from '../../protocol/xml/index.ts';
import { NS, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  attributeOf,
  buildIq,
  isLifecycleMessage,
  parseIq,
  parseLifecycleMessage,
  serialize,
  taskEventChildren,
  type IqError,
  type IqResult,
} from '../../protocol/stanza/index.ts';
import type { Account } from '../federation/server-provider.ts';
import { openClientConnection, type ClientConnection } from './client-connection.ts';
import {
  CallerDisconnected,
  IqTimeout,
  MalformedReply,
  StanzaErrorReply,
  WaitTimeout,
  type IqRequestInfo,
} from './errors.ts';
import { isStreamError, receivedStanza, stanzaNameOf, type ReceivedStanza } from './received-stanza.ts';
import { TaskEventQueue, type ReceivedTaskEvent } from './task-event-queue.ts';
import type { Transcript, TranscriptDirection } from './transcript.ts';

export type CallerStatus =
  /** Created, connect() not called yet. */
  | 'idle'
  /** Logging in, or waiting for the server to take the initial presence. */
  | 'connecting'
  | 'online'
  | 'closing'
  /** Closed by close(). */
  | 'closed'
  /** The connection ended without close() (server gone, stream error, cut link). */
  | 'lost'
  /** connect() failed. */
  | 'failed';

export interface CallerOptions {
  readonly account: Account;
  readonly resource: string;
  /** PEM text of the CA to trust. */
  readonly ca: () => Promise<string>;
  readonly transcript: Transcript;
  /** Default deadline of iq(), waitForStanza() and event waits (default 5000 ms). */
  readonly timeoutMs?: number;
  /** Deadline of the login itself (default 10 000 ms). */
  readonly loginTimeoutMs?: number;
  /** Awaited before each stanza this caller sends (its addressee, when known): a run's pacing. */
  readonly beforeSend?: BeforeSend;
  /** Called before each stanza this caller sends, after its pacing or unpaced; throws to refuse the send. */
  readonly sendGate?: SendGate;
}

/** Throws to refuse a send (e.g. from the code of a case the runner gave up on). */
export type SendGate = () => void;

/** Called before a stanza is sent, with its `to` (undefined for raw text); resolves when it may go. */
export type BeforeSend = (to: string | undefined) => Promise<void>;

export interface IqOptions {
  readonly timeoutMs?: number;
  /** The stanza ID; a fresh random identifier by default. */
  readonly id?: string;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  /**
   * Also consider stanzas received since this position in `inbound` (e.g. a length read before
   * sending). Default: only stanzas that arrive after the call.
   */
  readonly since?: number;
  /** What is awaited, in words, for the timeout message. */
  readonly description?: string;
}

/** A request and the reply taken as its answer (type result or error). */
export interface IqExchange {
  readonly id: string;
  readonly requestXml: string;
  readonly reply: ReceivedStanza;
  readonly parsed: IqResult | IqError;
}

interface PendingIq {
  readonly info: IqRequestInfo;
  readonly resolve: (reply: ReceivedStanza) => void;
  readonly reject: (error: Error) => void;
}

interface StanzaWaiter {
  readonly predicate: (stanza: ReceivedStanza) => boolean;
  readonly resolve: (stanza: ReceivedStanza) => void;
  readonly reject: (error: Error) => void;
}

const DEFAULT_TIMEOUT_MS = 5000;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function normalizedOrUndefined(jid: string): string | undefined {
  try {
    return normalizeJid(jid);
  } catch {
    return undefined;
  }
}

interface AnsweredIq {
  readonly to: string;
  /** Title of the transcript current when the request was sent (the runner's case ID). */
  readonly sentDuring: string;
  readonly requestXml: string;
  readonly replyXml: string;
  /** The condition, when the reply was an error a server sends for an addressee it cannot reach. */
  readonly routingError?: string;
}

/**
 * Errors a server returns in the addressee's name when it cannot deliver to it (RFC 6120 §10.5.3,
 * §8.3.1: the error carries the addressee's JID as from). The addressee may still have received
 * the request and answered it: its answer after such an error is not a second answer of its own.
 */
const ROUTING_ERRORS: ReadonlySet<string> = new Set([
  'recipient-unavailable',
  'remote-server-not-found',
  'remote-server-timeout',
]);

function routingErrorOf(reply: ReceivedStanza): string | undefined {
  if (reply.type !== 'error') return undefined;
  const condition = reply.element
    ?.getChild('error')
    ?.getChildElements()
    .find((child) => child.attrs['xmlns'] === NS.stanzas)?.name;
  return condition !== undefined && ROUTING_ERRORS.has(condition) ? condition : undefined;
}

/** A reply to an IQ that had been answered already. */
export interface SecondReply extends AnsweredIq {
  /** The full JID of the caller that sent the request. */
  readonly caller: string;
  readonly id: string;
  readonly secondXml: string;
}

export class Caller {
  readonly account: Account;
  readonly resource: string;
  /** Inbound task events, per task ID. */
  readonly events: TaskEventQueue;

  readonly #ca: () => Promise<string>;
  readonly #timeoutMs: number;
  readonly #beforeSend: BeforeSend | undefined;
  readonly #sendGate: SendGate | undefined;
  readonly #loginTimeoutMs: number;
  #transcript: Transcript;
  #jid: string;
  #status: CallerStatus = 'idle';
  #connection: ClientConnection | undefined;
  #closing: Promise<void> | undefined;
  #ended: CallerDisconnected | undefined;

  readonly #inbound: ReceivedStanza[] = [];
  readonly #pending = new Map<string, PendingIq>();
  /** Requests given up on: a reply that still comes is marked as late in the transcript. */
  readonly #timedOut = new Map<string, number>();
  /** Requests already answered, for spotting a second reply (RFC 6120 §8.2.3: exactly one). */
  readonly #answered = new Map<string, AnsweredIq>();
  readonly #secondReplies: SecondReply[] = [];
  readonly #waiters = new Set<StanzaWaiter>();

  // The transcript shows what crossed the wire, part by part; restricted XML is the server's to
  // refuse, not the transcript's.
  readonly #input = new XmlStreamReader({ restricted: false });
  readonly #output = new XmlStreamReader({ restricted: false });
  #inputNamespaces: ReadonlyMap<string, string> = new Map();
  #outputNamespaces: ReadonlyMap<string, string> = new Map();

  constructor(options: CallerOptions) {
    this.account = options.account;
    this.resource = options.resource;
    this.#ca = options.ca;
    this.#transcript = options.transcript;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#beforeSend = options.beforeSend;
    this.#sendGate = options.sendGate;
    this.#loginTimeoutMs = options.loginTimeoutMs ?? 10_000;
    this.#jid = `${options.account.jid}/${options.resource}`;
    this.events = new TaskEventQueue(() => this.#jid, this.#timeoutMs);
  }

  /** The full JID: as requested until connected, then as bound by the server. */
  get jid(): string {
    return this.#jid;
  }

  get bareJid(): string {
    return this.account.jid;
  }

  get status(): CallerStatus {
    return this.#status;
  }

  get transcript(): Transcript {
    return this.#transcript;
  }

  /** Every stanza received, in order (including those that answered requests). */
  get inbound(): readonly ReceivedStanza[] {
    return this.#inbound;
  }

  /**
   * Replies that came from a request's addressee after it had already been answered: each names
   * the transcript (the case) that was current when the request was sent, so the violation is
   * laid at that case's door even when the second reply arrives during a later one.
   */
  get secondReplies(): readonly SecondReply[] {
    return this.#secondReplies;
  }

  /** Records into `transcript` from now on (one transcript per test case). */
  useTranscript(transcript: Transcript): void {
    this.#transcript = transcript;
  }

  /**
   * Logs in, sends initial presence and waits until the server has taken it (its echo of the
   * presence to this resource, RFC 6121 §4.2.2): from then on a message to the bare JID reaches
   * this session instead of offline storage. Rejects with LoginFailed naming the JID.
   */
  async connect(): Promise<this> {
    if (this.#status !== 'idle')
      throw new Error(`${this.#jid}: connect() on a caller that is ${this.#status}`);
    this.#status = 'connecting';
    try {
      this.#connection = await openClientConnection({
        account: this.account,
        ca: await this.#ca(),
        resource: this.resource,
        timeoutMs: this.#loginTimeoutMs,
        tap: {
          received: (chunk) => {
            this.#onInput(chunk);
          },
          sent: (text) => {
            this.#onLibraryOutput(text);
          },
        },
      });
    } catch (error) {
      this.#status = 'failed';
      this.#recordStatus(`login failed: ${asError(error).message}`);
      this.#end('login failed');
      throw error;
    }
    this.#jid = this.#connection.jid;
    const { connection } = this.#connection;
    connection.on('disconnect', () => {
      if (this.#status !== 'connecting' && this.#status !== 'online') return;
      this.#status = 'lost';
      const unfinished = this.#input.pending;
      this.#recordStatus(
        unfinished === '' ? 'connection lost' : `connection lost inside an element: ${unfinished}`,
      );
      this.#end('connection lost');
    });
    connection.on('error', (error: unknown) => {
      // Stream errors are in the transcript as elements already.
      if (this.#status === 'online' && asError(error).name !== 'StreamError') {
        this.#recordStatus(`connection error: ${asError(error).message}`);
      }
    });
    try {
      const taken = this.waitForStanza(
        (stanza) =>
          stanza.name === 'presence' &&
          stanza.type === undefined &&
          stanza.from !== undefined &&
          normalizedOrUndefined(stanza.from) === normalizedOrUndefined(this.#jid),
        { timeoutMs: this.#loginTimeoutMs, description: 'echo of the initial presence' },
      );
      await this.#write(serialize(xml('presence')), 'stanza');
      await taken;
    } catch (error) {
      this.#status = 'failed';
      this.#recordStatus(`initial presence failed: ${asError(error).message}`);
      this.#end('initial presence failed');
      await this.#connection.close();
      throw error;
    }
    this.#status = 'online';
    this.#recordStatus('online');
    return this;
  }

  /** Sends an element as serialize() writes it; returns that text. */
  async send(element: Element): Promise<string> {
    this.#requireOnline();
    const to: unknown = element.attrs['to'];
    await this.#beforeSend?.(typeof to === 'string' ? to : undefined);
    this.#sendGate?.();
    const text = serialize(element);
    await this.#write(text, 'stanza');
    return text;
  }

  /**
   * Writes text exactly as given: for negative tests that need odd or malformed stanzas. The
   * server may answer with a stream error and close the stream (status becomes 'lost').
   */
  async sendRaw(text: string): Promise<void> {
    this.#requireOnline();
    await this.#beforeSend?.(undefined);
    this.#sendGate?.();
    await this.#write(text, 'raw');
  }

  /**
   * Sends an IQ and resolves with the result's payload (undefined for an empty result). Rejects
   * with StanzaErrorReply, IqTimeout, MalformedReply or CallerDisconnected.
   */
  async iq(
    to: string,
    type: 'get' | 'set',
    payload: Element,
    options: IqOptions = {},
  ): Promise<Element | undefined> {
    const exchange = await this.exchangeIq(to, type, payload, options);
    const { parsed, reply } = exchange;
    if (parsed.type === 'error') {
      throw new StanzaErrorReply(
        { caller: this.#jid, requestId: exchange.id, to, requestXml: exchange.requestXml },
        { xml: reply.xml, from: reply.from },
        parsed.error,
        parsed.payload,
      );
    }
    return parsed.payload;
  }

  /**
   * Sends an IQ and resolves with the reply, result or error alike (for suites that compare
   * whole error payloads). A reply counts when its ID is the request's and it comes from the
   * request's addressee (RFC 6120 §8.1.2.1); anything else is left to waitForStanza.
   */
  async exchangeIq(
    to: string,
    type: 'get' | 'set',
    payload: Element,
    options: IqOptions = {},
  ): Promise<IqExchange> {
    this.#requireOnline();
    // Paced before its deadline starts: the wait is the run's choice, not the gateway's delay.
    await this.#beforeSend?.(to);
    this.#sendGate?.();
    const id = options.id ?? generateIdentifier('iq-');
    if (this.#pending.has(id)) throw new Error(`${this.#jid}: an iq with id ${id} is still pending`);
    const requestXml = serialize(buildIq({ id, type, to }, payload));
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const info: IqRequestInfo = { caller: this.#jid, requestId: id, to, requestXml };
    const sentDuring = this.#transcript.title;
    const replied = new Promise<ReceivedStanza>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#timedOut.set(id, timeoutMs);
        reject(new IqTimeout(info, timeoutMs));
      }, timeoutMs);
      this.#pending.set(id, {
        info,
        resolve: (reply) => {
          clearTimeout(timer);
          const routingError = routingErrorOf(reply);
          this.#answered.set(id, {
            to,
            sentDuring,
            requestXml,
            replyXml: reply.xml,
            ...(routingError === undefined ? {} : { routingError }),
          });
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
    // The reply may be rejected (the caller closed) while the request is still being written,
    // before anything awaits it: marked handled here, it is still awaited below.
    replied.catch(() => undefined);
    try {
      await this.#write(requestXml, 'stanza');
    } catch (error) {
      this.#pending.get(id)?.reject(asError(error));
      this.#pending.delete(id);
      throw error;
    }
    const reply = await replied;
    if (reply.element === undefined) {
      throw new MalformedReply(info, reply.xml, reply.parseError ?? new Error('not parsed'));
    }
    try {
      const parsed = parseIq(reply.element);
      if (parsed.type === 'result' || parsed.type === 'error') return { id, requestXml, reply, parsed };
      throw new Error(`type ${parsed.type}`);
    } catch (error) {
      throw new MalformedReply(info, reply.xml, asError(error));
    }
  }

  /** The first stanza satisfying `predicate`, arriving after the call (or since `options.since`). */
  waitForStanza(
    predicate: (stanza: ReceivedStanza) => boolean,
    options: WaitOptions = {},
  ): Promise<ReceivedStanza> {
    for (const stanza of this.#inbound.slice(options.since ?? this.#inbound.length)) {
      if (predicate(stanza)) return Promise.resolve(stanza);
    }
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    return new Promise<ReceivedStanza>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new WaitTimeout(this.#jid, options.description ?? 'matching stanza', timeoutMs));
      }, timeoutMs);
      const waiter: StanzaWaiter = {
        predicate,
        resolve: (stanza) => {
          clearTimeout(timer);
          resolve(stanza);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /**
   * Resolves when the session is over (closed, lost, or never established), with why; rejects
   * with WaitTimeout at the deadline. For tests that expect the server to end the stream.
   */
  waitUntilEnded(options: { readonly timeoutMs?: number } = {}): Promise<CallerDisconnected> {
    return this.waitForStanza(() => false, { ...options, description: 'end of the session' }).then(
      () => {
        throw new Error('unreachable: the predicate accepts nothing');
      },
      (error: unknown) => {
        if (error instanceof CallerDisconnected) return error;
        throw error;
      },
    );
  }

  /** Closes the stream and the connection. Open requests and waits reject with CallerDisconnected. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const wasOpen = this.#status === 'online' || this.#status === 'connecting';
    if (wasOpen) this.#status = 'closing';
    this.#end('closed by the test');
    await this.#connection?.close();
    if (wasOpen || this.#status === 'idle') {
      this.#status = 'closed';
      this.#recordStatus('closed');
    }
  }

  #requireOnline(): void {
    if (this.#status !== 'online') throw new Error(`${this.#jid}: not online (${this.#status})`);
  }

  async #write(text: string, kind: 'stanza' | 'raw'): Promise<void> {
    const connection = this.#connection;
    if (connection === undefined) throw new Error(`${this.#jid}: not connected`);
    this.#transcript.record({ kind, direction: 'sent', jid: this.#jid, xml: text });
    await connection.writeRaw(text);
  }

  #recordStatus(text: string): void {
    this.#transcript.record({ kind: 'status', jid: this.#jid, text });
  }

  /** What the library writes itself: negotiation, its automatic replies, the closing tag. */
  #onLibraryOutput(text: string): void {
    for (const part of this.#output.write(text)) {
      if (part.kind === 'stream-open') this.#outputNamespaces = part.namespaces;
      else this.#recordStreamPart(part, 'sent', this.#outputNamespaces);
    }
  }

  #onInput(chunk: Buffer): void {
    const receivedAt = performance.now();
    for (const part of this.#input.write(chunk)) {
      if (part.kind === 'stream-open') {
        this.#inputNamespaces = part.namespaces;
        continue;
      }
      const name = part.kind === 'element' ? stanzaNameOf(part.name) : undefined;
      if (name === undefined || part.kind !== 'element')
        this.#recordStreamPart(part, 'received', this.#inputNamespaces);
      else
        this.#onStanza(
          receivedStanza(this.#inbound.length, name, part.xml, this.#inputNamespaces, receivedAt),
        );
    }
  }

  /** Stanzas, stream errors and closes go into the transcript; other nonzas (SASL, features) do not. */
  #recordStreamPart(
    part: StreamEvent,
    direction: TranscriptDirection,
    namespaces: ReadonlyMap<string, string>,
  ): void {
    if (part.kind === 'stream-close') {
      this.#transcript.record({ kind: 'stream-close', direction, jid: this.#jid, xml: part.xml });
    } else if (part.kind === 'element' && stanzaNameOf(part.name) !== undefined) {
      this.#transcript.record({ kind: 'stanza', direction, jid: this.#jid, xml: part.xml });
    } else if (part.kind === 'element' && isStreamError(part.name, namespaces)) {
      this.#transcript.record({ kind: 'stream-error', direction, jid: this.#jid, xml: part.xml });
    } else if (part.kind === 'error') {
      this.#recordStatus(`${direction} stream no longer read: ${part.error.message}`);
    }
  }

  #onStanza(stanza: ReceivedStanza): void {
    this.#inbound.push(stanza);
    const { pending, remark } = this.#replyTarget(stanza);
    this.#transcript.record({
      kind: 'stanza',
      direction: 'received',
      jid: this.#jid,
      xml: stanza.xml,
      ...(remark === undefined ? {} : { text: remark }),
    });
    if (pending !== undefined) {
      this.#pending.delete(pending.info.requestId);
      pending.resolve(stanza);
    }
    const event = stanza.name === 'message' ? this.#taskEventOf(stanza) : undefined;
    if (event !== undefined) this.events.push(event);
    for (const waiter of this.#waiters) {
      let matches: boolean;
      try {
        matches = waiter.predicate(stanza);
      } catch (error) {
        this.#waiters.delete(waiter);
        waiter.reject(asError(error));
        continue;
      }
      if (matches) {
        this.#waiters.delete(waiter);
        waiter.resolve(stanza);
      }
    }
  }

  /** The pending request this stanza answers, or a remark on why an IQ reply answers none. */
  #replyTarget(stanza: ReceivedStanza): { pending?: PendingIq; remark?: string } {
    const { id } = stanza;
    if (stanza.name !== 'iq' || (stanza.type !== 'result' && stanza.type !== 'error') || id === undefined) {
      return {};
    }
    const pending = this.#pending.get(id);
    const answered = this.#answered.get(id);
    if (pending === undefined && answered?.routingError !== undefined) {
      return {
        remark: `reply after ${answered.routingError}: a server may have sent that error in ${answered.to}'s name, so this is not taken as a second reply`,
      };
    }
    if (pending === undefined && answered !== undefined && this.#isFromAddressee(stanza.from, answered.to)) {
      this.#secondReplies.push({ caller: this.#jid, id, ...answered, secondXml: stanza.xml });
      return {
        remark: `second reply: iq ${id} was already answered (request sent during ${answered.sentDuring})`,
      };
    }
    if (pending === undefined) {
      const timeoutMs = this.#timedOut.get(id);
      return timeoutMs === undefined
        ? {}
        : { remark: `late reply: iq ${id} timed out after ${timeoutMs} ms` };
    }
    if (this.#isFromAddressee(stanza.from, pending.info.to)) return { pending };
    return {
      remark: `id of pending iq ${id}, but from ${stanza.from ?? '(none)'} instead of ${pending.info.to}: not taken as its reply`,
    };
  }

  /** RFC 6120 §8.1.2.1: a reply comes from the request's 'to'; no 'from' means the account or its server. */
  #isFromAddressee(from: string | undefined, to: string): boolean {
    const expected = normalizedOrUndefined(to);
    if (expected === undefined) return false;
    if (from === undefined)
      return expected === normalizedOrUndefined(this.account.jid) || expected === this.account.domain;
    return normalizedOrUndefined(from) === expected;
  }

  #taskEventOf(stanza: ReceivedStanza): ReceivedTaskEvent | undefined {
    const { element, from } = stanza;
    if (element === undefined) {
      // Not well-formed: it counts when it looks like one, so that a suite sees it flagged.
      if (!stanza.xml.includes(NS_AGENT_TASK)) return undefined;
      return {
        valid: false,
        taskId: undefined,
        problem: stanza.parseError ?? new Error('not parsed'),
        stanza,
        from,
      };
    }
    if (!isLifecycleMessage(element)) return undefined;
    try {
      const { message, event } = parseLifecycleMessage(element);
      return { valid: true, taskId: event.taskId, event, message, stanza, from };
    } catch (error) {
      const [first] = taskEventChildren(element);
      const taskId = first === undefined ? undefined : attributeOf(first, 'task-id');
      return { valid: false, taskId, problem: asError(error), stanza, from };
    }
  }

  /** Nothing more can arrive: open requests and waits reject, and so do later ones. */
  #end(reason: string): void {
    if (this.#ended !== undefined) return;
    const ended = new CallerDisconnected(this.#jid, reason);
    this.#ended = ended;
    for (const pending of this.#pending.values()) pending.reject(ended);
    this.#pending.clear();
    for (const waiter of this.#waiters) waiter.reject(ended);
    this.#waiters.clear();
    this.events.end(ended);
  }
}
