/**
 * The rate limits a SUT file documents for one sender (#security): its own (principalRateLimits)
 * where the file names it, every sender's (rateLimits) otherwise. Each rule says where it was
 * documented, so that a verdict quoting it points at the line to check.
 */
import { bareJidEquals, bareJidOf } from '../../protocol/jid/index.ts';
import { RATE_LIMITED_REQUESTS, type RateLimitedRequest } from '../../protocol/rate-limits.ts';
import type { RateLimitRule, SutLimits } from './sut-config.ts';

export interface DocumentedRateLimit extends RateLimitRule {
  /** The SUT-file member it comes from, e.g. `limits.principalRateLimits["prober@server.example"].discovery`. */
  readonly documentedAt: string;
}

export type DocumentedRateLimits = Readonly<Partial<Record<RateLimitedRequest, DocumentedRateLimit>>>;

/** The buckets metering `sender`'s requests (its bare or full JID), by operation. */
export function documentedRateLimitsOf(limits: SutLimits | undefined, sender: string): DocumentedRateLimits {
  const bare = bareJidOf(sender);
  const own = Object.entries(limits?.principalRateLimits ?? {}).find(([jid]) => bareJidEquals(jid, bare));
  const rules: Partial<Record<RateLimitedRequest, DocumentedRateLimit>> = {};
  for (const request of RATE_LIMITED_REQUESTS) {
    const specific = own?.[1][request];
    const general = limits?.rateLimits?.[request];
    if (specific !== undefined && own !== undefined)
      rules[request] = { ...specific, documentedAt: `limits.principalRateLimits["${own[0]}"].${request}` };
    else if (general !== undefined)
      rules[request] = { ...general, documentedAt: `limits.rateLimits.${request}` };
  }
  return rules;
}
