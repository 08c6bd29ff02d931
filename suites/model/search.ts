/**
 * jabber:iq:search at the gateway (#search), legacy <nick/> and the data-form variant alike: the
 * same visibility as the directory (search.visibility-filter), octet order by bare JID with the
 * JID as RSM UID (search.octet-order), counts of visible matches only, hidden endpoints never
 * revealed (search.hidden-not-revealed).
 *
 * What `nick` matches is deployment-defined: some combination of localpart, stable name
 * (agent.name) and display title, case-insensitively as a SHOULD. The model therefore bounds the
 * matched set instead of fixing it:
 * - `permitted`: visible endpoints one of whose three fields contains the nick, compared
 *   case-insensitively. Returning anything else is a match no reading of #search gives (the
 *   suite's own search cases take the same bound: a nick no field contains finds nothing).
 * - `required`: visible endpoints all three of whose fields equal the nick exactly: every
 *   combination and every matching rule finds them.
 * And across queries: searchFindability, the nicks of which at least one must find an endpoint.
 *
 * The empty query MAY list everything visible (#search, interp-18): all visible, nothing, or
 * not-acceptable pass.
 */
import { compareUtf8, parseBareJid } from '../../protocol/jid/index.ts';
import { visibleEndpoints } from './access.ts';
import { directorySets, locateJid, pagesWithTolerated } from './directory.ts';
import { error, expectation, pass, warn, type Alternative, type Expectation } from './expectation.ts';
import { pageAlternatives, type PageRequest } from './paging.ts';
import { activeVersionOf, type ModelEndpoint, type ModelWorld, type Principal } from './world.ts';

const SEARCH_REQUIREMENTS = [
  'search.legacy-nick',
  'search.visibility-filter',
  'search.hidden-not-revealed',
  'search.octet-order',
];

/** Localpart, agent.name and title (agent.name when there is none) of the active version. */
export function searchFields(endpoint: ModelEndpoint): readonly string[] {
  const manifest = activeVersionOf(endpoint) ?? endpoint.versions[0];
  const localpart = parseBareJid(endpoint.jid).localpart ?? '';
  const name = manifest?.name ?? localpart;
  return [localpart, name, manifest?.title ?? name];
}

/** A locale-independent case fold: Unicode lower-casing after compatibility normalization. */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export interface SearchBounds {
  /** Visible active endpoints every reading of nick matching must return. */
  readonly required: readonly string[];
  /** Visible active endpoints some reading may return. */
  readonly permitted: readonly string[];
  /** Visible deactivated endpoints a result may show, with a warning (interp-23). */
  readonly tolerated: readonly string[];
}

/** The bounds on the set a non-empty nick matches, in octet order. */
export function searchBounds(world: ModelWorld, principal: Principal, nick: string): SearchBounds {
  const visible = visibleEndpoints(world, principal);
  const contains = (endpoint: ModelEndpoint): boolean =>
    searchFields(endpoint).some((field) => fold(field).includes(fold(nick)));
  const jids = (endpoints: ModelEndpoint[]): string[] =>
    endpoints.map((endpoint) => endpoint.jid).toSorted(compareUtf8);
  const active = visible.filter((endpoint) => endpoint.active !== undefined);
  return {
    required: jids(active.filter((endpoint) => searchFields(endpoint).every((field) => field === nick))),
    permitted: jids(active.filter(contains)),
    tolerated: jids(visible.filter((endpoint) => endpoint.active === undefined && contains(endpoint))),
  };
}

/** The nicks (localpart, name, title) of which at least one must find the endpoint. */
export function searchFindability(endpoint: ModelEndpoint): readonly string[] {
  return [...new Set(searchFields(endpoint))];
}

/**
 * The first step of judging a search: the set of matches the gateway chose, reconstructed by
 * paging through every result, must lie between the bounds. `judgeMatchedSet` says whether it does.
 */
export function judgeMatchedSet(bounds: SearchBounds, matched: readonly string[]): 'pass' | 'warn' | 'fail' {
  if (!bounds.required.every((jid) => matched.includes(jid))) return 'fail';
  const allowed = new Set([...bounds.permitted, ...bounds.tolerated]);
  if (!matched.every((jid) => allowed.has(jid))) return 'fail';
  return matched.some((jid) => bounds.tolerated.includes(jid)) ? 'warn' : 'pass';
}

/**
 * The second step: one search page, once the matched set is known (from paging through it, and
 * judged by judgeMatchedSet). Without `matched` the permitted set is assumed (a gateway that
 * matches by containment). For the empty query the set is fixed by the model instead.
 */
export function searchPage(
  world: ModelWorld,
  principal: Principal,
  query: { readonly nick: string; readonly rsm?: PageRequest; readonly matched?: readonly string[] },
): Expectation {
  const requirements =
    query.nick === '' ? [...SEARCH_REQUIREMENTS, 'search.empty-query'] : SEARCH_REQUIREMENTS;
  let alternatives: Alternative[];
  if (query.nick === '') {
    const { listed, tolerated } = directorySets(world, principal);
    alternatives = [
      ...pagesWithTolerated(listed, tolerated, query.rsm, world.limits.pageMax),
      pass(
        {
          kind: 'page',
          page: {
            fullSet: [],
            candidates: [],
            anchor: 'start',
            minItems: 0,
            maxItems: 0,
            setRequired: 'when-short',
          },
        },
        'an empty query MAY list nothing (interp-18)',
      ),
      pass(error('not-acceptable'), 'an empty query may be refused (interp-18)'),
    ];
  } else {
    const matched = query.matched ?? searchBounds(world, principal, query.nick).permitted;
    const verdict = judgeMatchedSet(searchBounds(world, principal, query.nick), matched);
    const pages = pageAlternatives(
      matched,
      query.rsm,
      (uid) => locateJid(matched, uid),
      world.limits.pageMax,
    );
    alternatives =
      verdict === 'fail'
        ? []
        : pages.map((alternative) =>
            verdict === 'warn' && alternative.answer.kind === 'page'
              ? warn(alternative.answer, 'the matches include a deactivated endpoint (interp-23)')
              : alternative,
          );
  }
  return expectation({
    operation: `search for nick ${JSON.stringify(query.nick)} by ${principal.bare}`,
    requirements,
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-18', 'interp-23'],
    alternatives,
  });
}
