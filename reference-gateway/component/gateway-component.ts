/**
 * The reference gateway on the wire: a XEP-0114 component (#component-deployment) that hands
 * every inbound IQ request to routeIq, every inbound IQ result or error to the outbound-IQ
 * tracker, and every presence to the presence responder, and writes what they return with the
 * strict serializer (never the library's toString).
 *
 * Exactly one reply per IQ: @xmpp/component wires a middleware chain whose IQ callee answers
 * every IQ nobody registered for with service-unavailable. That chain is detached here (its
 * only 'element' listener is removed at construction), so the library never answers anything;
 * the gateway reads raw 'stanza' events and replies itself, once.
 *
 * Connection lifecycle (#component-deployment: "bounded reconnect, keepalive, IQ correlation"):
 * - every connection attempt (TCP connect, stream open, handshake) has a deadline; an attempt
 *   that misses it is torn down, so a server that accepts TCP but never speaks cannot hold the
 *   gateway in "connecting" forever;
 * - the first attempt failing is a start failure (GatewayConnectError, nothing retried); once
 *   the gateway has been online, a lost stream is retried with capped exponential backoff and
 *   jitter (backoff.ts), never giving up;
 * - XEP-0199 pings after inbound inactivity detect a stream that died silently (keepalive.ts);
 * - every outbound IQ still pending when the stream goes down fails at once (outbound-iq.ts).
 * Timers and randomness are injectable (GatewayTiming).
 *
 * Tasks (task-wiring.ts): the engine starts, and recovers, before the first connection; its
 * lifecycle messages leave through send(), and what the link did not take is re-sent on every
 * 'online'; inbound message errors are bounces of those messages; stop() closes the engine
 * before the stream (the caller closes the store after that).
 */
import { once } from 'node:events';
import componentPackage, { type XmppComponent } from '@xmpp/component';
import { xml, type Element } from '@xmpp/xml';
import { JidError, bareJidOf } from '../../protocol/jid/index.ts';
import { NS } from '../../protocol/namespaces.ts';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { GatewayState } from '../config/gateway-state.ts';
import { checkDiscoverySettings, type DiscoverySettings } from '../discovery/index.ts';
import { CHAT_FEATURES, MessagingService } from '../messaging/index.ts';
import { respondToPresence, type PresenceContext } from '../presence/index.ts';
import { backoffDelay, type BackoffPolicy } from './backoff.ts';
import { AttemptTimeout, describeConnectFailure, GatewayConnectError } from './connect-failure.ts';
import { iqRouterOf } from './gateway-routes.ts';
import { requesterOf, routeIq, type IqRouter } from './iq-router.ts';
import { Keepalive, type KeepalivePolicy } from './keepalive.ts';
import { restrictedParserClass, type RestrictedFeature } from './restricted-stream.ts';
import { OutboundIqError, OutboundIqTracker, type OutboundIqReply } from './outbound-iq.ts';
import { TaskWiring, type TaskWiringOptions } from './task-wiring.ts';
import { decodeUtf8AcrossChunks } from '../../protocol/stanza/chunk-decoding.ts';

export interface GatewayTiming {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
  readonly random: () => number;
}

const SYSTEM_TIMING: GatewayTiming = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
  random: Math.random,
};

export interface GatewayComponentOptions {
  /** One line per event worth an operator's attention (never a secret, never stanza content). */
  readonly log?: (line: string) => void;
  /** Overrides config.reconnect's delays. */
  readonly backoff?: BackoffPolicy;
  /** Overrides config.keepalive's timing. */
  readonly keepalive?: KeepalivePolicy;
  /** Overrides config.reconnect.attemptTimeoutMs. */
  readonly attemptTimeoutMs?: number;
  readonly timing?: GatewayTiming;
  /** The task engine's clock, limits and purge interval (defaults: real time, task-limits.ts). */
  readonly tasks?: TaskWiringOptions;
}

