/**
 * The reference gateway on the wire: a XEP-0114 component (#component-deployment) that hands
 * every inbound IQ request to routeIq, every inbound IQ result or error to the outbound-IQ
 * tracker, and every presence to the presence responder, and writes what they return with the
 * strict serializer.
 *
 * Exactly one reply per IQ: the component link (protocol/component-link) only carries stanzas;
 * nothing but this module answers them, once.
 *
 * Connection lifecycle (#component-deployment: "bounded reconnect, keepalive, IQ correlation"):
 * - every connection attempt (TCP connect, stream open, handshake) has a deadline; an attempt
 *   that misses it is torn down, so a server that accepts TCP but never speaks cannot hold the
 *   gateway in "connecting" forever;
 * - the first attempt failing is a start failure (GatewayConnectError, nothing retried); once
 *   the gateway has been online, the link retries a lost stream with capped exponential backoff
 *   and jitter (backoff.ts), never giving up;
 * - restricted XML on the stream (RFC 6120 §11.1) is refused by the link: <restricted-xml/>, the
 *   stream closed, then retried like any other lost stream;
 * - XEP-0199 pings after inbound inactivity detect a stream that died silently (keepalive.ts);
 * - every outbound IQ still pending when the stream goes down fails at once (outbound-iq.ts).
 * Timers and randomness are injectable (GatewayTiming).
 *
 * Tasks (task-wiring.ts): the engine starts, and recovers, before the first connection; its
 * lifecycle messages leave through send(), and what the link did not take is re-sent on every
 * 'online'; inbound message errors are bounces of those messages; stop() closes the engine
 * before the stream (the caller closes the store after that).
 */
import { xml, type Element } from '@xmpp/xml';
import { ComponentLink, type RestrictedFeature } from '../../protocol/component-link/component-link.ts';
import { JidError, bareJidOf } from '../../protocol/jid/index.ts';
import { NS } from '../../protocol/namespaces.ts';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { GatewayState } from '../config/gateway-state.ts';
import { checkDiscoverySettings, type DiscoverySettings } from '../discovery/index.ts';
import { CHAT_FEATURES, MessagingService } from '../messaging/index.ts';
import { respondToPresence, type PresenceContext } from '../presence/index.ts';
import { backoffDelay, type BackoffPolicy } from './backoff.ts';
import { describeConnectFailure, GatewayConnectError } from './connect-failure.ts';
import { iqRouterOf } from './gateway-routes.ts';
import { requesterOf, routeIq, type IqRouter } from './iq-router.ts';
import { Keepalive, type KeepalivePolicy } from './keepalive.ts';
import { OutboundIqError, OutboundIqTracker, type OutboundIqReply } from './outbound-iq.ts';
import { TaskWiring, type TaskWiringOptions } from './task-wiring.ts';

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

/** How long stop() waits for each step of a polite stream close. */
const STOP_GRACE_MS = 500;

export class GatewayComponent {
  readonly #link: ComponentLink;
  readonly #state: GatewayState;
  readonly #router: IqRouter;
  readonly #presence: PresenceContext;
  readonly #log: (line: string) => void;
  readonly #timing: GatewayTiming;
  readonly #attemptTimeoutMs: number;
  readonly #tracker: OutboundIqTracker;
  readonly #keepalive: Keepalive;
  readonly #tasks: TaskWiring;
  readonly #messaging: MessagingService;
  readonly #listeners = new Map<GatewayEvent, Set<() => void>>();
  #stopping = false;
  #online = false;
  #replies = 0;

