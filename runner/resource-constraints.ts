/**
 * A gateway may refuse a request with resource-constraint when a sender exceeds its rate limits
 * (#security), and a conformance run sends faster than any real client. A case that failed because
 * the gateway answered resource-constraint says nothing about the requirement it tests: it is not
 * counted as a conformance failure but left undecided (cantTell), with a reason that says how to
 * pace the run. Not so for the rate-limit cases themselves (those citing security.rate-limits),
 * where resource-constraint is the subject.
 */
import type { PreflightFinding } from '../suites/framework/preflight.ts';
import type { CaseResult } from '../suites/framework/run-case.ts';
import type { Pace } from './request-pacing.ts';

const CONDITION = 'resource-constraint';

/** Requirements whose cases judge the rate limits themselves. */
const RATE_LIMIT_REQUIREMENTS: ReadonlySet<string> = new Set(['security.rate-limits']);

/** Whether the gateway (`gatewayDomain` or an endpoint on it) sent a resource-constraint error during the attempt. */
function gatewaySentResourceConstraint(result: CaseResult, gatewayDomain: string): boolean {
  const attempt = result.attempts.at(-1);
  if (attempt === undefined) return false;
  const domain = gatewayDomain.toLowerCase();
  return attempt.transcript.entries.some((entry) => {
    if (entry.direction !== 'received' || entry.xml === undefined) return false;
    if (!entry.xml.includes(`<${CONDITION}`)) return false;
    const from = /\sfrom=(['"])([^'"]*)\1/.exec(entry.xml)?.[2]?.toLowerCase() ?? '';
    const bare = from.split('/')[0] ?? '';
    return bare.slice(bare.indexOf('@') + 1) === domain;
  });
}

/**
 * Violations judged on the content of a limit rejection (#json-encoding: bounded, and reflecting
 * nothing of the rejected JSON), on where the documented bound lies (a document at it refused
 * while the one below it is taken) or on a limit answered before authorization (the same
 * sender's request within the limits refused otherwise): their cases rule a rate limit out, and
 * their resource-constraint is the answer under test, not a rate limit standing in for one.
 */
const LIMIT_REJECTION_CONTENT: ReadonlySet<string> = new Set([
  'json-encoding.no-reflection',
  'json-encoding.documented-limits',
  'json-encoding.authorize-before-limits',
]);

/** Whether the attempt's failure is about a resource-constraint answer. */
function failedOnResourceConstraint(result: CaseResult): boolean {
  const attempt = result.attempts.at(-1);
  if (LIMIT_REJECTION_CONTENT.has(attempt?.violation?.requirement ?? '')) return false;
  const text = `${attempt?.violation?.received ?? ''}\n${attempt?.reason ?? result.reason ?? ''}`;
  return text.includes(CONDITION);
}

export function isRateLimitCase(result: CaseResult): boolean {
  return result.case.requirements.some((requirement) => RATE_LIMIT_REQUIREMENTS.has(requirement));
}

/** The reason a recognised case is given. */
export function resourceConstraintReason(pace: Pace | undefined): string {
  const how =
    pace === undefined
      ? 'document the rate in the SUT file (limits.requestsPerSecond) or pace the run with --rate N'
      : `the run was paced at ${String(pace.perSecond)}/s (${pace.source}): lower it with --rate N`;
  return `the gateway answered ${CONDITION} (a rate limit, #security): not judged; ${how}`;
}

/**
 * The results with every failure caused by a resource-constraint answer turned into cantTell;
 * `recognised` lists those.
 */
export function recogniseResourceConstraints(
  results: readonly CaseResult[],
  gatewayDomain: string,
  pace: Pace | undefined,
): { readonly results: CaseResult[]; readonly recognised: CaseResult[] } {
  const recognised: CaseResult[] = [];
  const reason = resourceConstraintReason(pace);
  const updated = results.map((result) => {
    if (
      result.outcome !== 'failed' ||
      isRateLimitCase(result) ||
      !failedOnResourceConstraint(result) ||
      !gatewaySentResourceConstraint(result, gatewayDomain)
    ) {
      return result;
    }
    const changed: CaseResult = { ...result, outcome: 'cantTell', reason };
    recognised.push(changed);
    return changed;
  });
  return { results: updated, recognised };
}

/**
 * The preflight asks every endpoint for its features before any case: a gateway that refuses some
 * of those requests with resource-constraint has not shown a feature missing. Such a finding does
 * not fail the profile (kind 'untestable': its cases cannot tell), and says why.
 */
export function recognisePreflightConstraints(
  findings: readonly PreflightFinding[],
  pace: Pace | undefined,
): PreflightFinding[] {
  const reason = resourceConstraintReason(pace);
  return findings.map((finding) =>
    finding.kind === 'missing' && finding.message.includes(CONDITION)
      ? { ...finding, kind: 'untestable', message: `${finding.message}; ${reason}` }
      : finding,
  );
}
