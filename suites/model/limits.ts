/**
 * Rate limits and capacity as the model sees them (#security: registration, directory
 * enumeration, search, schema retrieval and invocation MUST be rate-limited; #errors: a reached
 * limit is resource-constraint "while processing an authorized request"). The numbers are the
 * deployment's, so the model needs them documented (WorldLimits); it then says, per request of a
 * sequence, whether the gateway must serve it, must refuse it, or may do either because the
 * request falls within the clock uncertainty of the bucket's edge.
 *
 * Order against authorization: a refusal of an unauthorized request stays the not-found refusal;
 * a limit never replaces it (interp-42), so the hidden and nonexistent answers stay identical.
 */
import type { RateLimitedRequest } from '../../protocol/rate-limits.ts';
import { error, pass, type Expectation } from './expectation.ts';
import type { ModelWorld, Principal, TokenBucket } from './world.ts';

export type BucketDecision = 'serve' | 'limit' | 'either';

/** The documented bucket metering this principal's requests of this class, if any. */
export function bucketFor(
  world: ModelWorld,
  principal: Principal,
  request: RateLimitedRequest,
): TokenBucket | undefined {
  return world.limits.principalRateLimits.get(principal.bare)?.[request] ?? world.limits.rateLimits[request];
}

/**
 * Decisions for requests arriving at `arrivals` (seconds, ascending, the suite's clock) against a
 * full bucket. `skewSeconds` bounds how far the gateway's view of each gap may differ from the
 * suite's (send and receive jitter): a gap counts as short as gap − 2·skew for "must serve" and as
 * long as gap + 2·skew for "must refuse". Tokens are tracked as an interval [low, high]: a request
 * that must be served takes one from both; one that may go either way leaves the high end and
 * drops the low end to what a served request would leave. Refused requests take no token.
 */
export function bucketDecisions(
  bucket: TokenBucket,
  arrivals: readonly number[],
  skewSeconds: number,
): BucketDecision[] {
  let low = bucket.burst;
  let high = bucket.burst;
  let previous = arrivals[0] ?? 0;
  return arrivals.map((time) => {
    const gap = time - previous;
    previous = time;
    low = Math.min(bucket.burst, low + Math.max(0, gap - 2 * skewSeconds) * bucket.perSecond);
    high = Math.min(bucket.burst, high + (gap + 2 * skewSeconds) * bucket.perSecond);
    if (low >= 1) {
      low -= 1;
      high -= 1;
      return 'serve';
    }
    if (high < 1) return 'limit';
    low = 0;
    return 'either';
  });
}

/**
 * The expectation of a request under a bucket decision: an authorized request that must be
 * limited gets only resource-constraint; one that may be, gets it as a further alternative; a
 * refusal of an unauthorized request is left as it is (interp-42).
 */
export function underLimit(expected: Expectation, decision: BucketDecision): Expectation {
  if (expected.unauthorized || decision === 'serve') return expected;
  const limited = pass(error('resource-constraint'), 'the documented rate limit is reached');
  const alternatives = decision === 'limit' ? [limited] : [...expected.alternatives, limited];
  return {
    ...expected,
    requirements: [...expected.requirements, 'security.rate-limits'],
    interpretations: [...expected.interpretations, 'interp-42'],
    alternatives,
  };
}

/** The most non-terminal tasks this caller may hold, when documented. */
export function taskCapacityOf(world: ModelWorld, principal: Principal): number | undefined {
  return world.limits.taskCapacityOf.get(principal.bare) ?? world.limits.taskCapacity;
}
