/**
 * XEP-0059 Result Set Management as the spec profiles it for the directory, tool listings and
 * search (#list-agents, #list-tools, #search): the full result set is an ordered list of UIDs
 * (bare JIDs or tool nodes), and a request selects a window of it. The model says which pages
 * are acceptable, not which one: a gateway MAY cap pages below the requested max (#list-agents),
 * so unless the world documents its cap, any non-empty prefix (or suffix, paging backwards) of
 * the window up to the requested size passes.
 *
 * Edges follow interp-14: max 0 is count only; an empty <before/> is the last page; <index/> may
 * be refused with feature-not-implemented; an index or an <after/> at or past the end gives an
 * empty page; a request without a set may get the full list, or a truncated page with a set.
 * UIDs not in the set follow interp-13 (the caller's `locate` says how).
 */
import { error, pass, warn, type Alternative } from './expectation.ts';

/** The RSM children of a request; `before: ''` is the empty <before/>. */
export interface PageRequest {
  readonly max?: number;
  readonly after?: string;
  readonly before?: string;
  readonly index?: number;
}

export interface PageExpectation {
  /** The complete result set in order: what <count/> counts and `first@index` indexes. */
  readonly fullSet: readonly string[];
  /** The contiguous run of fullSet the page is drawn from. */
  readonly candidates: readonly string[];
  /** 'start': the page is a prefix of candidates (forward paging); 'end': a suffix (backward). */
  readonly anchor: 'start' | 'end';
  readonly minItems: number;
  readonly maxItems: number;
  /** 'always' when the request had a set; 'when-short' when it had none (interp-14). */
  readonly setRequired: 'always' | 'when-short';
}

/** Where a UID from <after/> or <before/> falls in the full set. */
export type UidPosition =
  | { readonly kind: 'member'; readonly index: number }
  /** Not in the set but well-formed: it sorts before fullSet[at]; `notFound` grades item-not-found. */
  | { readonly kind: 'gap'; readonly at: number; readonly notFound: 'pass' | 'warn' }
  | { readonly kind: 'malformed' };

export interface ObservedPage {
  readonly items: readonly string[];
  readonly set?: {
    readonly first?: string;
    readonly firstIndex?: number;
    readonly last?: string;
    readonly count?: number;
  };
}