/**
 * - online / offline: the stream came up / went down (each transition once);
 * - reply: an IQ reply was written;
 * - ping: an inactivity ping was sent;
 * - dead: a ping went unanswered and the stream is being torn down;
 * - rerouted: a task event bounced and its caller's route moved to the bare JID.
 */
export type GatewayEvent = 'online' | 'offline' | 'reply' | 'ping' | 'dead' | 'rerouted';

/** An IQ the gateway sends itself (a ping now; the task engine later). */
export interface GatewayIqRequest {
  readonly to: string;
  readonly type: 'get' | 'set';
  readonly payload: Element;
  /** The gateway JID when absent; otherwise a JID on the component domain. */
  readonly from?: string;
  readonly timeoutMs: number;
}

/** What the discovery responders are told about this deployment, from the config. */
export function discoverySettingsOf(config: GatewayConfig): DiscoverySettings {
  const { chatEndpoints } = config.messaging;
  return checkDiscoverySettings({
    messagingFeatures: (endpoint) => (chatEndpoints.has(endpoint) ? CHAT_FEATURES : []),
    gatewayJid: config.component.domain,
    gatewayName: config.name,
    pageMaximum: config.limits.rsmPageMax,
    searchEnabled: true,
    gatewayFeatures: { admin: config.admins.length > 0, selfRegister: config.selfRegistration, ping: true },
    taskFeatures: { core: false, progress: false, cancel: false, input: false },
    coldStartSupported: config.endpointInfo.coldStartSupported,
    requestReplaySeconds: config.endpointInfo.requestReplaySeconds,
  });
}

/**
 * The IQ router, from the opened state: the one place where the config's limits reach the
 * responders (limits.rsmPageMax through the discovery settings; limits.rateLimits through the
 * state's rate limiter, shared with provisioning, which also holds limits' manifest intake
 * limits).
 */
export function gatewayRouterOf(state: GatewayState, tasks?: TaskWiring): IqRouter {
  const { config } = state;
  const settings = discoverySettingsOf(config);
  return iqRouterOf({
    gatewayJid: config.component.domain,
    catalog: state.catalog,
    settings,
    provisioning: state.provisioning,
    selfRegistration: config.selfRegistration,
    rateLimiter: state.rateLimiter,
    ...(tasks === undefined ? {} : { tasks: tasks.routing(settings) }),
  });
}

interface ClosableSocket {
  readonly closed: boolean;
  destroy(): void;
  cork(): void;
  uncork(): void;
  once(event: 'close', listener: () => void): unknown;
}

/** The parts of the library's connection this module drives directly. */
interface RawComponent {
  readonly socket: ClosableSocket | null;
  /** The library's deadline (ms) for each step of opening and closing a stream. */
  timeout: number;
  write(text: string): Promise<void>;
  connect(service: string): Promise<void>;
  open(options: { domain: string }): Promise<unknown>;
}

const NS_STREAMS = 'urn:ietf:params:xml:ns:xmpp-streams';

/** How long stop() waits for each step of a polite stream close. */
const STOP_GRACE_MS = 500;

/** Resolves on the connection's next 'online', rejects on its next 'error'. */
function nextOnline(connection: XmppComponent): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      connection.off('online', onOnline);
      connection.off('error', onError);
    };
    const onOnline = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: unknown): void => {
      cleanup();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    connection.on('online', onOnline);
    connection.on('error', onError);
  });
}

export class GatewayComponent {
  readonly #connection: XmppComponent;
  readonly #raw: RawComponent;
  readonly #state: GatewayState;
  readonly #router: IqRouter;
  readonly #presence: PresenceContext;
  readonly #log: (line: string) => void;
  readonly #backoff: BackoffPolicy;
  readonly #timing: GatewayTiming;
  readonly #attemptTimeoutMs: number;
  readonly #service: string;
  readonly #tracker: OutboundIqTracker;
  readonly #keepalive: Keepalive;
  readonly #tasks: TaskWiring;
  readonly #messaging: MessagingService;
  readonly #listeners = new Map<GatewayEvent, Set<() => void>>();
  /** Set once the stream was first online: from then on a lost stream is retried. */
  #started = false;
  #stopping = false;
  #online = false;
  #attempt = 0;
  #timer: unknown;
  #replies = 0;
  /** Whether the socket is corked until the next tick (#write). */
  #corked = false;

