/**
 * Reconnect delays (#component-deployment): capped exponential backoff with equal jitter, so a
 * fleet of gateways that lost one server does not reconnect in lockstep.
 */
export interface BackoffPolicy {
  /** Delay ceiling of the first attempt, in milliseconds. */
  readonly initialMs: number;
  /** Delay ceiling of any attempt. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 500, maxMs: 30_000 });

/**
 * The delay before reconnect attempt `attempt` (1-based): uniformly in [ceiling/2, ceiling]
 * where ceiling = min(maxMs, initialMs · 2^(attempt-1)). `random` returns a number in [0, 1).
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
