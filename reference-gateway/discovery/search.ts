/**
 * Jabber Search at the gateway JID (#search; XEP-0055, XEP-0004, XEP-0059): the search form on
 * IQ get, and results on IQ set for a legacy <nick/> or a data-form submission. Results are
 * the visible endpoints that match, in JID octet order, paged by the directory's pager with
 * the RSM <set/> outside the form and counts of visible matches only.
 */
import type { Element } from '@xmpp/xml';
import { FORM_TYPE } from '../../protocol/namespaces.ts';
import {
  buildSearchForm,
  buildSearchResults,
  formTypeField,
  formTypeOf,
} from '../../protocol/stanza/index.ts';
import type {
  DataForm,
  FormFieldInput,
  LegacySearchValues,
  RsmResponse,
  SearchRequest,
} from '../../protocol/stanza/index.ts';
import type { Catalog, Requester, VisibleEndpoint } from '../catalog/catalog.ts';
import { byJidOctets, endpointDisplayName, endpointSet } from './endpoint-order.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { pageResultSet } from './rsm-paging.ts';
import { searchMatcher } from './search-match.ts';
import type { SearchCriteria } from './search-match.ts';
import type { DiscoverySettings } from './settings.ts';

const INSTRUCTIONS =
  'Enter part of an agent name to find matching agents, or a tool tag to find agents by capability. ' +
  'Leave both empty to list every agent you may see.';

/** Our extension field beyond XEP-0055's nick: the XEP-0004 extensibility #search recommends. */
const TAG_FIELD = 'tag';
const NICK_FIELD = 'nick';

/**
 * The IQ get answer: instructions, the legacy <nick/> (required by #search; interp-18) and a
 * form with the jabber:iq:search FORM_TYPE, nick and tag.
 *
 * search.legacy-nick, search.form-type
 */
export function searchForm(): Element {
  return buildSearchForm({
    instructions: INSTRUCTIONS,
    legacyFields: [NICK_FIELD],
    form: {
      type: 'form',
      title: 'Agent Directory Search',
      instructions: [INSTRUCTIONS],
      fields: [
        formTypeField(FORM_TYPE.search),
        { var: NICK_FIELD, type: 'text-single', label: 'Nickname' },
        { var: TAG_FIELD, type: 'text-single', label: 'Tool tag' },
      ],
    },
  });
}

/**
 * A legacy submission may only fill <nick/>, the one field offered. Clients that send the
 * other XEP-0055 fields empty are served; a value in one we do not search would silently widen
 * the result, so it is refused.
 */
function legacyCriteria(fields: LegacySearchValues): SearchCriteria | undefined {
  const { nick, ...others } = fields;
  if (Object.values(others).some((value) => value !== '')) return undefined;
  return nick === undefined ? {} : { nick };
}

/**
 * A form submission is read as XEP-0004 asks of a form-processing entity: fields it does not
 * understand are ignored (§3.1: MUST), and a submission may omit fields, its hidden FORM_TYPE
 * included, so one without FORM_TYPE is read as the search form (interp-18). A FORM_TYPE naming
 * another form is bad-request: that is not a search. nick and tag carry at most one value.
 */
function formCriteria(form: DataForm): SearchCriteria | undefined {
  const formType = formTypeOf(form);
  if (formType !== undefined && formType !== FORM_TYPE.search) return undefined;
  let criteria: SearchCriteria = {};
  for (const field of form.fields) {
    if (field.var !== NICK_FIELD && field.var !== TAG_FIELD) continue;
    const [value, extra] = field.values;
    if (extra !== undefined) return undefined;
    if (value !== undefined) criteria = { ...criteria, [field.var]: value };
  }
  return criteria;
}

const REPORTED: readonly FormFieldInput[] = [
  { var: 'jid', type: 'jid-single', label: 'Jabber ID' },
  { var: NICK_FIELD, type: 'text-single', label: 'Nickname' },
];

/**
 * Legacy submissions get legacy items, form submissions a result form holding only <reported/>
 * and <item/> (interp-18). A legacy search without matches is an empty <query/>; a
 * form search without matches is a result form without items, still a valid table.
 */
function searchResults(
  kind: SearchRequest['kind'],
  endpoints: readonly VisibleEndpoint[],
  rsm: RsmResponse | undefined,
): Element {
  const set = rsm === undefined ? {} : { rsm };
  // search.legacy-nick: legacy items to a legacy submission.
  if (kind === 'legacy') {
    if (endpoints.length === 0) return buildSearchResults({ kind: 'empty', ...set });
    const items = endpoints.map((endpoint) => ({ jid: endpoint.jid, nick: endpointDisplayName(endpoint) }));
    return buildSearchResults({ kind: 'legacy', items, ...set });
  }
  const items = endpoints.map((endpoint) => [
    { var: 'jid', values: [endpoint.jid] },
    { var: NICK_FIELD, values: [endpointDisplayName(endpoint)] },
  ]);
  return buildSearchResults({ kind: 'form', form: { type: 'result', reported: REPORTED, items }, ...set });
}

export function searchSubmission(
  catalog: Catalog,
  requester: Requester,
  request: SearchRequest,
  settings: DiscoverySettings,
): Outcome {
  const criteria = request.kind === 'legacy' ? legacyCriteria(request.fields) : formCriteria(request.form);
  if (criteria === undefined) return refuse(FAULT.badRequest);
  // search.visibility-filter, search.hidden-not-revealed, rules.uniform-visibility,
  // search.octet-order: the directory's visible set, in the directory's order.
  const matches = byJidOctets(catalog.visibleEndpoints(requester)).filter(searchMatcher(criteria));
  const paged = pageResultSet(endpointSet(matches), request.rsm, settings.pageMaximum);
  if (!paged.ok) return refuse(paged.fault);
  return answer(searchResults(request.kind, paged.page.items, paged.page.rsm));
}
