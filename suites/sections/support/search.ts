/**
 * XEP-0055 searches as the #search cases send them: the search form, legacy and data-form
 * submissions, what a result found, and XEP-0059 traversals of a result set that never expect
 * full pages (a gateway may page below what is asked).
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { FORM_TYPE, NS } from '../../../protocol/namespaces.ts';
import {
  buildSearchFormRequest,
  buildSearchRequest,
  parseSearchForm,
  parseSearchResults,
  type FormField,
  type LegacySearchValues,
  type RsmRequest,
  type SearchForm,
  type SearchResults,
} from '../../../protocol/stanza/index.ts';
import { expectParsed, expectResultPayload, expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export async function searchForm(
  caller: Caller,
  gateway: string,
  requirement: RequirementId,
): Promise<{ readonly exchange: IqExchange; readonly offer: SearchForm }> {
  const exchange = await caller.exchangeIq(gateway, 'get', buildSearchFormRequest());
  const payload = expectResultPayload(exchange, requirement, NS.search, 'query');
  return { exchange, offer: expectParsed(payload, requirement, parseSearchForm, exchange.reply.xml) };
}

/** Whether the offered data form is the jabber:iq:search one with a field `name`. */
export function formOffers(offer: SearchForm, name: string): boolean {
  return offer.form?.fields.some((field) => field.var === name) === true;
}

export function searchLegacy(
  caller: Caller,
  gateway: string,
  fields: LegacySearchValues,
  rsm?: RsmRequest,
): Promise<IqExchange> {
  return caller.exchangeIq(
    gateway,
    'set',
    buildSearchRequest({ kind: 'legacy', fields, ...(rsm === undefined ? {} : { rsm }) }),
  );
}

/**
 * A data-form submission with the search FORM_TYPE (or without it, to test its absence) and
 * one value per criterion.
 */
export function searchWithForm(
  caller: Caller,
  gateway: string,
  criteria: Readonly<Record<string, string>>,
  rsm?: RsmRequest,
  options: { readonly formType?: boolean } = {},
): Promise<IqExchange> {
  const fields = [
    ...(options.formType === false
      ? []
      : [{ var: 'FORM_TYPE', type: 'hidden' as const, values: [FORM_TYPE.search] }]),
    ...Object.entries(criteria).map(([name, value]) => ({ var: name, values: [value] })),
  ];
  return caller.exchangeIq(
    gateway,
    'set',
    buildSearchRequest({
      kind: 'form',
      form: { type: 'submit', fields },
      ...(rsm === undefined ? {} : { rsm }),
    }),
  );
}

export interface Found {
  readonly exchange: IqExchange;
  readonly results: SearchResults;
  /** The item JIDs, in the order received. */
  readonly jids: readonly string[];
}

function formItemJid(item: readonly FormField[]): string | undefined {
  const field = item.find((candidate) => candidate.var === 'jid');
  return field?.values.length === 1 ? field.values[0] : undefined;
}

/**
 * A search result as found items; a malformed result (an RSM set inside the form, fields beside
 * <reported/> and <item/>, an item without one jid) violates `requirement`.
 */
export function readFound(exchange: IqExchange, requirement: RequirementId): Found {
  const payload = expectResultPayload(exchange, requirement, NS.search, 'query');
  const results = expectParsed(payload, requirement, parseSearchResults, exchange.reply.xml);
  let jids: string[] = [];
  if (results.kind === 'legacy') jids = results.items.map((item) => item.jid);
  if (results.kind === 'form') {
    jids = results.form.items.map((item) => {
      const jid = formItemJid(item);
      if (jid === undefined) {
        throw new RequirementViolation(
          requirement,
          'every result item with one jid field',
          exchange.reply.xml,
        );
      }
      return jid;
    });
  }
  return { exchange, results, jids };
}

export interface SearchTraversal {
  readonly pages: readonly Found[];
  readonly jids: readonly string[];
}

/** Far more pages than any fixture set needs: a result set that never ends fails, not hangs. */
const MAX_PAGES = 200;

/** Pages a search forward with <after/> set to each page's <last/> until a page comes back empty or without one. */
export async function traverseSearch(
  submit: (rsm: RsmRequest) => Promise<IqExchange>,
  max: number,
  requirement: RequirementId,
): Promise<SearchTraversal> {
  const pages: Found[] = [];
  const jids: string[] = [];
  let after: string | undefined;
  for (let n = 0; n < MAX_PAGES; n += 1) {
    const found = readFound(await submit(after === undefined ? { max } : { max, after }), requirement);
    pages.push(found);
    jids.push(...found.jids);
    const last = found.results.rsm?.last;
    if (found.jids.length === 0 || last === undefined) return { pages, jids };
    expectThat(
      found.exchange.reply.xml,
      requirement,
      `a page after ${after ?? '(start)'} that moves on`,
      last !== after,
    );
    after = last;
  }
  throw new RequirementViolation(
    requirement,
    'a result set that ends',
    `still more pages after ${String(MAX_PAGES)}`,
  );
}
