/**
 * XEP-0055 jabber:iq:search as the Jabber Search Compatibility profile uses it (#search): the
 * search form (legacy fields such as <nick/> plus an optional data form), a submission (legacy
 * fields or a submit form, with an optional RSM <set/>), and results (legacy <item jid/>s or a
 * multi-item result form, the RSM <set/> outside the form; interp-18).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { NS } from '../namespaces.ts';
import { compact } from './compact.ts';
import { clarkNameOf, localNameOf, namespaceOf } from './element-access.ts';
import {
  checkAttributes,
  elementOnlyChildren,
  expectElement,
  parseFailure,
  requiredAttribute,
  simpleContent,
} from './element-reader.ts';
import { legalText, validateBuilt } from './element-writer.ts';
import { buildDataForm, parseDataForm } from './data-form.ts';
import type { DataForm, DataFormInput } from './data-form.ts';
import { buildRsmRequest, buildRsmResponse, findRsmSet, parseRsmRequest, parseRsmResponse } from './rsm.ts';
import type { RsmRequest, RsmResponse } from './rsm.ts';

export const LEGACY_SEARCH_FIELDS = ['first', 'last', 'nick', 'email'] as const;
export type LegacySearchField = (typeof LEGACY_SEARCH_FIELDS)[number];
export type LegacySearchValues = Partial<Record<LegacySearchField, string>>;

/** The result of an IQ get: what the service lets the requester search by. */
export interface SearchForm {
  readonly instructions?: string;
  /** The legacy fields offered (as empty elements), in document order. */
  readonly legacyFields: readonly LegacySearchField[];
  readonly form?: DataForm;
}

export interface SearchFormInput {
  readonly instructions?: string;
  readonly legacyFields?: readonly LegacySearchField[];
  readonly form?: DataFormInput;
}

/** An IQ set submission. An empty legacy submission may ask for every visible endpoint. */
export type SearchRequest =
  | { readonly kind: 'legacy'; readonly fields: LegacySearchValues; readonly rsm?: RsmRequest }
  | { readonly kind: 'form'; readonly form: DataForm; readonly rsm?: RsmRequest };

export type SearchRequestInput =
  | { readonly kind: 'legacy'; readonly fields: LegacySearchValues; readonly rsm?: RsmRequest }
  | { readonly kind: 'form'; readonly form: DataFormInput; readonly rsm?: RsmRequest };

export interface LegacySearchItem extends LegacySearchValues {
  readonly jid: string;
}

/** The result of a submission: legacy items, a result form, or an empty <query/> (no match). */
export type SearchResults =
  | { readonly kind: 'legacy'; readonly items: readonly LegacySearchItem[]; readonly rsm?: RsmResponse }
  | { readonly kind: 'form'; readonly form: DataForm; readonly rsm?: RsmResponse }
  | { readonly kind: 'empty'; readonly rsm?: RsmResponse };

export type SearchResultsInput =
  | { readonly kind: 'legacy'; readonly items: readonly LegacySearchItem[]; readonly rsm?: RsmResponse }
  | { readonly kind: 'form'; readonly form: DataFormInput; readonly rsm?: RsmResponse }
  | { readonly kind: 'empty'; readonly rsm?: RsmResponse };

function isLegacyField(local: string): local is LegacySearchField {
  return (LEGACY_SEARCH_FIELDS as readonly string[]).includes(local);
}

interface QueryParts {
  readonly own: readonly Element[];
  readonly form?: Element;
}

/** The query's jabber:iq:search children (only `allowed` names) and its data form, if any. */
function queryParts(query: Element, allowed: readonly string[]): QueryParts {
  expectElement(query, 'query', NS.search);
  checkAttributes(query, []);
  const own: Element[] = [];
  let form: Element | undefined;
  for (const child of elementOnlyChildren(query)) {
    const ns = namespaceOf(child);
    if (ns === NS.dataForms && localNameOf(child) === 'x') {
      if (form !== undefined) throw parseFailure(query, 'duplicate-child', 'more than one data form');
      form = child;
    } else if (ns === NS.search) {
      if (!allowed.includes(localNameOf(child))) {
        throw parseFailure(query, 'unexpected-child', `<${clarkNameOf(child)}> is not allowed here`);
      }
      own.push(child);
    }
  }
  return compact({ own, form });
}

function once(query: Element, seen: Set<string>, child: Element): void {
  const local = localNameOf(child);
  if (seen.has(local)) throw parseFailure(query, 'duplicate-child', `<${local}/> occurs more than once`);
  seen.add(local);
}

function textChild(element: Element): string {
  checkAttributes(element, []);
  return simpleContent(element);
}

export function parseSearchFormRequest(query: Element): void {
  queryParts(query, []);
  const set = findRsmSet(query);
  if (set !== undefined) {
    throw parseFailure(query, 'unexpected-child', 'a search form request carries no RSM <set/>');
  }
}

export function buildSearchFormRequest(): Element {
  return xml('query', { xmlns: NS.search });
}

