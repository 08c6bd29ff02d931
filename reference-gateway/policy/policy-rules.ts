/**
 * The data a visibility or invocation decision is made from (#security, #rules, #privacy).
 * Plain records, so the store can persist them and the config and fixture world can declare
 * them; `access-policy.ts` turns them into decisions.
 *
 * Two actions, granted independently (#rules: "visibility does not imply invocation
 * permission, invocation permission does not imply visibility"):
 * - `see`: one decision for search, directory items, endpoint info, manifest, tool info and
 *   schemas;
 * - `invoke`: admission of an invocation, per endpoint and optionally per tool.
 */

export type PolicyAction = 'see' | 'invoke';

/** Who a grant is for: every sender of a domain, or one principal (a normalized bare JID). */
export type GrantSubjectKind = 'domain' | 'principal';

export interface Grant {
  readonly subjectKind: GrantSubjectKind;
  /** A normalized domain, or a normalized bare JID (#invocation: the principal is the bare JID). */
  readonly subject: string;
  readonly action: PolicyAction;
  /** Normalized endpoint bare JID; null means every endpoint that is not explicit-only. */
  readonly endpoint: string | null;
  /** Exact tool name (`invoke` only); null means every tool of the endpoint. */
  readonly tool: string | null;
}

/**
 * Per-endpoint overrides. An explicit-only action is granted only by grants that name the
 * endpoint; local defaults and `null`-endpoint grants do not reach it. That is how an endpoint
 * is hidden from everyone but a few principals, which the suite needs to compare hidden with
 * nonexistent objects (#errors, interp-19).
 */
export interface EndpointPolicy {
  readonly endpoint: string;
  /** Visibility is explicit-only. */
  readonly hidden: boolean;
  /** Invocation is explicit-only. */
  readonly restrictedInvocation: boolean;
}

/** What senders on the server's own C2S domains get without any grant. */
export interface LocalDefaults {
  readonly see: boolean;
  readonly invoke: boolean;
}

export interface PolicyRules {
  /**
   * The XMPP server's C2S domains, normalized. Every other domain is remote, and remote
   * senders get nothing without a grant (#security: "Federated discovery, registration, and
   * invocation MUST be denied by default").
   */
  readonly localDomains: readonly string[];
  readonly localDefaults: LocalDefaults;
  readonly grants: readonly Grant[];
  /** Several entries for one endpoint combine with OR: any source may hide or restrict it. */
  readonly endpointPolicies: readonly EndpointPolicy[];
}

/** Deny everything: the policy before anything is configured. */
export const NO_ACCESS: PolicyRules = Object.freeze({
  localDomains: [],
  localDefaults: Object.freeze({ see: false, invoke: false }),
  grants: [],
  endpointPolicies: [],
});