export interface PageJudgement {
  readonly verdict: 'pass' | 'warn' | 'fail';
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

function page(
  fullSet: readonly string[],
  candidates: readonly string[],
  anchor: 'start' | 'end',
  requestedMax: number | undefined,
  pageMax: number | undefined,
): PageExpectation {
  const cap = Math.min(candidates.length, requestedMax ?? Infinity, pageMax ?? Infinity);
  // Without a documented cap any non-empty page makes progress; with one the size is exact.
  const minItems = pageMax === undefined ? Math.min(1, cap) : cap;
  return { fullSet, candidates, anchor, minItems, maxItems: cap, setRequired: 'always' };
}

/** The acceptable answers to one RSM request over `fullSet`. */
export function pageAlternatives(
  fullSet: readonly string[],
  request: PageRequest | undefined,
  locate: (uid: string) => UidPosition,
  pageMax?: number,
): Alternative[] {
  if (request === undefined) {
    const size = Math.min(fullSet.length, pageMax ?? Infinity);
    const minItems = pageMax === undefined ? Math.min(1, size) : size;
    return [
      pass({
        kind: 'page',
        page: {
          fullSet,
          candidates: fullSet,
          anchor: 'start',
          minItems,
          maxItems: size,
          setRequired: 'when-short',
        },
      }),
    ];
  }
  const { max } = request;
  if (max === 0) return [pass({ kind: 'page', page: page(fullSet, [], 'start', 0, pageMax) })];
  if (request.before !== undefined) {
    if (request.before === '')
      return [pass({ kind: 'page', page: page(fullSet, fullSet, 'end', max, pageMax) })];
    return relativeTo(
      locate(request.before),
      (at) => page(fullSet, fullSet.slice(0, at), 'end', max, pageMax),
      0,
    );
  }
  if (request.after !== undefined) {
    return relativeTo(
      locate(request.after),
      (at) => page(fullSet, fullSet.slice(at), 'start', max, pageMax),
      1,
    );
  }
  if (request.index !== undefined) {
    const notImplemented = pass(
      error('feature-not-implemented'),
      'XEP-0059 lets a responder refuse paging by index',
    );
    return [
      pass({ kind: 'page', page: page(fullSet, fullSet.slice(request.index), 'start', max, pageMax) }),
      notImplemented,
    ];
  }
  return [pass({ kind: 'page', page: page(fullSet, fullSet, 'start', max, pageMax) })];
}

/** `memberShift`: 1 for <after/> (the page starts behind the member), 0 for <before/>. */
function relativeTo(
  position: UidPosition,
  pageAt: (at: number) => PageExpectation,
  memberShift: number,
): Alternative[] {
  switch (position.kind) {
    case 'member':
      return [pass({ kind: 'page', page: pageAt(position.index + memberShift) })];
    case 'gap': {
      const notFound =
        position.notFound === 'pass'
          ? pass(error('item-not-found'))
          : warn(
              error('item-not-found'),
              'the UID still gives a position, so a page is expected (interp-13)',
            );
      return [
        pass({ kind: 'page', page: pageAt(position.at) }, 'positioned on the UID (interp-13)'),
        notFound,
      ];
    }
    case 'malformed':
      return [pass(error('bad-request')), pass(error('item-not-found'))];
  }
}

function isRunOf(items: readonly string[], candidates: readonly string[], anchor: 'start' | 'end'): boolean {
  const offset = anchor === 'start' ? 0 : candidates.length - items.length;
  return offset >= 0 && items.every((item, index) => candidates[offset + index] === item);
}

/** Judges a received page against one page expectation. */
export function judgePage(expected: PageExpectation, observed: ObservedPage): PageJudgement {
  const problems: string[] = [];
  const warnings: string[] = [];
  const { items, set } = observed;
  if (items.length < expected.minItems || items.length > expected.maxItems) {
    problems.push(`${items.length} items, expected ${expected.minItems}..${expected.maxItems}`);
  }
  if (!isRunOf(items, expected.candidates, expected.anchor)) {
    const where = expected.anchor === 'start' ? 'the first' : 'the last';
    problems.push(`items are not ${where} ${items.length} of ${JSON.stringify(expected.candidates)}`);
  }
  const short = items.length < expected.fullSet.length;
  if (set === undefined) {
    // An empty full set is answered by an empty wrapper, with or without a set (XEP-0059, interp-14).
    if ((expected.setRequired === 'always' && expected.fullSet.length > 0) || short) {
      problems.push('no RSM <set/> in the reply');
    }
  } else {
    if (items.length === 0 && (set.first !== undefined || set.last !== undefined)) {
      problems.push('<first/> or <last/> on an empty page');
    }
    if (items.length > 0) {
      if (set.first !== items[0])
        problems.push(`<first/> ${String(set.first)} is not the first item ${String(items[0])}`);
      if (set.last !== items.at(-1))
        problems.push(`<last/> ${String(set.last)} is not the last item ${String(items.at(-1))}`);
      if (set.firstIndex !== undefined && set.firstIndex !== expected.fullSet.indexOf(items[0] ?? '')) {
        problems.push(`first@index ${set.firstIndex} is not the first item's position`);
      }
    }
    if (set.count === undefined) warnings.push('no <count/> (interp-14)');
    else if (set.count !== expected.fullSet.length) {
      problems.push(`<count/> ${set.count}, but the set has ${expected.fullSet.length} items`);
    }
  }
  const verdict = problems.length > 0 ? 'fail' : warnings.length > 0 ? 'warn' : 'pass';
  return { verdict, problems, warnings };
}
