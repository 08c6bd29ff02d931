/**
 * The agent directory: disco#items at the gateway (#list-agents). Items are the endpoints the
 * requester may see, ordered by the UTF-8 bytes of the normalized bare JID, each JID its own RSM
 * UID; the count counts only those (list-agents.count-visible-only). A deactivated endpoint has
 * no active version to list; listing it anyway is a warning (interp-23), so a listing that
 * includes the requester's visible deactivated endpoints is a second, warned, full set.
 */
import { JidError, compareUtf8, normalizeBareJid } from '../../protocol/jid/index.ts';
import { NODE_DIRECTORY } from '../../protocol/namespaces.ts';
import { visibleEndpoints } from './access.ts';
import { expectation, notFound, type Alternative, type Expectation } from './expectation.ts';
import { pageAlternatives, type PageRequest, type UidPosition } from './paging.ts';
import type { ModelEndpoint, ModelWorld, Principal } from './world.ts';

/**
 * Where a JID UID falls in an ordered JID set. A well-formed JID outside the set (hidden,
 * nonexistent or absent alike) still gives a position, so a positioned page passes and
 * item-not-found is a warning (interp-13).
 */
export function locateJid(fullSet: readonly string[], uid: string): UidPosition {
  let normalized: string;
  try {
    normalized = normalizeBareJid(uid);
  } catch (problem) {
    if (problem instanceof JidError) return { kind: 'malformed' };
    throw problem;
  }
  const index = fullSet.indexOf(normalized);
  if (index !== -1) return { kind: 'member', index };
  const at = fullSet.findIndex((jid) => compareUtf8(jid, normalized) > 0);
  return { kind: 'gap', at: at === -1 ? fullSet.length : at, notFound: 'warn' };
}

/** The JIDs a requester's directory must list, and those it may list with a warning. */
export function directorySets(
  world: ModelWorld,
  principal: Principal,
): { readonly listed: string[]; readonly tolerated: string[] } {
  const visible = visibleEndpoints(world, principal);
  return {
    listed: visible.filter((endpoint) => endpoint.active !== undefined).map((endpoint) => endpoint.jid),
    tolerated: visible.filter((endpoint) => endpoint.active === undefined).map((endpoint) => endpoint.jid),
  };
}

/** The page alternatives over the listed set, and (warned) over listed plus tolerated. */
export function pagesWithTolerated(
  listed: readonly string[],
  tolerated: readonly string[],
  request: PageRequest | undefined,
  pageMax: number | undefined,
): Alternative[] {
  const strict = pageAlternatives(listed, request, (uid) => locateJid(listed, uid), pageMax);
  if (tolerated.length === 0) return strict;
  const withInactive = [...listed, ...tolerated].toSorted(compareUtf8);
  const lenient = pageAlternatives(withInactive, request, (uid) => locateJid(withInactive, uid), pageMax)
    .filter((alternative) => alternative.answer.kind === 'page')
    .map((alternative): Alternative => ({
      ...alternative,
      verdict: 'warn',
      note: 'lists a deactivated endpoint (interp-23)',
    }));
  return [...strict, ...lenient];
}

function uidOutsideSet(request: PageRequest | undefined, listed: readonly string[]): boolean {
  const uid = request?.after ?? (request?.before === '' ? undefined : request?.before);
  return uid !== undefined && locateJid(listed, uid).kind !== 'member';
}

/**
 * disco#items at the gateway, node-less or on the directory node (list-agents.node-optional).
 * A UID outside the visible set must be answered the same whether it names a hidden endpoint or
 * nothing (interp-13), hence `sameAsNonexistent`.
 */
export function directoryItems(
  world: ModelWorld,
  principal: Principal,
  query: { readonly node?: string; readonly rsm?: PageRequest },
): Expectation {
  if (query.node !== undefined && query.node !== NODE_DIRECTORY) {
    return notFound(`disco#items of gateway node ${query.node}`, ['list-agents.node-optional'], false);
  }
  const { listed, tolerated } = directorySets(world, principal);
  return expectation({
    operation: `directory listing for ${principal.bare}`,
    requirements: [
      'list-agents.rsm-paging',
      'list-agents.octet-order',
      'list-agents.count-visible-only',
      'list-agents.visibility-filter',
      'list-agents.node-optional',
    ],
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-23'],
    alternatives: pagesWithTolerated(listed, tolerated, query.rsm, world.limits.pageMax),
    sameAsNonexistent: uidOutsideSet(query.rsm, listed),
  });
}

/** The endpoint if it exists; undefined for a JID the world does not host. */
export function hostedEndpoint(world: ModelWorld, jid: string): ModelEndpoint | undefined {
  let normalized: string;
  try {
    normalized = normalizeBareJid(jid);
  } catch (problem) {
    if (problem instanceof JidError) return undefined;
    throw problem;
  }
  return world.endpoints.find((endpoint) => endpoint.jid === normalized);
}
