/**
 * Inactivity pings on the component stream (#component-deployment: "SHOULD send XEP-0199 pings
 * after a period of stream inactivity"). A TCP connection can die without either end hearing
 * about it (a NAT drops its mapping, a peer host vanishes, a firewall starts discarding), and a
 * component that only answers never writes, so it would wait forever for requests that cannot
 * arrive.
 *
 * While the stream is up: after `idleMs` without inbound bytes, one ping goes out; any reply
 * (a result, or an error such as service-unavailable from a server without XEP-0199: both
 * crossed the stream) re-arms the idle timer. When the reply does not come within `timeoutMs`
 * and nothing else arrived meanwhile either, the stream is declared dead and `onDead` tears it
 * down, which hands over to the reconnect backoff. Inbound traffic during the wait also proves
 * the stream alive: a slow reply on a busy stream does not cost the connection.
 */
import type { OutboundIqTiming } from './outbound-iq.ts';

export interface KeepalivePolicy {
  /** Quiet time on the inbound stream before a ping. */
  readonly idleMs: number;
  /** How long a ping may stay unanswered. */
  readonly timeoutMs: number;
}

export const DEFAULT_KEEPALIVE: KeepalivePolicy = Object.freeze({ idleMs: 60_000, timeoutMs: 10_000 });

export interface KeepaliveOptions {
  readonly policy: KeepalivePolicy;
  readonly timing: OutboundIqTiming;
  /**
   * Sends one ping: true once any reply came, false when none came within `timeoutMs`. A ping
   * that could not be judged (it was never sent) should say true: only silence is evidence.
   */
  readonly ping: (timeoutMs: number) => Promise<boolean>;
  /** The stream is dead: tear it down (the reconnect logic takes over). */
  readonly onDead: () => void;
  readonly log?: (line: string) => void;
}

export class Keepalive {
  readonly #options: KeepaliveOptions;
  #running = false;
  #idleTimer: unknown;
  /** Bumped by every start/stop, so a ping outcome from an earlier stream is ignored. */
  #generation = 0;
  #awaitingReply = false;
  #trafficDuringPing = false;
  #pings = 0;

  constructor(options: KeepaliveOptions) {
    const { idleMs, timeoutMs } = options.policy;
    if (!(idleMs > 0) || !(timeoutMs > 0))
      throw new RangeError('keepalive idleMs and timeoutMs must be positive');
    this.#options = options;
  }

  /** Pings sent so far (for tests and logs). */
  get pings(): number {
    return this.#pings;
  }

  /** The stream is up: start watching. */
  start(): void {
    this.stop();
    this.#running = true;
    this.#arm();
  }

  /** The stream is down or the gateway stops: no more pings. */
  stop(): void {
    this.#running = false;
    this.#generation += 1;
    this.#awaitingReply = false;
    this.#clearIdle();
  }

  /** Bytes arrived on the stream. */
  activity(): void {
    if (!this.#running) return;
    if (this.#awaitingReply) {
      this.#trafficDuringPing = true;
      return;
    }
    this.#arm();
  }

  #arm(): void {
    this.#clearIdle();
    this.#idleTimer = this.#options.timing.setTimeout(() => {
      this.#idleTimer = undefined;
      this.#sendPing();
    }, this.#options.policy.idleMs);
  }

  #clearIdle(): void {
    if (this.#idleTimer !== undefined) this.#options.timing.clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #sendPing(): void {
    if (!this.#running) return;
    const generation = this.#generation;
    this.#awaitingReply = true;
    this.#trafficDuringPing = false;
    this.#pings += 1;
    this.#options.ping(this.#options.policy.timeoutMs).then(
      (replied) => {
        this.#pingEnded(generation, replied);
      },
      () => {
        // A failing ping function is a bug, not evidence about the stream.
        this.#pingEnded(generation, true);
      },
    );
  }

  #pingEnded(generation: number, replied: boolean): void {
    if (generation !== this.#generation || !this.#running) return;
    this.#awaitingReply = false;
    if (replied || this.#trafficDuringPing) {
      this.#arm();
      return;
    }
    this.#options.log?.(
      `gateway: no reply to a ping within ${String(this.#options.policy.timeoutMs)} ms; the stream is dead`,
    );
    this.stop();
    this.#options.onDead();
  }
}
