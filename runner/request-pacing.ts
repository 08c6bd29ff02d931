/**
 * Pacing a run to a gateway's documented rate limit. A gateway may answer resource-constraint to
 * a sender that asks too fast (#security); a conformance run sends bursts no real client would.
 * When the SUT file documents `limits.requestsPerSecond` (and `requestBurst`), or `--rate N` is
 * given, every stanza the run's callers send to the gateway's domain waits for its turn in one
 * token bucket (GCRA: `burst` at once, then `perSecond`), shared by all callers, so no sender
 * ever exceeds the rate (a documented one is kept with a margin, see paceOf). The wait comes
 * before an IQ's deadline starts.
 */
import type { BeforeSend } from '../harness/driver/index.ts';
import type { SutLimits } from '../harness/sut/sut-config.ts';

export interface Pace {
  readonly perSecond: number;
  readonly burst: number;
  /** Where the numbers come from, for the run's output. */
  readonly source: string;
}

/**
 * The share of a documented rate the run keeps to, and of its burst: sending exactly at a
 * gateway's limit leaves no slack for what the run does not pace (the readiness probe) and for
 * network jitter that brings two requests closer together; below it, the gateway's bucket keeps
 * spare tokens.
 */
const RATE_MARGIN = 0.9;
const BURST_SHARE = 0.5;

/**
 * The run's pace: --rate (as given, no bursts) wins over the SUT file's documented limits (kept
 * below them, see RATE_MARGIN); undefined when neither gives one.
 */
export function paceOf(limits: SutLimits, rate: number | undefined): Pace | undefined {
  if (rate !== undefined) return { perSecond: rate, burst: 1, source: '--rate' };
  const documented = limits.requestsPerSecond;
  if (documented === undefined) return undefined;
  const burst = limits.requestBurst ?? Math.max(1, Math.floor(documented));
  return {
    perSecond: Math.round(documented * RATE_MARGIN * 1_000) / 1_000,
    burst: Math.max(1, Math.floor(burst * BURST_SHARE)),
    source: `90 % of the SUT file's limits.requestsPerSecond ${String(documented)}, half its burst ${String(burst)}`,
  };
}

/** One line for the run's output. */
export function paceLine(pace: Pace): string {
  return (
    `pacing: at most ${String(pace.perSecond)} request(s) per second to the gateway after a burst of ` +
    `${String(pace.burst)}, from ${pace.source}`
  );
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
};

/** GCRA: a request may go at `tat - tolerance`; each one moves `tat` on by one interval. */
export class TokenBucket {
  readonly #intervalMs: number;
  readonly #toleranceMs: number;
  readonly #clock: Clock;
  /** Theoretical arrival time of the next request. */
  #tat = Number.NEGATIVE_INFINITY;

  constructor(pace: Pick<Pace, 'perSecond' | 'burst'>, clock: Clock = realClock) {
    this.#intervalMs = 1_000 / pace.perSecond;
    this.#toleranceMs = (pace.burst - 1) * this.#intervalMs;
    this.#clock = clock;
  }

  /** Milliseconds the next request must wait; reserves its slot (so concurrent takes queue up). */
  reserve(): number {
    const now = this.#clock.now();
    const sendAt = Math.max(now, this.#tat - this.#toleranceMs);
    this.#tat = Math.max(this.#tat, sendAt) + this.#intervalMs;
    return sendAt - now;
  }

  async take(): Promise<void> {
    const wait = this.reserve();
    if (wait > 0) await this.#clock.sleep(wait);
  }
}

/** The domain of a JID (no localpart, no resource). */
function domainOf(jid: string): string {
  const bare = jid.split('/')[0] ?? '';
  return (bare.includes('@') ? bare.slice(bare.indexOf('@') + 1) : bare).toLowerCase();
}

/**
 * What the driver awaits before each stanza: stanzas to the gateway's domain (the gateway and its
 * endpoints) and raw text (its addressee unknown) take a slot; others go at once.
 */
export function gatewayPacer(bucket: TokenBucket, gatewayDomain: string): BeforeSend {
  const gateway = gatewayDomain.toLowerCase();
  return (to) => (to === undefined || domainOf(to) === gateway ? bucket.take() : Promise.resolve());
}
