import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8 } from '../../protocol/jid/index.ts';
import type { RsmRequest } from '../../protocol/stanza/index.ts';
import { FAULT } from '../iq/faults.ts';
import { pageResultSet } from './rsm-paging.ts';
import type { OrderedSet, Page } from './rsm-paging.ts';

/** Words whose UID is their own sort key, like directory JIDs; '!' marks an unplaceable UID. */
function wordSet(words: readonly string[]): OrderedSet<string> {
  return {
    items: words.toSorted(compareUtf8),
    uidOf: (word) => word,
    positionOf: (uid) => (uid.startsWith('!') ? undefined : (word) => compareUtf8(word, uid)),
  };
}

const LETTERS = wordSet(['b', 'd', 'f', 'h', 'j', 'l', 'n']);

function page(request: RsmRequest | undefined, maximum = 3, set = LETTERS): Page<string> {
  const outcome = pageResultSet(set, request, maximum);
  if (!outcome.ok) throw new Error(`expected a page, got ${outcome.fault.condition}`);
  return outcome.page;
}

function fault(request: RsmRequest, maximum = 3) {
  const outcome = pageResultSet(LETTERS, request, maximum);
  if (outcome.ok) throw new Error('expected a fault');
  return outcome.fault;
}

describe('RSM paging (XEP-0059; interp-13, interp-14)', () => {
  it('returns the whole set without a <set/> when no RSM was asked for and it fits', () => {
    expect(page(undefined, 7)).toEqual({ items: ['b', 'd', 'f', 'h', 'j', 'l', 'n'] });
  });

  it('truncates a request without RSM to the page maximum, with a <set/> saying so', () => {
    expect(page(undefined, 3)).toEqual({
      items: ['b', 'd', 'f'],
      rsm: { first: { uid: 'b', index: 0 }, last: 'f', count: 7 },
    });
  });

  it('pages forward from the start with <first index/>, <last/> and the full count', () => {
    expect(page({ max: 2 })).toEqual({
      items: ['b', 'd'],
      rsm: { first: { uid: 'b', index: 0 }, last: 'd', count: 7 },
    });
    expect(page({ max: 2, after: 'd' })).toEqual({
      items: ['f', 'h'],
      rsm: { first: { uid: 'f', index: 2 }, last: 'h', count: 7 },
    });
  });

  it('clamps <max/> to the page maximum and uses the maximum when <max/> is absent', () => {
    expect(page({ max: 1000 }).items).toEqual(['b', 'd', 'f']);
    expect(page({}).items).toEqual(['b', 'd', 'f']);
    expect(page({ after: 'b' }).items).toEqual(['d', 'f', 'h']);
  });

  it('answers <max>0</max> with the count only: no items, no <first/>, no <last/>', () => {
    expect(page({ max: 0 })).toEqual({ items: [], rsm: { count: 7 } });
    expect(page({ max: 0, after: 'd' })).toEqual({ items: [], rsm: { count: 7 } });
    expect(page({ max: 0, before: '' })).toEqual({ items: [], rsm: { count: 7 } });
    expect(page({ max: 0, index: 3 })).toEqual({ items: [], rsm: { count: 7 } });
  });

  it('pages backward: the last item precedes the <before/> UID', () => {
    expect(page({ max: 2, before: 'h' })).toEqual({
      items: ['d', 'f'],
      rsm: { first: { uid: 'd', index: 1 }, last: 'f', count: 7 },
    });
    expect(page({ max: 5, before: 'f' }).items).toEqual(['b', 'd']);
    expect(page({ max: 2, before: 'b' })).toEqual({ items: [], rsm: { count: 7 } });
  });

  it('returns the last page for an empty <before/>', () => {
    expect(page({ max: 2, before: '' })).toEqual({
      items: ['l', 'n'],
      rsm: { first: { uid: 'l', index: 5 }, last: 'n', count: 7 },
    });
    expect(page({ max: 3, before: '' }, 50, wordSet(['x', 'y'])).items).toEqual(['x', 'y']);
  });

  it('starts a page at <index/>, echoing it in <first index/>, and is empty past the end', () => {
    expect(page({ max: 2, index: 3 })).toEqual({
      items: ['h', 'j'],
      rsm: { first: { uid: 'h', index: 3 }, last: 'j', count: 7 },
    });
    expect(page({ max: 2, index: 6 }).rsm).toEqual({ first: { uid: 'n', index: 6 }, last: 'n', count: 7 });
    expect(page({ max: 2, index: 7 })).toEqual({ items: [], rsm: { count: 7 } });
    expect(page({ max: 2, index: 1000 })).toEqual({ items: [], rsm: { count: 7 } });
  });

  it('continues from the position of a UID that is not in the set (#notfound)', () => {
    expect(page({ max: 2, after: 'e' })).toEqual(page({ max: 2, after: 'd' }));
    expect(page({ max: 2, before: 'g' })).toEqual(page({ max: 2, before: 'h' }));
    expect(page({ max: 2, after: 'a' })).toEqual(page({ max: 2 }));
    expect(page({ max: 2, after: 'z' })).toEqual({ items: [], rsm: { count: 7 } });
    expect(page({ max: 2, before: 'z' })).toEqual(page({ max: 2, before: '' }));
  });

  it('refuses a UID that yields no position with item-not-found, also for max=0', () => {
    expect(fault({ after: '!x' })).toBe(FAULT.itemNotFound);
    expect(fault({ before: '!x' })).toBe(FAULT.itemNotFound);
    expect(fault({ max: 0, after: '!x' })).toBe(FAULT.itemNotFound);
  });

  it('refuses combinations XEP-0059 gives no meaning with bad-request', () => {
    expect(fault({ after: 'b', before: 'n' })).toBe(FAULT.badRequest);
    expect(fault({ index: 1, after: 'b' })).toBe(FAULT.badRequest);
    expect(fault({ index: 1, before: '' })).toBe(FAULT.badRequest);
  });

  it('answers an empty set with <count>0</count> when RSM was asked for, and with nothing otherwise', () => {
    const empty = wordSet([]);
    expect(page({ max: 10 }, 50, empty)).toEqual({ items: [], rsm: { count: 0 } });
    expect(page({ before: '' }, 50, empty)).toEqual({ items: [], rsm: { count: 0 } });
    expect(page(undefined, 50, empty)).toEqual({ items: [] });
  });

  it('counts exactly what a full forward or backward traversal returns', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        (words, max, maximum) => {
          const set = wordSet(words.filter((word) => !word.startsWith('!')));
          const forward: string[] = [];
          let request: RsmRequest = { max };
          for (;;) {
            const next = page(request, maximum, set);
            expect(next.rsm?.count).toBe(set.items.length);
            if (next.rsm?.last === undefined) break;
            expect(next.rsm.first?.index).toBe(forward.length);
            forward.push(...next.items);
            request = { max, after: next.rsm.last };
          }
          expect(forward).toEqual(set.items);
          const backward: string[] = [];
          request = { max, before: '' };
          for (;;) {
            const previous = page(request, maximum, set);
            const first = previous.rsm?.first;
            if (first === undefined) break;
            expect(first.index).toBe(set.items.length - backward.length - previous.items.length);
            backward.unshift(...previous.items);
            request = { max, before: first.uid };
          }
          expect(backward).toEqual(set.items);
        },
      ),
    );
  });
});
