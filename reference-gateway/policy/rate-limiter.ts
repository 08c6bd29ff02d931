/**
 * Per-principal token buckets (#security: "Gateways MUST rate-limit registration, directory
 * enumeration, search, schema retrieval, invocation, …"). Each (operation, principal) pair has
 * its own bucket of `burst` tokens that refills at `perSecond`. The clock is injected: `now`
 * returns milliseconds and is the only time source.
 *
 * Memory is bounded: remote senders can invent any number of bare JIDs. When the table is
 * full, buckets that have refilled completely are dropped first (forgetting them changes
 * nothing); if that is not enough, the least recently used go, down to 90% of the bound. Evicting a partly drained bucket
 * gives its principal a fresh burst, the price of a bounded table.
 */

export interface TokenBucketRule {
  /** Tokens a bucket holds when full: the largest burst allowed after a quiet period. */
  readonly burst: number;
  /** Tokens added per second, up to `burst`. */
  readonly perSecond: number;
}

export type RateDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export const DEFAULT_MAX_TRACKED_BUCKETS = 100_000;

/** Rules for one principal (a bare JID) that replace the operation's rule for it alone. */
export type PrincipalRules<Operation extends string> = ReadonlyMap<
  string,
  Readonly<Partial<Record<Operation, TokenBucketRule>>>
>;

export class RateLimiter<Operation extends string> {
  readonly #rules: Readonly<Record<Operation, TokenBucketRule>>;
  readonly #principalRules: PrincipalRules<Operation>;
  readonly #now: () => number;
  readonly #maxBuckets: number;
  /** Insertion order is recency order: a bucket is re-inserted whenever it is used. */
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    rules: Readonly<Record<Operation, TokenBucketRule>>,
    now: () => number,
    maxBuckets = DEFAULT_MAX_TRACKED_BUCKETS,
    principalRules: PrincipalRules<Operation> = new Map(),
  ) {
    const all = [
      ...Object.entries<TokenBucketRule>(rules),
      ...[...principalRules].flatMap(([principal, own]) =>
        Object.entries<TokenBucketRule | undefined>(own).map(
          ([operation, rule]) => [`${operation} of ${principal}`, rule] as const,
        ),
      ),
    ];
    for (const [operation, rule] of all) {
      if (rule === undefined) continue;
      if (!(rule.burst >= 1) || !(rule.perSecond > 0) || !Number.isFinite(rule.perSecond)) {
        throw new RangeError(`rate limit ${operation}: burst must be >= 1 and perSecond a positive number`);
      }
    }
    this.#principalRules = principalRules;
    if (!(maxBuckets >= 1)) throw new RangeError('maxBuckets must be at least 1');
    this.#rules = rules;
    this.#now = now;
    this.#maxBuckets = maxBuckets;
  }

  /** Takes one token from the principal's bucket for the operation, if there is one. */
  take(operation: Operation, principal: string): RateDecision {
    const rule = this.#ruleOf(operation, principal);
    const now = this.#now();
    const key = `${operation}\u0000${principal}`;
    const bucket = this.#refilled(this.#buckets.get(key), rule, now);
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.#evictIfFull(now);
      return { allowed: true };
    }
    this.#evictIfFull(now);
    return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / rule.perSecond) * 1000) };
  }

  /** How many buckets are tracked (for tests and metrics). */
  get trackedBuckets(): number {
    return this.#buckets.size;
  }

  #ruleOf(operation: Operation, principal: string): TokenBucketRule {
    return this.#principalRules.get(principal)?.[operation] ?? this.#rules[operation];
  }

  #refilled(bucket: Bucket | undefined, rule: TokenBucketRule, now: number): Bucket {
    if (bucket === undefined) return { tokens: rule.burst, updatedAt: now };
    // A clock that steps backwards refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(rule.burst, bucket.tokens + (elapsedMs / 1000) * rule.perSecond);
    bucket.updatedAt = Math.max(bucket.updatedAt, now);
    return bucket;
  }

  #evictIfFull(now: number): void {
    if (this.#buckets.size <= this.#maxBuckets) return;
    for (const [key, bucket] of this.#buckets) {
      const separator = key.indexOf('\u0000');
      const rule = this.#ruleOf(key.slice(0, separator) as Operation, key.slice(separator + 1));
      if (this.#refilled(bucket, rule, now).tokens >= rule.burst) this.#buckets.delete(key);
    }
    // Still full: drop the least recently used (the first in insertion order), down to 90% so
    // that the next inserts do not each pay for another scan.
    const target = Math.floor(this.#maxBuckets * 0.9);
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= target) break;
      this.#buckets.delete(key);
    }
  }
}
