/**
 * The order of the authorization and rate-limit checks (#json-encoding, #errors, #privacy;
 * interp-42): "An unauthorized requester must never get resource-constraint."
 *
 * The token is taken whether or not the request is authorized, so probing hidden or
 * nonexistent objects drains the same bucket as real requests (#privacy: "equivalent rate
 * limits SHOULD apply"), but only an authorized request can learn that it was limited. An
 * unauthorized one gets its operation's usual unauthorized answer (item-not-found for
 * discovery and metadata, forbidden for administration), whatever its bucket holds.
 */
import type { RateLimiter } from './rate-limiter.ts';

export type Admission =
  /** Go on with the operation. */
  | { readonly kind: 'proceed' }
  /** Answer as the operation answers an unauthorized request. */
  | { readonly kind: 'unauthorized' }
  /** Answer <resource-constraint/> (type wait). */
  | { readonly kind: 'rate-limited'; readonly retryAfterMs: number };

export function admit<Operation extends string>(
  limiter: RateLimiter<Operation>,
  operation: Operation,
  principal: string,
  authorized: boolean,
): Admission {
  const decision = limiter.take(operation, principal);
  if (!authorized) return { kind: 'unauthorized' };
  if (!decision.allowed) return { kind: 'rate-limited', retryAfterMs: decision.retryAfterMs };
  return { kind: 'proceed' };
}
