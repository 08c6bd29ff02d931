import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8 } from '../../protocol/jid/index.ts';
import {
  judgePage,
  pageAlternatives,
  type PageExpectation,
  type PageRequest,
  type UidPosition,
} from './paging.ts';

const locateIn =
  (fullSet: readonly string[]) =>
  (uid: string): UidPosition => {
    const index = fullSet.indexOf(uid);
    if (index !== -1) return { kind: 'member', index };
    const at = fullSet.findIndex((item) => compareUtf8(item, uid) > 0);
    return { kind: 'gap', at: at === -1 ? fullSet.length : at, notFound: 'warn' };
  };

function onlyPage(
  fullSet: readonly string[],
  request: PageRequest | undefined,
  pageMax?: number,
): PageExpectation {
  const pages = pageAlternatives(fullSet, request, locateIn(fullSet), pageMax).flatMap((alternative) =>
    alternative.answer.kind === 'page' ? [alternative.answer.page] : [],
  );
  expect(pages).toHaveLength(1);
  const [page] = pages;
  if (page === undefined) throw new Error('no page alternative');
  return page;
}

/** A gateway that answers with any page the model allows: `pick` chooses its size. */
function serve(expected: PageExpectation, pick: number): { items: string[]; set: object } {
  const span = expected.maxItems - expected.minItems;
  const size = expected.minItems + (span === 0 ? 0 : pick % (span + 1));
  const items =
    expected.anchor === 'start'
      ? expected.candidates.slice(0, size)
      : expected.candidates.slice(expected.candidates.length - size);
  const bounds = items.length === 0 ? {} : { first: items[0], last: items.at(-1) };
  return { items, set: { ...bounds, count: expected.fullSet.length } };
}

const sortedSet = fc
  .uniqueArray(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), { maxLength: 25 })
  .map((items) => items.toSorted(compareUtf8));

describe('RSM paging model', () => {
  it('paging forward with any page size yields the full ordered set exactly once', () => {
    fc.assert(
      fc.property(
        sortedSet,
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        (fullSet, max, pageMax, picks) => {
          const collected: string[] = [];
          let after: string | undefined;
          for (const pick of picks) {
            const expected = onlyPage(fullSet, after === undefined ? { max } : { max, after }, pageMax);
            const reply = serve(expected, pick);
            expect(judgePage(expected, reply).verdict).toBe('pass');
            if (reply.items.length === 0) break;
            collected.push(...reply.items);
            after = reply.items.at(-1);
          }
          expect(collected).toEqual(fullSet);
        },
      ),
    );
  });

  it('paging backward from the empty <before/> yields the full set exactly once', () => {
    fc.assert(
      fc.property(
        sortedSet,
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        (fullSet, max, picks) => {
          const collected: string[] = [];
          let before = '';
          for (const pick of picks) {
            const expected = onlyPage(fullSet, { max, before });
            const reply = serve(expected, pick);
            expect(judgePage(expected, reply).verdict).toBe('pass');
            if (reply.items.length === 0) break;
            collected.unshift(...reply.items);
            before = reply.items[0] ?? '';
          }
          expect(collected).toEqual(fullSet);
        },
      ),
    );
  });

  it('an <after/> at the last item or beyond it gives an empty page with no first or last', () => {
    const fullSet = ['a', 'b', 'c'];
    const pastEnd = onlyPage(fullSet, { max: 5, after: 'c' });
    expect(pastEnd.maxItems).toBe(0);
    expect(judgePage(pastEnd, { items: [], set: { count: 3 } }).verdict).toBe('pass');
    expect(judgePage(pastEnd, { items: [], set: { first: 'c', last: 'c', count: 3 } }).verdict).toBe('fail');
    expect(onlyPage(fullSet, { max: 5, after: 'zz' }).maxItems).toBe(0);
  });

  it('an unknown <after/> UID positions the page and allows item-not-found with a warning (interp-13)', () => {
    const alternatives = pageAlternatives(['a', 'c', 'e'], { max: 9, after: 'b' }, locateIn(['a', 'c', 'e']));
    const page = alternatives.find((alternative) => alternative.answer.kind === 'page');
    expect(page?.answer).toMatchObject({ page: { candidates: ['c', 'e'] } });
    expect(alternatives.find((alternative) => alternative.answer.kind === 'error')).toMatchObject({
      verdict: 'warn',
      answer: { condition: 'item-not-found' },
    });
  });

  it('max 0 is count only: any item, first or last fails', () => {
    const countOnly = onlyPage(['a', 'b'], { max: 0 });
    expect(judgePage(countOnly, { items: [], set: { count: 2 } }).verdict).toBe('pass');
    expect(judgePage(countOnly, { items: ['a'], set: { first: 'a', last: 'a', count: 2 } }).verdict).toBe(
      'fail',
    );
  });

  it('an index at or past the end allows only an empty page or feature-not-implemented', () => {
    const alternatives = pageAlternatives(['a', 'b'], { max: 1, index: 2 }, locateIn(['a', 'b']));
    expect(alternatives.map((alternative) => alternative.answer.kind).toSorted()).toEqual(['error', 'page']);
    const page = alternatives.find((alternative) => alternative.answer.kind === 'page');
    expect(page?.answer).toMatchObject({ page: { maxItems: 0 } });
  });

  it('a request without a set gets the full list, or a short page that carries a set (interp-14)', () => {
    const expected = onlyPage(['a', 'b', 'c'], undefined);
    expect(judgePage(expected, { items: ['a', 'b', 'c'] }).verdict).toBe('pass');
    expect(judgePage(expected, { items: ['a'] }).verdict).toBe('fail');
    expect(judgePage(expected, { items: ['a'], set: { first: 'a', last: 'a', count: 3 } }).verdict).toBe(
      'pass',
    );
  });

  it('judges counts, bounds, order and the missing count', () => {
    const expected = onlyPage(['a', 'b', 'c'], { max: 2 });
    expect(
      judgePage(expected, { items: ['a', 'b'], set: { first: 'a', last: 'b', count: 4 } }).problems,
    ).toHaveLength(1);
    expect(judgePage(expected, { items: ['b', 'a'], set: { first: 'b', last: 'a', count: 3 } }).verdict).toBe(
      'fail',
    );
    expect(judgePage(expected, { items: ['a', 'b'], set: { first: 'a', last: 'a', count: 3 } }).verdict).toBe(
      'fail',
    );
    expect(
      judgePage(expected, { items: ['a', 'b'], set: { first: 'a', last: 'b', firstIndex: 1, count: 3 } })
        .verdict,
    ).toBe('fail');
    expect(judgePage(expected, { items: ['a', 'b'], set: { first: 'a', last: 'b' } }).verdict).toBe('warn');
    expect(
      judgePage(expected, { items: ['a', 'b', 'c'], set: { first: 'a', last: 'c', count: 3 } }).verdict,
    ).toBe('fail');
  });

  it('an empty full set may be answered without a set, or with a zero count (interp-14)', () => {
    const empty = onlyPage([], { max: 10 });
    expect(judgePage(empty, { items: [] }).verdict).toBe('pass');
    expect(judgePage(empty, { items: [], set: { count: 0 } }).verdict).toBe('pass');
    expect(judgePage(empty, { items: [], set: { count: 1 } }).verdict).toBe('fail');
  });

  it('a documented page maximum fixes the page size', () => {
    const expected = onlyPage(['a', 'b', 'c', 'd'], { max: 10 }, 3);
    expect([expected.minItems, expected.maxItems]).toEqual([3, 3]);
  });
});
