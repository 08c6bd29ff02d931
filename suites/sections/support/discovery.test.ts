// The discovery traversals against a scripted pager: forward and backward until an empty page,
// short pages accepted, a pager that does not move on or never ends is a violation.
import { describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import {
  parseIq,
  parseXml,
  parseDiscoItemsRequest,
  type RsmRequest,
} from '../../../protocol/stanza/index.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import { compareUtf8 } from '../../../protocol/jid/index.ts';
import { orderIsUnambiguous, positionOf, traverse, traverseBackward } from './discovery.ts';

const ITEMS = ['a@x', 'b@x', 'c@x', 'd@x', 'e@x'];

function reply(items: readonly string[], count: number): string {
  const set =
    items.length === 0
      ? `<count>${String(count)}</count>`
      : `<first>${items[0] ?? ''}</first><last>${items.at(-1) ?? ''}</last><count>${String(count)}</count>`;
  return `<iq type='result' id='i' from='x'><query xmlns='http://jabber.org/protocol/disco#items'>${items
    .map((jid) => `<item jid='${jid}'/>`)
    .join('')}<set xmlns='http://jabber.org/protocol/rsm'>${set}</set></query></iq>`;
}

/** A caller whose gateway pages ITEMS at most `pageMaximum` at a time, as `answer` decides. */
function pager(answer: (rsm: RsmRequest) => readonly string[]): Caller & { requests: RsmRequest[] } {
  const requests: RsmRequest[] = [];
  const caller = {
    requests,
    exchangeIq: (_to: string, _type: string, payload: Parameters<typeof parseDiscoItemsRequest>[0]) => {
      const rsm = parseDiscoItemsRequest(payload).rsm ?? {};
      requests.push(rsm);
      const xml = reply(answer(rsm), ITEMS.length);
      const element = parseXml(xml);
      const exchange: IqExchange = {
        id: 'i',
        requestXml: '<iq/>',
        reply: {
          index: 0,
          name: 'iq',
          xml,
          element,
          parseError: undefined,
          receivedAt: 0,
          id: 'i',
          from: 'x',
          to: undefined,
          type: 'result',
        },
        parsed: parseIq(element) as IqExchange['parsed'],
      };
      return Promise.resolve(exchange);
    },
  };
  return caller as unknown as Caller & { requests: RsmRequest[] };
}

/** A correct pager that never returns more than `pageMaximum` items. */
function correct(pageMaximum: number) {
  return (rsm: RsmRequest): readonly string[] => {
    const max = Math.min(rsm.max ?? ITEMS.length, pageMaximum);
    if (rsm.after !== undefined) {
      const from = ITEMS.indexOf(rsm.after) + 1;
      return ITEMS.slice(from, from + max);
    }
    if (rsm.before !== undefined) {
      const to = rsm.before === '' ? ITEMS.length : ITEMS.indexOf(rsm.before);
      return ITEMS.slice(Math.max(0, to - max), to);
    }
    return ITEMS.slice(0, max);
  };
}

describe('traverse', () => {
  it('pages forward until an empty page, accepting pages shorter than asked', async () => {
    const caller = pager(correct(2));
    const { items, pages } = await traverse(caller, 'x', undefined, 3, 'list-agents.rsm-paging');
    expect(items.map((item) => item.jid)).toEqual(ITEMS);
    expect(pages.at(-1)?.result.items).toEqual([]);
    expect(caller.requests).toEqual([
      { max: 3 },
      { max: 3, after: 'b@x' },
      { max: 3, after: 'd@x' },
      { max: 3, after: 'e@x' },
    ]);
  });

  it('pages backward from an empty <before/> and keeps document order', async () => {
    const { items } = await traverseBackward(pager(correct(2)), 'x', undefined, 2, 'list-agents.rsm-paging');
    expect(items.map((item) => item.jid)).toEqual(ITEMS);
  });

  it('fails a pager that repeats its page instead of moving on', async () => {
    await expect(
      traverse(
        pager(() => ITEMS.slice(0, 2)),
        'x',
        undefined,
        2,
        'list-agents.rsm-paging',
      ),
    ).rejects.toThrow(RequirementViolation);
  });
});

describe('positionOf', () => {
  it('places a key by UTF-8 octets, not UTF-16 units', () => {
    const sorted = ['A', '\uE000', '\u{10000}'];
    expect(positionOf(sorted, '\uFFFF')).toBe(2);
    expect(positionOf(sorted, 'B')).toBe(1);
  });
});

describe('orderIsUnambiguous (interp-15)', () => {
  // The reference world's U+FA0E and U+20000 endpoints: UTF-16 order puts the astral one first.
  const bmp = '\uFA0E@agents.example';
  const astral = '\u{20000}@agents.example';

  it('holds for lower-case ASCII and caseless NFKC-stable letters, so their order is a MUST', () => {
    expect([bmp, astral, 'weather@agents.example'].every(orderIsUnambiguous)).toBe(true);
    expect([bmp, astral].toSorted()).toEqual([astral, bmp]);
    expect([bmp, astral].toSorted(compareUtf8)).toEqual([bmp, astral]);
  });

  it('does not hold where preparation could move a JID (case, width, compatibility, cased letters)', () => {
    for (const jid of [
      'Weather@agents.example',
      '\uFF5Ex@agents.example',
      'caf\u00e9@agents.example',
      '\uF900@x',
    ]) {
      expect(orderIsUnambiguous(jid)).toBe(false);
    }
  });
});
