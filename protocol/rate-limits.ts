/**
 * The rate-limited request classes, by the IDs SUT files and gateway configs name them.
 *
 * #security: "Gateways MUST rate-limit registration, directory enumeration, search, schema
 * retrieval, invocation, progress events, input requests, and result sizes." The first five
 * are requests a sender makes, so a per-sender bucket meters them and a conformance run can
 * send past one: `discovery` is directory enumeration (disco#items, disco#info) and `metadata`
 * is schema and manifest retrieval. Progress events, input requests and result sizes are what
 * the gateway emits or carries, bounded by its task limits rather than by a sender's bucket.
 */
export const RATE_LIMITED_REQUESTS = [
  'registration',
  'discovery',
  'search',
  'metadata',
  'invocation',
] as const;
export type RateLimitedRequest = (typeof RATE_LIMITED_REQUESTS)[number];