export function parseSearchForm(query: Element): SearchForm {
  const { own, form } = queryParts(query, ['instructions', ...LEGACY_SEARCH_FIELDS]);
  const seen = new Set<string>();
  let instructions: string | undefined;
  const legacyFields: LegacySearchField[] = [];
  for (const child of own) {
    once(query, seen, child);
    const local = localNameOf(child);
    if (isLegacyField(local)) {
      if (textChild(child) !== '') {
        throw parseFailure(child, 'unexpected-text', 'offered fields are empty elements');
      }
      legacyFields.push(local);
    } else {
      instructions = textChild(child);
    }
  }
  return compact({ instructions, legacyFields, form: form === undefined ? undefined : parseDataForm(form) });
}

export function buildSearchForm(input: SearchFormInput): Element {
  const target = { local: 'instructions', ns: NS.search };
  const element = xml(
    'query',
    { xmlns: NS.search },
    input.instructions === undefined
      ? undefined
      : xml('instructions', {}, legalText(target, input.instructions)),
    (input.legacyFields ?? []).map((field) => xml(field)),
    input.form === undefined ? undefined : buildDataForm(input.form),
  );
  return validateBuilt(element, parseSearchForm);
}

function legacyValues(container: Element, children: readonly Element[]): LegacySearchValues {
  const seen = new Set<string>();
  const values: Partial<Record<LegacySearchField, string>> = {};
  for (const child of children) {
    once(container, seen, child);
    const local = localNameOf(child);
    if (isLegacyField(local)) values[local] = textChild(child);
  }
  return values;
}

export function parseSearchRequest(query: Element): SearchRequest {
  const { own, form } = queryParts(query, LEGACY_SEARCH_FIELDS);
  const set = findRsmSet(query);
  const rsm = set === undefined ? undefined : parseRsmRequest(set);
  if (form === undefined) return compact({ kind: 'legacy' as const, fields: legacyValues(query, own), rsm });
  const [legacy] = own;
  if (legacy !== undefined) {
    throw parseFailure(
      query,
      'unexpected-child',
      `a form submission carries no legacy <${localNameOf(legacy)}/>`,
    );
  }
  const parsed = parseDataForm(form);
  if (parsed.type !== 'submit') {
    throw parseFailure(form, 'invalid-attribute', 'a search submission form has type submit', 'type');
  }
  return compact({ kind: 'form' as const, form: parsed, rsm });
}

function legacyElements(values: LegacySearchValues): Element[] {
  return LEGACY_SEARCH_FIELDS.flatMap((field) => {
    const value = values[field];
    return value === undefined ? [] : [xml(field, {}, legalText({ local: field, ns: NS.search }, value))];
  });
}

export function buildSearchRequest(request: SearchRequestInput): Element {
  const element = xml(
    'query',
    { xmlns: NS.search },
    request.rsm === undefined ? undefined : buildRsmRequest(request.rsm),
    request.kind === 'legacy' ? legacyElements(request.fields) : buildDataForm(request.form),
  );
  return validateBuilt(element, parseSearchRequest);
}

function parseLegacyItem(item: Element): LegacySearchItem {
  checkAttributes(item, ['jid']);
  const own = elementOnlyChildren(item).filter((child) => namespaceOf(child) === NS.search);
  for (const child of own) {
    if (!isLegacyField(localNameOf(child))) {
      throw parseFailure(item, 'unexpected-child', `<${clarkNameOf(child)}> is not a jabber:iq:search field`);
    }
  }
  return { jid: requiredAttribute(item, 'jid'), ...legacyValues(item, own) };
}

export function parseSearchResults(query: Element): SearchResults {
  const { own, form } = queryParts(query, ['item']);
  const set = findRsmSet(query);
  const rsm = set === undefined ? undefined : parseRsmResponse(set);
  if (form === undefined) {
    if (own.length === 0) return compact({ kind: 'empty' as const, rsm });
    return compact({ kind: 'legacy' as const, items: own.map(parseLegacyItem), rsm });
  }
  if (own.length > 0) {
    throw parseFailure(query, 'unexpected-child', 'results are legacy items or a form, not both');
  }
  const nestedSet = findRsmSet(form);
  if (nestedSet !== undefined) {
    throw parseFailure(form, 'unexpected-child', 'the RSM <set/> belongs outside the form');
  }
  const parsed = parseDataForm(form);
  if (parsed.type !== 'result') {
    throw parseFailure(form, 'invalid-attribute', 'search results use a result form', 'type');
  }
  if (parsed.reported === undefined) {
    throw parseFailure(form, 'missing-child', 'a result form needs <reported/>');
  }
  if (parsed.fields.length > 0) {
    throw parseFailure(form, 'unexpected-child', 'a result form holds only <reported/> and <item/>');
  }
  return compact({ kind: 'form' as const, form: parsed, rsm });
}

export function buildSearchResults(results: SearchResultsInput): Element {
  let content: Element | Element[] | undefined;
  if (results.kind === 'legacy') {
    content = results.items.map(({ jid, ...values }) =>
      xml('item', { jid: legalText({ local: 'item', ns: NS.search }, jid, 'jid') }, legacyElements(values)),
    );
  } else if (results.kind === 'form') {
    content = buildDataForm(results.form);
  }
  const element = xml(
    'query',
    { xmlns: NS.search },
    content,
    results.rsm === undefined ? undefined : buildRsmResponse(results.rsm),
  );
  return validateBuilt(element, parseSearchResults);
}
