/**
 * Visibility and invocation decisions (#security, #rules, #privacy; interp-26).
 *
 * - Deny by default: a remote sender is allowed only what a grant names (#security).
 * - Senders on a local C2S domain get the configured local defaults first.
 * - `see` and `invoke` are decided independently, from separate grants (#rules).
 * - A hidden endpoint is visible only through grants that name it; a restricted one is
 *   invocable only through grants that name it (see EndpointPolicy).
 *
 * Both decisions are pure functions of the compiled rules and their arguments. They evaluate
 * every applicable rule without returning early, so a hidden endpoint and one that does not
 * exist take the same path (#privacy: similar timing for hidden and nonexistent endpoints).
 * Arguments must already be normalized (endpoint and principal bare JIDs, domain): the
 * decisions compare strings exactly.
 */
import type { EndpointPolicy, Grant, PolicyRules } from './policy-rules.ts';

/** The parts of a requester a decision looks at; the catalog's Requester is one. */
export interface Principal {
  /** Normalized bare JID of the authenticated sender (#invocation: the authorization principal). */
  readonly bareJid: string;
  /** Normalized domain of that JID. */
  readonly domain: string;
}

export interface AccessPolicy {
  /** The one visibility decision for search, items, endpoint info, manifest, tool info and schemas. */
  canSee(requester: Principal, endpointJid: string): boolean;
  /** Invocation permission, independent of visibility (#rules, interp-26). */
  canInvoke(requester: Principal, endpointJid: string, toolName: string): boolean;
  /** Whether the requester is on one of the server's own C2S domains. */
  isLocal(requester: Principal): boolean;
}

/** What one subject (a domain or a principal) has been granted. */
interface SubjectGrants {
  seeEveryEndpoint: boolean;
  readonly seeEndpoints: Set<string>;
  /** Tools granted on every endpoint that is not restricted; ANY stands for a grant of every tool. */
  readonly invokeEveryEndpoint: Set<string | typeof ANY>;
  /** Per named endpoint: the granted tools, or ANY. */
  readonly invokeEndpoints: Map<string, Set<string | typeof ANY>>;
}

const ANY = Symbol('any tool');

function subjectKey(kind: Grant['subjectKind'], subject: string): string {
  return `${kind}\u0000${subject}`;
}

function emptyGrants(): SubjectGrants {
  return {
    seeEveryEndpoint: false,
    seeEndpoints: new Set(),
    invokeEveryEndpoint: new Set(),
    invokeEndpoints: new Map(),
  };
}

function indexGrants(grants: readonly Grant[]): Map<string, SubjectGrants> {
  const index = new Map<string, SubjectGrants>();
  for (const grant of grants) {
    const key = subjectKey(grant.subjectKind, grant.subject);
    let entry = index.get(key);
    if (entry === undefined) {
      entry = emptyGrants();
      index.set(key, entry);
    }
    if (grant.action === 'see') {
      if (grant.endpoint === null) entry.seeEveryEndpoint = true;
      else entry.seeEndpoints.add(grant.endpoint);
      continue;
    }
    const tool = grant.tool ?? ANY;
    if (grant.endpoint === null) {
      entry.invokeEveryEndpoint.add(tool);
      continue;
    }
    let tools = entry.invokeEndpoints.get(grant.endpoint);
    if (tools === undefined) {
      tools = new Set();
      entry.invokeEndpoints.set(grant.endpoint, tools);
    }
    tools.add(tool);
  }
  return index;
}

function explicitOnlySets(policies: readonly EndpointPolicy[]): {
  hidden: Set<string>;
  restricted: Set<string>;
} {
  const hidden = new Set<string>();
  const restricted = new Set<string>();
  for (const policy of policies) {
    if (policy.hidden) hidden.add(policy.endpoint);
    if (policy.restrictedInvocation) restricted.add(policy.endpoint);
  }
  return { hidden, restricted };
}

function allowsTool(tools: Set<string | typeof ANY> | undefined, toolName: string): boolean {
  return tools !== undefined && (tools.has(ANY) || tools.has(toolName));
}

// security.federation-deny-default: a remote sender starts from nothing; only a grant naming its
// domain or bare JID allows anything.
export function compileAccessPolicy(rules: PolicyRules): AccessPolicy {
  const localDomains = new Set(rules.localDomains);
  const { see: localSee, invoke: localInvoke } = rules.localDefaults;
  const grants = indexGrants(rules.grants);
  const { hidden, restricted } = explicitOnlySets(rules.endpointPolicies);
  const noGrants = emptyGrants();

  // A principal's own grants and its domain's grants both apply (either may allow).
  // idempotency.immediate-sender, glossary.untrusted-tenant-ids: the principal is the
  // server-stamped sender's bare JID and its domain, never an identity a payload claims.
  const grantsOf = (requester: Principal): [SubjectGrants, SubjectGrants] => [
    grants.get(subjectKey('principal', requester.bareJid)) ?? noGrants,
    grants.get(subjectKey('domain', requester.domain)) ?? noGrants,
  ];
  const isLocal = (requester: Principal): boolean => localDomains.has(requester.domain);

  return {
    isLocal,
    // privacy.explicit-visibility-policy, privacy.profile-not-authority: visibility is decided from
    // grants alone and grants nothing else.
    canSee(requester, endpointJid) {
      const broad = !hidden.has(endpointJid);
      let allowed = broad && localSee && isLocal(requester);
      for (const subject of grantsOf(requester)) {
        const named = subject.seeEndpoints.has(endpointJid);
        allowed = allowed || named || (broad && subject.seeEveryEndpoint);
      }
      return allowed;
    },
    // invocation.invoke-without-visibility, tool-info.annotations-not-authority: invocation comes
    // from invoke grants only; visibility and manifest hints play no part.
    canInvoke(requester, endpointJid, toolName) {
      const broad = !restricted.has(endpointJid);
      let allowed = broad && localInvoke && isLocal(requester);
      for (const subject of grantsOf(requester)) {
        const named = allowsTool(subject.invokeEndpoints.get(endpointJid), toolName);
        allowed = allowed || named || (broad && allowsTool(subject.invokeEveryEndpoint, toolName));
      }
      return allowed;
    },
  };
}