  private constructor(state: GatewayState, options: GatewayComponentOptions, tasks: TaskWiring) {
    const { config } = state;
    this.#state = state;
    this.#tasks = tasks;
    this.#log = options.log ?? (() => undefined);
    this.#timing = options.timing ?? SYSTEM_TIMING;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? config.reconnect.attemptTimeoutMs;
    this.#router = this.#routerOf(state, tasks);
    this.#presence = { gatewayJid: config.component.domain, catalog: state.catalog };
    this.#messaging = this.#messagingOf(config);
    this.#link = this.#linkOf(config, options.backoff ?? config.reconnect);
    this.#tracker = new OutboundIqTracker({
      write: (stanza) => this.#write(serialize(stanza)),
      online: () => this.#online,
      timing: this.#timing,
    });
    this.#keepalive = this.#keepaliveOf(config, options.keepalive);
    this.#followLink();
    tasks.attach((stanza) => this.send(stanza));
    state.callOut?.attach({ iq: (request) => this.iq(request) });
    tasks.onRerouted(() => {
      this.#emit('rerouted');
    });
  }

  /** routeIq's table for this state, whose handler failures reach the operator's log. */
  #routerOf(state: GatewayState, tasks: TaskWiring): IqRouter {
    return {
      ...gatewayRouterOf(state, tasks),
      onHandlerError: (errorName) => {
        this.#log(`gateway: an IQ handler failed (${errorName}); answered internal-server-error`);
      },
    };
  }

  #messagingOf(config: GatewayConfig): MessagingService {
    return new MessagingService({
      chatEndpoints: config.messaging.chatEndpoints,
      catalog: this.#state.catalog,
      send: (stanza) => this.send(stanza),
      iq: (request) => this.iq(request),
      blockStateTimeoutMs: config.messaging.blockStateTimeoutMs,
      log: this.#log,
    });
  }

  /** The link to the server's component port, retrying a lost stream with `backoff`. */
  #linkOf(config: GatewayConfig, backoff: BackoffPolicy): ComponentLink {
    const { host, port, domain, secret } = config.component;
    return new ComponentLink({
      host,
      port,
      domain,
      secret: secret.reveal(),
      attemptTimeoutMs: this.#attemptTimeoutMs,
      reconnectDelay: (attempt) => backoffDelay(attempt, backoff, this.#timing.random),
      timing: this.#timing,
    });
  }

  /** Inactivity pings to keepalive.pingTo; an unanswered one drops the link (which reconnects). */
  #keepaliveOf(config: GatewayConfig, policy: KeepalivePolicy | undefined): Keepalive {
    const pingTo = config.keepalive.pingTo;
    return new Keepalive({
      policy: policy ?? { idleMs: config.keepalive.idleMs, timeoutMs: config.keepalive.timeoutMs },
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
        this.#link.drop();
      },
      log: this.#log,
    });
  }

  /** What the link reports: the stream's ups and downs, its stanzas, and the operator's log lines. */
  #followLink(): void {
    const link = this.#link;
    link.on('online', () => {
      this.#online = true;
      this.#keepalive.start();
      this.#tasks.online();
      this.#emit('online');
    });
    link.on('offline', () => {
      this.#keepalive.stop();
      this.#tracker.failAll(this.#stopping ? 'stopped' : 'stream-lost');
      this.#online = false;
      this.#emit('offline');
    });
    link.on('input', () => {
      this.#keepalive.activity();
    });
    link.on('stanza', (stanza) => {
      this.#onStanza(stanza);
    });
    link.on('error', (error) => {
      this.#log(`gateway: component error: ${error.message}`);
    });
    link.on('restricted', (feature: RestrictedFeature) => {
      this.#log(`gateway: restricted XML on the component stream (${feature}); closing it`);
    });
    link.on('reconnecting', (attempt, delay) => {
      this.#log(`gateway: disconnected; reconnect attempt ${String(attempt)} in ${String(delay)} ms`);
    });
    link.on('reconnect-failed', (attempt, error) => {
      const { host, port, domain } = this.#state.config.component;
      const target = { host, port, domain, attemptTimeoutMs: this.#attemptTimeoutMs };
      this.#log(
        `gateway: reconnect attempt ${String(attempt)} failed: ${describeConnectFailure(error, target)}`,
      );
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
      await gateway.#link.start();
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
    return this.#link.status;
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

  /** Every write goes through here (the link coalesces one turn's writes). */
  #write(text: string): Promise<void> {
    return this.#link.write(text);
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
    this.#keepalive.stop();
    this.#tracker.failAll('stopped');
    // A dead link would answer neither the closing tag nor the TCP close: a short grace only.
    await this.#link.stop(STOP_GRACE_MS);
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
      // Lifecycle messages back to the call-out identity: the caller engine judges them (#events).
      const callOut = this.#state.callOut;
      if (callOut?.addressedTo(stanza) === true) {
        callOut.receive(stanza);
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
