/**
 * A documented token bucket judged against what the gateway actually did (#security rate limits,
 * #errors resource-constraint): given the requests already answered — each served (one token),
 * refused for the limit (none) or refused as unauthorized (perhaps one: the spec does not say
 * whether a request refused before the limit is metered) — must the next one be served, refused,
 * or may it be either? Unlike bucketDecisions (limits.ts), which predicts a whole schedule from
 * the suite's send times, this reads the gateway's own history, so a sustained schedule stays
 * decided request after request.
 *
 * Times are the suite's: the gateway handled each request somewhere between its send and its
 * answer, so the refill between two requests lies between (later send − earlier answer) and
 * (later answer − earlier send). The bucket is full at `fullAt` (the suite waited a documented
 * full refill with nothing sent). Tokens at a request are the least, over every earlier instant
 * the count could restart from (the full start, or a past request), of burst + refill − tokens
 * taken since: bounded below with the shortest refills and the most tokens taken, above with the
 * longest refills and the fewest.
 */
import type { BucketDecision } from './limits.ts';
import type { TokenBucket } from './world.ts';

export interface MeteredRequest {
  /** Suite clock, seconds. */
  readonly sentAt: number;
  readonly answeredAt: number;
  /** What the request took from the bucket: served, refused for the limit, or not known. */
  readonly took: 'one' | 'none' | 'maybe';
}

export function meteredDecision(
  bucket: TokenBucket,
  fullAt: number,
  past: readonly MeteredRequest[],
  next: { readonly sentAt: number; readonly answeredAt: number },
): BucketDecision {
  const takenAtMost = (from: number): number =>
    past.slice(from).filter((request) => request.took !== 'none').length;
  const takenAtLeast = (from: number): number =>
    past.slice(from).filter((request) => request.took === 'one').length;
  let low = bucket.burst + Math.max(0, next.sentAt - fullAt) * bucket.perSecond - takenAtMost(0);
  let high = bucket.burst + Math.max(0, next.answeredAt - fullAt) * bucket.perSecond - takenAtLeast(0);
  past.forEach((request, index) => {
    low = Math.min(
      low,
      bucket.burst + Math.max(0, next.sentAt - request.answeredAt) * bucket.perSecond - takenAtMost(index),
    );
    high = Math.min(
      high,
      bucket.burst + Math.max(0, next.answeredAt - request.sentAt) * bucket.perSecond - takenAtLeast(index),
    );
  });
  low = Math.min(low, bucket.burst);
  if (low >= 1) return 'serve';
  if (high < 1) return 'limit';
  return 'either';
}

/**
 * When (suite clock, seconds) the documented bucket is certainly full again: a full refill,
 * (burst + 1) / perSecond, after the last answer, which the gateway sent only after handling the
 * request. A limit that refuses even the request sent then never lets one through: #security asks
 * for rate limits, and #errors keeps resource-constraint for a limit reached, so such a refusal
 * of an authorized request is a closed surface, not a stricter limit.
 */
export function fullAgainAt(bucket: TokenBucket, fullAt: number, past: readonly MeteredRequest[]): number {
  const lastAnswer = Math.max(fullAt, ...past.map((request) => request.answeredAt));
  return lastAnswer + (bucket.burst + 1) / bucket.perSecond;
}
