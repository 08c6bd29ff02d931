/**
 * The gateway's documented limits (#json-encoding: "Gateways MUST impose documented limits";
 * #rules: bound manifest size, schema size, directory result count; #security: rate limits).
 * Exceeding one answers <resource-constraint/>, always after authorization (interp-42).
 * docs/gateway-config.md documents each one; the suite reads them from the SUT config and
 * probes just past them.
 *
 * json-encoding.documented-limits, rules.resource-bounds, security.rate-limits: the defaults
 * below, enforced where each is cited.
 */
import { RATE_LIMITED_REQUESTS } from '../../protocol/rate-limits.ts';
import type { TokenBucketRule } from '../policy/rate-limiter.ts';
import type { ManifestLimits } from '../registration/manifest-intake.ts';

/**
 * The operations rate-limited per principal: the request classes #security lists, plus
 * `administration`, the Administrative Provisioning IQs other than <register/> (activate …
 * remove-endpoint), metered in a bucket of their own so that sending them, by an administrator
 * or anyone probing them, is bounded like every other request.
 */
export const RATE_LIMITED_OPERATIONS = [...RATE_LIMITED_REQUESTS, 'administration'] as const;
export type RateLimitedOperation = (typeof RATE_LIMITED_OPERATIONS)[number];

export interface GatewayLimits extends ManifestLimits {
  /** Most items one RSM page returns, whatever <max/> asks for (#list-agents, #list-tools, #search). */
  readonly rsmPageMax: number;
  readonly rateLimits: Readonly<Record<RateLimitedOperation, TokenBucketRule>>;
  /**
   * Buckets that replace `rateLimits` for one principal (bare JID) and operation: a tenant's own
   * quota, or a conformance account kept at a low documented rate that the suite can exceed
   * quickly while everyone else keeps the generous ones.
   */
  readonly principalRateLimits: Readonly<
    Record<string, Readonly<Partial<Record<RateLimitedOperation, TokenBucketRule>>>>
  >;
}

/**
 * Why these numbers:
 * - manifestMaxBytes 1 MiB, jsonMaxDepth 64, the string/member/item counts: the strict JSON
 *   parser's own defaults (protocol/json/json-limits.ts), which bound parse time and memory.
 *   Servers usually cap stanzas lower (Prosody: 256 KiB from C2S), so the server's cap is what
 *   a registrant meets first; ours still bounds what a component link can deliver.
 * - schemaMaxBytes 256 KiB: a generous single tool schema; it also caps what one
 *   <schema-request/> result carries.
 * - toolsPerManifest 4096: the protocol maximum of the normative schema (#manifest).
 * - rsmPageMax 100: a page a client renders at once; `count` still reports the full set.
 * - Rate limits: bursts well above what the conformance suite sends in a test, refilling fast
 *   enough for interactive use, low enough to slow enumeration of the directory and of
 *   hidden JIDs (#privacy). Registration and administration are rarer and cost more.
 */
export const DEFAULT_LIMITS: GatewayLimits = Object.freeze({
  manifestMaxBytes: 1_048_576,
  schemaMaxBytes: 262_144,
  jsonMaxDepth: 64,
  jsonMaxStringLength: 65_536,
  jsonMaxObjectMembers: 16_384,
  jsonMaxArrayItems: 65_536,
  toolsPerManifest: 4096,
  rsmPageMax: 100,
  rateLimits: Object.freeze({
    registration: { burst: 20, perSecond: 2 },
    administration: { burst: 50, perSecond: 5 },
    discovery: { burst: 200, perSecond: 50 },
    search: { burst: 100, perSecond: 20 },
    metadata: { burst: 200, perSecond: 50 },
    invocation: { burst: 100, perSecond: 20 },
  }),
  principalRateLimits: Object.freeze({}),
});
