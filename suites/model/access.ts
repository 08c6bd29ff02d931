/**
 * The access-policy model (#rules, #security, #manifest): one visibility decision per
 * (principal, endpoint) that governs search, directory items, endpoint and tool information,
 * manifest and schema retrieval alike; one invocation decision per (principal, endpoint, tool),
 * independent of it. Only grants give anything: a principal no grant names gets nothing, which
 * is deny by default for every remote domain (security.federation-deny-default).
 */
import { parseBareJid } from '../../protocol/jid/index.ts';
import type { ModelEndpoint, ModelGrant, ModelWorld, Principal } from './world.ts';

function grantsOf(world: ModelWorld, principal: Principal): ModelGrant[] {
  const { domainpart } = parseBareJid(principal.bare);
  return world.grants.filter((grant) =>
    'principal' in grant.subject
      ? grant.subject.principal === principal.bare
      : grant.subject.domain === domainpart,
  );
}

/**
 * Whether the principal may see the endpoint: all-or-nothing, every version and every tool
 * (#manifest, rules.uniform-visibility). A deactivated endpoint keeps its visibility decision;
 * what it answers is the operation's business (interp-23).
 */
export function maySee(world: ModelWorld, principal: Principal, endpoint: ModelEndpoint): boolean {
  return grantsOf(world, principal).some(
    (grant) => grant.see.has(endpoint.jid) || (grant.seeAll && !endpoint.hidden),
  );
}

/**
 * Whether the principal may invoke this tool of the endpoint. Visibility plays no part
 * (invocation.invoke-without-visibility), nor do annotations (tool-info.annotations-not-authority).
 * The decision is by tool name, so it holds for every version that has the tool.
 */
export function mayInvoke(
  world: ModelWorld,
  principal: Principal,
  endpoint: ModelEndpoint,
  tool: string,
): boolean {
  return grantsOf(world, principal).some((grant) => {
    if (grant.invokeAll && !endpoint.restrictedInvocation) return true;
    const named = grant.invoke.get(endpoint.jid);
    return named === 'all' || named?.has(tool) === true;
  });
}

/** Whether the principal may invoke at least one tool of the endpoint's active version. */
export function mayInvokeSomeTool(world: ModelWorld, principal: Principal, endpoint: ModelEndpoint): boolean {
  const active = endpoint.versions.find((version) => version.version === endpoint.active);
  return (active?.tools ?? []).some((tool) => mayInvoke(world, principal, endpoint, tool.name));
}

/** The endpoints the principal may see, in directory order; deactivated ones included. */
export function visibleEndpoints(world: ModelWorld, principal: Principal): ModelEndpoint[] {
  return world.endpoints.filter((endpoint) => maySee(world, principal, endpoint));
}
