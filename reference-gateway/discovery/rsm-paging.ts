/**
 * XEP-0059 paging over an ordered result set, shared by the directory, tool collections and
 * search (#list-agents, #list-tools, #search). The set is the requester's visible items only,
 * so `count` and `first@index` never account for hidden ones.
 *
 * Decisions (interp-13, interp-14):
 * - A UID in <after/> or <before/> need not be in the set. Our UIDs carry their sort key, so
 *   the page continues from the UID's position in the order (XEP-0059 #notfound: item-not-found
 *   only when the UID cannot derive a position). A hidden and a nonexistent UID are both merely
 *   absent from the visible set, so they take the same path and give the same page.
 * - <max/> above the page maximum is clamped; absent <max/> means the page maximum.
 * - <max>0</max> answers <count/> only (XEP-0059 #count), after the UIDs were checked.
 * - An empty <before/> asks for the last page (XEP-0059 #last).
 * - <index/> starts the page at that position; past the end the page is empty (XEP-0059 #jump).
 * - <after/> with <before/>, or <index/> with either: XEP-0059 gives the combination no
 *   meaning, so bad-request rather than a guess.
 * - No <set/> in the request: the whole set, unless it exceeds the page maximum; then the
 *   first page with a <set/>, so the client can tell it was truncated.
 * - An empty page carries <count/> only: XEP-0059 forbids <first/>/<last/> without items.
 */
import type { RsmRequest, RsmResponse } from '../../protocol/stanza/index.ts';
import { FAULT, type StanzaFault } from '../iq/faults.ts';

/**
 * Where a requested UID sits in the order: a comparison of any item with that position
 * (negative: the item comes first; zero: the item has this UID; positive: it comes after).
 */
export type UidPosition<T> = (item: T) => number;

export interface OrderedSet<T> {
  /** Ascending in the set's defined order. */
  readonly items: readonly T[];
  readonly uidOf: (item: T) => string;
  /** The UID's position, or undefined when no position can be derived from it. */
  readonly positionOf: (uid: string) => UidPosition<T> | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Absent only when the request had no <set/> and the whole set fits one page. */
  readonly rsm?: RsmResponse;
}

export type PageOutcome<T> =
  { readonly ok: true; readonly page: Page<T> } | { readonly ok: false; readonly fault: StanzaFault };

interface Window {
  readonly start: number;
  readonly end: number;
}

function refused<T>(fault: StanzaFault): PageOutcome<T> {
  return { ok: false, fault };
}

/** Index of the first item that `matches`, or the set's length when none does. */
function firstIndex<T>(items: readonly T[], matches: (item: T) => boolean): number {
  const index = items.findIndex(matches);
  return index === -1 ? items.length : index;
}

/** The slice of the set a request selects; undefined when its UID yields no position. */
function windowOf<T>(set: OrderedSet<T>, request: RsmRequest, size: number): Window | undefined {
  const total = set.items.length;
  if (request.index !== undefined) {
    const start = Math.min(request.index, total);
    return { start, end: Math.min(start + size, total) };
  }
  if (request.after !== undefined) {
    const position = set.positionOf(request.after);
    if (position === undefined) return undefined;
    const start = firstIndex(set.items, (item) => position(item) > 0);
    return { start, end: Math.min(start + size, total) };
  }
  if (request.before !== undefined) {
    let end = total;
    if (request.before !== '') {
      const position = set.positionOf(request.before);
      if (position === undefined) return undefined;
      end = firstIndex(set.items, (item) => position(item) >= 0);
    }
    return { start: Math.max(0, end - size), end };
  }
  return { start: 0, end: Math.min(size, total) };
}

function pageOf<T>(set: OrderedSet<T>, { start, end }: Window): Page<T> {
  const items = set.items.slice(start, end);
  const count = set.items.length;
  const [first] = items;
  const last = items.at(-1);
  if (first === undefined || last === undefined) return { items, rsm: { count } };
  return { items, rsm: { first: { uid: set.uidOf(first), index: start }, last: set.uidOf(last), count } };
}

/** One page of `set` for an RSM request (undefined: the request carried no <set/>). */
export function pageResultSet<T>(
  set: OrderedSet<T>,
  request: RsmRequest | undefined,
  pageMaximum: number,
): PageOutcome<T> {
  if (request === undefined) {
    if (set.items.length <= pageMaximum) return { ok: true, page: { items: set.items } };
    return { ok: true, page: pageOf(set, { start: 0, end: pageMaximum }) };
  }
  const hasUid = request.after !== undefined || request.before !== undefined;
  if (
    (request.after !== undefined && request.before !== undefined) ||
    (request.index !== undefined && hasUid)
  ) {
    return refused(FAULT.badRequest);
  }
  const size = Math.min(request.max ?? pageMaximum, pageMaximum);
  const window = windowOf(set, request, size);
  if (window === undefined) return refused(FAULT.itemNotFound);
  if (size === 0) return { ok: true, page: { items: [], rsm: { count: set.items.length } } };
  return { ok: true, page: pageOf(set, window) };
}