  private constructor(state: GatewayState, options: GatewayComponentOptions, tasks: TaskWiring) {
    this.#state = state;
    this.#tasks = tasks;
    const { config } = state;
    this.#log = options.log ?? (() => undefined);
    this.#backoff = options.backoff ?? {
      initialMs: config.reconnect.initialMs,
      maxMs: config.reconnect.maxMs,
    };
    this.#timing = options.timing ?? SYSTEM_TIMING;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? config.reconnect.attemptTimeoutMs;
    this.#service = `xmpp://${config.component.host}:${String(config.component.port)}`;
    this.#router = {
      ...gatewayRouterOf(state, tasks),
      onHandlerError: (errorName) => {
        this.#log(`gateway: an IQ handler failed (${errorName}); answered internal-server-error`);
      },
    };
    this.#presence = { gatewayJid: config.component.domain, catalog: state.catalog };
    this.#messaging = new MessagingService({
      chatEndpoints: config.messaging.chatEndpoints,
      catalog: state.catalog,
      send: (stanza) => this.send(stanza),
      iq: (request) => this.iq(request),
      blockStateTimeoutMs: config.messaging.blockStateTimeoutMs,
      log: this.#log,
    });
    this.#connection = componentPackage.component({
      service: this.#service,
      domain: config.component.domain,
      password: config.component.secret.reveal(),
    });
    this.#raw = this.#connection as unknown as RawComponent;
    // Restricted XML (RFC 6120 §11.1) ends the stream before the library's parser sees it.
    (this.#connection as unknown as { Parser: unknown }).Parser = restrictedParserClass((feature) => {
      this.#refuseRestricted(feature);
    });
    this.#connection.reconnect.stop();
    decodeUtf8AcrossChunks(this.#connection);
    // Detach the library's middleware chain (and with it the IQ callee): at construction its
    // listener is the only 'element' listener, so nothing but this module answers stanzas.
    for (const listener of this.#connection.listeners('element')) {
      this.#connection.removeListener('element', listener as (...args: unknown[]) => void);
    }
    this.#tracker = new OutboundIqTracker({
      write: (stanza) => this.#write(serialize(stanza)),
      online: () => this.#online,
      timing: this.#timing,
    });
    const pingTo = config.keepalive.pingTo;
    this.#keepalive = new Keepalive({
      policy: options.keepalive ?? { idleMs: config.keepalive.idleMs, timeoutMs: config.keepalive.timeoutMs },
      timing: this.#timing,
      ping: (timeoutMs) => {
        this.#emit('ping');
        return this.iq({ to: pingTo, type: 'get', payload: xml('ping', { xmlns: NS.ping }), timeoutMs }).then(
          () => true,
          (error: unknown) => !(error instanceof OutboundIqError && error.reason === 'timeout'),
        );
      },
      onDead: () => {
        this.#emit('dead');
        this.#raw.socket?.destroy();
      },
      log: this.#log,
    });
    this.#connection.on('connect', () => {
      // Replies and events are small writes in quick succession: with Nagle's algorithm each
      // one after the first waits for the server's delayed ACK, about 40 ms (bench/admission).
      (this.#raw.socket as { setNoDelay?: (noDelay: boolean) => void } | null)?.setNoDelay?.(true);
    });
    this.#connection.on('input', () => {
      this.#keepalive.activity();
    });
    this.#connection.on('stanza', (stanza: Element) => {
      this.#onStanza(stanza);
    });
    this.#connection.on('error', (error: unknown) => {
      // Errors of a connection attempt are reported once, by the attempt (describeConnectFailure).
      if (!this.#online) return;
      this.#log(`gateway: component error: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.#connection.on('online', () => {
      this.#started = true;
      this.#online = true;
      this.#attempt = 0;
      this.#keepalive.start();
      this.#tasks.online();
      this.#emit('online');
    });
    tasks.attach((stanza) => this.send(stanza));
    tasks.onRerouted(() => {
      this.#emit('rerouted');
    });
    this.#connection.on('disconnect', () => {
      this.#keepalive.stop();
      this.#tracker.failAll(this.#stopping ? 'stopped' : 'stream-lost');
      const wasOnline = this.#online;
      this.#online = false;
      if (wasOnline) this.#emit('offline');
      if (this.#started && !this.#stopping) this.#scheduleReconnect();
    });
  }

  /**
   * Connects and resolves once the component handshake succeeded; rejects with
   * GatewayConnectError (one readable sentence) when the first attempt fails, and then leaves
   * nothing running.
   */
  static async start(state: GatewayState, options: GatewayComponentOptions = {}): Promise<GatewayComponent> {
    const log = options.log ?? (() => undefined);
    // Crash recovery runs here, before the gateway can be reached.
    const tasks = TaskWiring.start(state, options.timing ?? SYSTEM_TIMING, log, options.tasks);
    const gateway = new GatewayComponent(state, options, tasks);
    try {
      await gateway.#connectOnce();
    } catch (error) {
      gateway.#stopping = true;
      tasks.close();
      const { host, port, domain } = state.config.component;
      throw new GatewayConnectError(
        describeConnectFailure(error, { host, port, domain, attemptTimeoutMs: gateway.#attemptTimeoutMs }),
      );
    }
    return gateway;
  }

  get status(): string {
    return this.#connection.status;
  }

  /** Whether the stream is up (handshake done, not lost since): what /ready reports. */
  get online(): boolean {
    return this.#online;
  }

  /** Replies written so far (for tests: one request, one reply). */
  get replies(): number {
    return this.#replies;
  }

  /** Outbound IQs waiting for their reply. */
  get pendingIqs(): number {
    return this.#tracker.pending;
  }

  /** The task engine and its delivery (for tests and the bench). */
  get tasks(): TaskWiring {
    return this.#tasks;
  }

  /** Inactivity pings sent so far. */
  get pings(): number {
    return this.#keepalive.pings;
  }

  /** Calls `listener` on every occurrence of `event`; returns the unsubscribe function. */
  on(event: GatewayEvent, listener: () => void): () => void {
    let set = this.#listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Resolves on the next occurrence of `event`. */
  next(event: GatewayEvent): Promise<void> {
    return new Promise((resolve) => {
      const off = this.on(event, () => {
        off();
        resolve();
      });
    });
  }

  /**
   * Sends an IQ of the gateway's own and resolves with the reply (result or error); rejects
   * with OutboundIqError when none will come: deadline, stream lost, gateway stopped, offline.
   */
  iq(request: GatewayIqRequest): Promise<OutboundIqReply> {
    return this.#tracker.request({
      to: request.to,
      type: request.type,
      payload: request.payload,
      from: this.#ownSender(request.from),
      timeoutMs: request.timeoutMs,
    });
  }

  /**
   * Every write goes through here. The socket is corked at the first write of a tick and
   * uncorked once the current callbacks and microtasks are done, so the replies and events one
   * turn produces (a whole admission group, say) leave in one writev: fewer syscalls here and
   * fewer reads for the server (bench/admission).
   */
  #write(text: string): Promise<void> {
    const socket = this.#raw.socket;
    if (socket !== null && !this.#corked) {
      this.#corked = true;
      socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    return this.#raw.write(text);
  }

  /**
   * Sends a message or presence stanza as it is (serialized strictly); false when the stream is
   * not up, or went down while writing. The stanza must name its `to`; a missing `from` is the
   * gateway JID, and any `from` must be a JID on the component domain (#security: originate
   * only from JIDs the gateway acts for). IQs go through iq(), which correlates the reply.
   */
  async send(stanza: Element): Promise<boolean> {
    if (stanza.name !== 'message' && stanza.name !== 'presence') {
      throw new TypeError('send() takes <message/> or <presence/>; use iq() for IQs');
    }
    const to: unknown = stanza.attrs['to'];
    if (typeof to !== 'string' || to === '') throw new TypeError('an outbound stanza needs a "to" address');
    const from: unknown = stanza.attrs['from'];
    // security.no-sender-spoofing: only the gateway JID and endpoint JIDs on the component domain.
    const sender = this.#ownSender(typeof from === 'string' ? from : undefined);
    let text: string;
    if (sender === from) {
      // Already from a JID the gateway acts for (task events are): written as it is.
      text = serialize(stanza);
    } else {
      // A detached copy: the caller's element is not changed by stamping the sender.
      const outgoing = parseXml(serialize(stanza));
      outgoing.attrs['from'] = sender;
      text = serialize(outgoing);
    }
    if (!this.#online) return false;
    try {
      await this.#write(text);
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the stream; no reconnect afterwards. The state stays open (the caller owns it). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#tasks.close();
    if (this.#timer !== undefined) this.#timing.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#keepalive.stop();
    this.#tracker.failAll('stopped');
    const socket = this.#raw.socket;
    // The library waits its `timeout` for the server's closing tag and again for the socket to
    // close; a dead link would answer neither, so the polite close gets a short grace only.
    this.#raw.timeout = STOP_GRACE_MS;
    await this.#connection.stop().catch(() => undefined);
    // A stream that cannot close politely must not keep its socket.
    await this.#abandon(socket);
    if (this.#online) {
      this.#online = false;
      this.#emit('offline');
    }
  }

  #ownSender(from: string | undefined): string {
    const gatewayJid = this.#router.gatewayJid;
    if (from === undefined) return gatewayJid;
    let bare: string;
    try {
      bare = bareJidOf(from);
    } catch (error) {
      if (error instanceof JidError) throw new RangeError('the sender is not a JID', { cause: error });
      throw error;
    }
    if (bare !== gatewayJid && !bare.endsWith(`@${gatewayJid}`)) {
      throw new RangeError(`the gateway sends only from ${gatewayJid} and its endpoint JIDs`);
    }
    return from;
  }

  #emit(event: GatewayEvent): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) listener();
  }

  /** One attempt: TCP connect, stream open, handshake, within the attempt deadline. */
  async #connectOnce(): Promise<void> {
    const domain = this.#state.config.component.domain;
    let socket: ClosableSocket | null = null;
    const attempt = (async () => {
      const connected = this.#raw.connect(this.#service);
      socket = this.#raw.socket;
      await connected;
      const online = nextOnline(this.#connection);
      // The handshake runs on the library's 'open' listener; its outcome is 'online' or 'error'.
      await Promise.all([this.#raw.open({ domain }), online]);
    })();
    let deadline: unknown;
    const expired = new Promise<never>((_resolve, reject) => {
      deadline = this.#timing.setTimeout(() => {
        reject(new AttemptTimeout());
      }, this.#attemptTimeoutMs);
    });
    try {
      await Promise.race([attempt, expired]);
    } catch (error) {
      attempt.catch(() => undefined);
      await this.#abandon(socket);
      throw error;
    } finally {
      this.#timing.clearTimeout(deadline);
      expired.catch(() => undefined);
    }
  }

  /** Tears down a failed attempt's socket and waits until the connection has noticed. */
  async #abandon(socket: ClosableSocket | null): Promise<void> {
    if (socket === null || socket.closed) return;
    const closed = once(socket as unknown as NodeJS.EventEmitter, 'close');
    socket.destroy();
    await closed;
  }

  #scheduleReconnect(): void {
    if (this.#timer !== undefined || this.#stopping || this.#online) return;
    this.#attempt += 1;
    const delay = backoffDelay(this.#attempt, this.#backoff, this.#timing.random);
    this.#log(`gateway: disconnected; reconnect attempt ${String(this.#attempt)} in ${String(delay)} ms`);
    this.#timer = this.#timing.setTimeout(() => {
      this.#timer = undefined;
      void this.#reconnect();
    }, delay);
  }

  async #reconnect(): Promise<void> {
    if (this.#stopping || this.#online) return;
    try {
      await this.#connectOnce();
    } catch (error) {
      const { host, port, domain } = this.#state.config.component;
      const target = { host, port, domain, attemptTimeoutMs: this.#attemptTimeoutMs };
      this.#log(
        `gateway: reconnect attempt ${String(this.#attempt)} failed: ${describeConnectFailure(error, target)}`,
      );
      // The abandoned socket's 'disconnect' scheduled the next attempt; an attempt that failed
      // before it had a socket has no such event, so schedule here (the timer guard dedupes).
      this.#scheduleReconnect();
    }
  }

  /**
   * RFC 6120 §11.1: a stream carrying restricted XML is closed with <restricted-xml/>
   * (§4.9.3.18); the lost stream is then retried like any other (a restricted feature says the
   * peer is broken or hostile, not that the gateway must stop).
   */
  #refuseRestricted(feature: RestrictedFeature): void {
    this.#log(`gateway: restricted XML on the component stream (${feature}); closing it`);
    const socket = this.#raw.socket;
    void this.#raw
      .write(`<stream:error><restricted-xml xmlns='${NS_STREAMS}'/></stream:error></stream:stream>`)
      .catch(() => undefined)
      .finally(() => {
        if (socket !== null && !socket.closed) socket.destroy();
      });
  }

  #onStanza(received: Element): void {
    void this.#handle(received).catch((error: unknown) => {
      this.#log(`gateway: stanza handling failed: ${error instanceof Error ? error.name : 'error'}`);
    });
  }

  async #handle(received: Element): Promise<void> {
    if (received.name !== 'iq' && received.name !== 'presence' && received.name !== 'message') return;
    // Detached from the stream and re-read by the strict parser: what the codecs expect.
    // security.no-xxe: the strict parser (protocol/stanza) resolves no entities.
    const stanza = parseXml(serialize(received));
    // events.unknown-namespace-event: a message is ignored entirely, unless it is an error (a
    // bounce of one of our events).
    if (stanza.name === 'message') {
      // An error is a bounce of a task event (a bounced chat message matches no task event).
      if (stanza.attrs['type'] === 'error') {
        this.#tasks.bounced(stanza);
        return;
      }
      // One-to-one chat with a chat endpoint (#messaging); task traffic never reaches it.
      await this.#messaging.handle(stanza);
      return;
    }
    if (stanza.name === 'presence') {
      await this.#answerPresence(stanza);
      return;
    }
    const type: unknown = stanza.attrs['type'];
    if (type === 'result' || type === 'error') {
      // Answers to our own requests; anything else is never answered (RFC 6120 §8.2.3).
      this.#tracker.settle(stanza);
      return;
    }
    // errors.one-reply-per-iq: exactly one routeIq call per inbound IQ request, and at most one
    // write of what it returns.
    const reply = await routeIq(stanza, this.#router);
    if (reply === undefined) return;
    this.#replies += 1;
    await this.#write(serialize(reply));
    this.#emit('reply');
  }

  async #answerPresence(stanza: Element): Promise<void> {
    const { type, from, to } = stanza.attrs as Record<string, unknown>;
    if (typeof from !== 'string' || typeof to !== 'string') return;
    const requester = requesterOf(from);
    if (requester === undefined) return;
    const replies = respondToPresence(
      { type: typeof type === 'string' ? type : undefined, to, from, requester },
      this.#presence,
    );
    for (const reply of replies) await this.#write(serialize(reply));
  }
}
