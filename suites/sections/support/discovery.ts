/**
 * What the discovery suites share: one XEP-0030 query as an exchange, the caller of a role, and
 * XEP-0059 traversals that page until the set ends — never expecting full pages, since a gateway
 * may enforce a page maximum smaller than asked (#list-agents; list-agents.short-pages).
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { compareUtf8 } from '../../../protocol/jid/index.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  type DiscoItem,
  type DiscoItems,
  type RsmRequest,
} from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectDiscoItems, expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import type { CallerRole } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export function callerFor(context: CaseContext, role: CallerRole): Promise<Caller> {
  return context.callers[role]();
}

export function discoInfo(caller: Caller, to: string, node?: string): Promise<IqExchange> {
  return caller.exchangeIq(to, 'get', buildDiscoInfoRequest(node === undefined ? {} : { node }));
}

export function discoItems(caller: Caller, to: string, node?: string, rsm?: RsmRequest): Promise<IqExchange> {
  return caller.exchangeIq(
    to,
    'get',
    buildDiscoItemsRequest({
      ...(node === undefined ? {} : { node }),
      ...(rsm === undefined ? {} : { rsm }),
    }),
  );
}

export interface Page {
  readonly exchange: IqExchange;
  readonly result: DiscoItems;
}

export interface Traversal {
  readonly pages: readonly Page[];
  /** Every item of every page, in the order received. */
  readonly items: readonly DiscoItem[];
}

/** Far more pages than any fixture set needs: a gateway that never ends a set fails, not hangs. */
const MAX_PAGES = 200;

/**
 * Pages forward with <after/> set to the previous page's <last/> until a page comes back empty
 * (or without <last/>). A page that repeats what came before, or a set that never ends,
 * violates `requirement`.
 */
export async function traverse(
  caller: Caller,
  to: string,
  node: string | undefined,
  max: number,
  requirement: RequirementId,
): Promise<Traversal> {
  const pages: Page[] = [];
  const items: DiscoItem[] = [];
  let after: string | undefined;
  for (let n = 0; n < MAX_PAGES; n += 1) {
    const exchange = await discoItems(caller, to, node, after === undefined ? { max } : { max, after });
    const result = expectDiscoItems(exchange, requirement);
    pages.push({ exchange, result });
    items.push(...result.items);
    const last = result.rsm?.last;
    if (result.items.length === 0 || last === undefined) return { pages, items };
    expectThat(
      exchange.reply.xml,
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

/** Pages backward from the end (<before/> empty, then the previous page's <first/>) until a page is empty. */
export async function traverseBackward(
  caller: Caller,
  to: string,
  node: string | undefined,
  max: number,
  requirement: RequirementId,
): Promise<Traversal> {
  const pages: Page[] = [];
  const items: DiscoItem[] = [];
  let before = '';
  for (let n = 0; n < MAX_PAGES; n += 1) {
    const exchange = await discoItems(caller, to, node, { max, before });
    const result = expectDiscoItems(exchange, requirement);
    pages.push({ exchange, result });
    items.unshift(...result.items);
    const first = result.rsm?.first?.uid;
    if (result.items.length === 0 || first === undefined) return { pages, items };
    expectThat(exchange.reply.xml, requirement, `a page before ${before} that moves on`, first !== before);
    before = first;
  }
  throw new RequirementViolation(
    requirement,
    'a result set that ends',
    `still more pages after ${String(MAX_PAGES)}`,
  );
}

/** How many of `sorted` (ascending octets) sort before `key`: the position a UID not in the set takes. */
export function positionOf(sorted: readonly string[], key: string): number {
  return sorted.filter((item) => compareUtf8(item, key) < 0).length;
}

/** A readable list for expected/received texts. */
export function listing(values: readonly string[]): string {
  return values.length === 0 ? '(nothing)' : values.join('\n');
}
