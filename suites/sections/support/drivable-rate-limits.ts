/**
 * Which documented buckets the rate-limit cases can drive past within a case's time. A case
 * sends about twice a bucket's burst at once and waits for it to refill in full, so a bucket
 * with a burst of thousands (every account's general limit, say) would flood the gateway for
 * minutes, and one that refills over minutes would outlast the case; neither proves more than a
 * small one. Such a bucket is left undriven with the reason, which names the fix: a small bucket
 * for the prober under limits.principalRateLimits.
 */
import type { DocumentedRateLimit, DocumentedRateLimits } from '../../../harness/sut/index.ts';

/** The largest documented burst a case drives past (it sends up to twice as many at once). */
export const MAX_DRIVEN_BURST = 500;
/** The longest a case waits for a documented bucket to refill in full. */
export const REFILL_WAIT_LIMIT_S = 15;

export interface DrivableRateLimits {
  readonly drivable: readonly (readonly [string, DocumentedRateLimit])[];
  /** Why each documented bucket that is not drivable is not, one line each. */
  readonly undriven: readonly string[];
}

/** Why a case cannot wait for `bucket` to refill in full, or undefined when it can. */
export function whyRefillTooSlow(bucket: DocumentedRateLimit): string | undefined {
  const refillS = (bucket.burst + 1) / bucket.perSecond;
  return refillS > REFILL_WAIT_LIMIT_S
    ? `${bucket.documentedAt} refills in full in ${refillS.toFixed(1)} s, longer than the ${String(REFILL_WAIT_LIMIT_S)} s a case waits`
    : undefined;
}

/** Why the case cannot drive past `bucket`, or undefined when it can. */
export function whyNotDrivable(bucket: DocumentedRateLimit): string | undefined {
  if (bucket.burst > MAX_DRIVEN_BURST)
    return `${bucket.documentedAt} has a burst of ${String(bucket.burst)}, more than the ${String(MAX_DRIVEN_BURST)} a case drives past`;
  return whyRefillTooSlow(bucket);
}

/** The documented buckets of `operations`, split into those a case can drive and the reasons for the rest. */
export function drivableRateLimits(
  documented: DocumentedRateLimits,
  operations: (operation: string) => boolean,
): DrivableRateLimits {
  const drivable: (readonly [string, DocumentedRateLimit])[] = [];
  const undriven: string[] = [];
  for (const [operation, bucket] of Object.entries(documented)) {
    if (!operations(operation)) continue;
    const why = whyNotDrivable(bucket);
    if (why === undefined) drivable.push([operation, bucket]);
    else undriven.push(why);
  }
  return { drivable, undriven };
}

/** The sentence a case ends with when some documented bucket was not driven. */
export function undrivenAdvice(prober: string, undriven: readonly string[]): string {
  return `${undriven.join('; ')}: document smaller buckets for ${prober} under limits.principalRateLimits (the account only the rate-limit cases use) to have them driven`;
}
