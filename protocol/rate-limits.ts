/**
 * The rate-limited request classes, by the IDs SUT files and gateway configs name them.
 *
 * #security requires rate limits on eight surfaces. Five of them are requests a sender makes, so
 * a per-sender bucket meters them and a conformance run can send past one: registration,
 * directory enumeration (`discovery`: disco#items, disco#info), search, schema and manifest
 * retrieval (`metadata`) and invocation. The other three (progress events, input requests,
 * result sizes) are what the gateway emits or carries, bounded by its task limits rather than
 * by a sender's bucket.
 */
export const RATE_LIMITED_REQUESTS = [
  'registration',
  'discovery',
  'search',
  'metadata',
  'invocation',
] as const;
export type RateLimitedRequest = (typeof RATE_LIMITED_REQUESTS)[number];
