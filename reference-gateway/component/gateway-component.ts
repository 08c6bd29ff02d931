/**
 * The reference gateway on the wire: a XEP-0114 component (#component-deployment) that hands
 * every inbound IQ to routeIq and writes its one reply with the strict serializer.
 *
 * Exactly one reply per IQ: @xmpp/component wires a middleware chain whose IQ callee answers
 * every IQ nobody registered for with service-unavailable. That chain is detached here (its
 * only 'element' listener is removed at construction), so the library never answers anything;
 * the gateway reads raw 'stanza' events and replies itself, once.
 *
 * Reconnection: the library's fixed-delay reconnect is stopped; this module reconnects with
 * capped exponential backoff and jitter (backoff.ts), with injectable timers and randomness.
 */
import componentPackage, { type XmppComponent } from '@xmpp/component';
import type { Element } from '@xmpp/xml';
import { parseXml, serialize } from '../../protocol/stanza/index.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { GatewayState } from '../config/gateway-state.ts';
import { checkDiscoverySettings, type DiscoverySettings } from '../discovery/index.ts';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from './backoff.ts';
import { routeIq, type IqRouterContext } from './iq-router.ts';

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
  readonly backoff?: BackoffPolicy;
  readonly timing?: GatewayTiming;
}

export type GatewayEvent = 'online' | 'offline' | 'reply';

/** What the discovery responders are told about this deployment, from the config. */
export function discoverySettingsOf(config: GatewayConfig): DiscoverySettings {
  return checkDiscoverySettings({
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

interface WritableComponent {
  write(text: string): Promise<void>;
  connect(service: string): Promise<void>;
  open(options: { domain: string }): Promise<unknown>;
}

export class GatewayComponent {
  readonly #connection: XmppComponent;
  readonly #state: GatewayState;
  readonly #context: IqRouterContext;
  readonly #log: (line: string) => void;
  readonly #backoff: BackoffPolicy;
  readonly #timing: GatewayTiming;
  readonly #listeners = new Map<GatewayEvent, Set<() => void>>();
  #stopping = false;
  #attempt = 0;
  #timer: unknown;
  #replies = 0;

  private constructor(state: GatewayState, options: GatewayComponentOptions) {
    this.#state = state;
    this.#log = options.log ?? (() => undefined);
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#timing = options.timing ?? SYSTEM_TIMING;
    const { config } = state;
    this.#context = {
      gatewayJid: config.component.domain,
      catalog: state.catalog,
      settings: discoverySettingsOf(config),
      provisioning: state.provisioning,
      selfRegistration: config.selfRegistration,
    };
    this.#connection = componentPackage.component({
      service: `xmpp://${config.component.host}:${String(config.component.port)}`,
      domain: config.component.domain,
      password: config.component.secret.reveal(),
    });
    this.#connection.reconnect.stop();
    // Detach the library's middleware chain (and with it the IQ callee): at construction its
    // listener is the only 'element' listener, so nothing but this module answers stanzas.
    for (const listener of this.#connection.listeners('element')) {
      this.#connection.removeListener('element', listener as (...args: unknown[]) => void);
    }
    this.#connection.on('stanza', (stanza: Element) => {
      this.#onStanza(stanza);
    });
    this.#connection.on('error', (error: unknown) => {
      this.#log(`gateway: component error: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.#connection.on('online', () => {
      this.#attempt = 0;
      this.#emit('online');
    });
    this.#connection.on('disconnect', () => {
      this.#emit('offline');
      if (!this.#stopping) this.#scheduleReconnect();
    });
  }

  /** Connects and resolves once the component handshake succeeded. */
  static async start(state: GatewayState, options: GatewayComponentOptions = {}): Promise<GatewayComponent> {
    const gateway = new GatewayComponent(state, options);
    await gateway.#connection.start();
    return gateway;
  }

  get status(): string {
    return this.#connection.status;
  }

  /** Replies written so far (for tests: one request, one reply). */
  get replies(): number {
    return this.#replies;
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

  /** Closes the stream; no reconnect afterwards. The state stays open (the caller owns it). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) this.#timing.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#connection.stop().catch(() => undefined);
  }

  #emit(event: GatewayEvent): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) listener();
  }

  #scheduleReconnect(): void {
    if (this.#timer !== undefined || this.#stopping) return;
    this.#attempt += 1;
    const delay = backoffDelay(this.#attempt, this.#backoff, this.#timing.random);
    this.#log(`gateway: disconnected; reconnect attempt ${String(this.#attempt)} in ${String(delay)} ms`);
    this.#timer = this.#timing.setTimeout(() => {
      this.#timer = undefined;
      void this.#reconnect();
    }, delay);
  }

  async #reconnect(): Promise<void> {
    if (this.#stopping || this.#connection.status !== 'disconnect') return;
    const { config } = this.#state;
    const raw = this.#connection as unknown as WritableComponent;
    try {
      await raw.connect(`xmpp://${config.component.host}:${String(config.component.port)}`);
      await raw.open({ domain: config.component.domain });
    } catch {
      // The failed socket reports 'disconnect' (which schedules); schedule here for failures it does not.
      if (this.status === 'disconnect') this.#scheduleReconnect();
    }
  }

  #onStanza(stanza: Element): void {
    if (stanza.name !== 'iq') return;
    void this.#answer(stanza).catch((error: unknown) => {
      this.#log(`gateway: IQ handling failed: ${error instanceof Error ? error.name : 'error'}`);
    });
  }

  async #answer(received: Element): Promise<void> {
    // Detached from the stream and re-read by the strict parser: what the codecs expect.
    const stanza = parseXml(serialize(received));
    const reply = await routeIq(stanza, this.#context);
    if (reply === undefined) return;
    this.#replies += 1;
    await (this.#connection as unknown as WritableComponent).write(serialize(reply));
    this.#emit('reply');
  }
}
