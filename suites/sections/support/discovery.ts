/**
 * What the discovery suites share: one XEP-0030 query as an exchange, the caller of a role, and
 * XEP-0059 traversals that page until the set ends — never expecting full pages, since a gateway
 * may enforce a page maximum smaller than asked (#list-agents; list-agents.short-pages).
 */
import { xml, type Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { NS } from '../../../protocol/namespaces.ts';
import { compareUtf8 } from '../../../protocol/jid/index.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  type DiscoItem,
  type DiscoItems,
  type RsmRequest,
} from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoItems,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import type { CallerRole, FixtureEndpoint, ReferenceWorld } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

export function callerFor(context: CaseContext, role: CallerRole): Promise<Caller> {
  return context.callers[role]();
}

/**
 * A role whose grants let it see `endpoint`: who runs the positive control of a case that
 * passes on another role getting item-not-found for it (the same request, authorized, must
 * succeed). MissingFixture when no role of the world may see it.
 */
export function roleThatMaySee(
  world: ReferenceWorld,
  endpoint: FixtureEndpoint,
  roles: readonly CallerRole[] = ['local', 'remote', 'remotePeer'],
): CallerRole {
  const role = roles.find((candidate) => world.maySee(candidate, endpoint));
  if (role === undefined) {
    throw new MissingFixture(
      `no caller role of the fixture world may see ${endpoint.jid}, so nothing shows that its refusals are not a refusal of everything: grant one of ${roles.join(', ')} visibility`,
    );
  }
  return role;
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

/**
 * Whether every reading of RFC 7622 preparation leaves `jid` as it is, so that its octet order is
 * not a matter of interpretation (interp-15): printable ASCII without upper case, and non-ASCII
 * only as caseless letters (Lo) and digits (Nd) that NFKC leaves alone — no case mapping, width
 * mapping or normalization can move it. U+FA0E and U+20000 are such letters; their UTF-8 and
 * UTF-16 orders differ.
 */
export function orderIsUnambiguous(jid: string): boolean {
  return (
    /^(?:[\x21-\x7e]|\p{Lo}|\p{Nd})*$/u.test(jid) &&
    jid === jid.toLowerCase() &&
    jid === jid.normalize('NFKC')
  );
}

/** A readable list for expected/received texts. */
export function listing(values: readonly string[]): string {
  return values.length === 0 ? '(nothing)' : values.join('\n');
}

/** A disco#items request whose RSM set carries `max` and `index` as written, valid or not. */
function rawRsmItemsRequest(node: string | undefined, max: string, index?: string): Element {
  return xml(
    'query',
    node === undefined ? { xmlns: NS.discoItems } : { xmlns: NS.discoItems, node },
    xml(
      'set',
      { xmlns: NS.rsm },
      xml('max', {}, max),
      index === undefined ? undefined : xml('index', {}, index),
    ),
  );
}

/**
 * Invalid RSM values (XEP-0059, interp-14), after the same request with valid ones got a page
 * (the positive control):
 * - `<max/>` or `<index/>` that is not an integer (XEP-0059's schema types them xs:int) or is
 *   negative: XEP-0059 names no answer, so an error or a page both pass; a page is a warning
 *   (RFC 6120 gives bad-request for a value that breaks an element's syntax), and so is an error
 *   other than bad-request (or feature-not-implemented for `<index/>`, which may be unsupported).
 * - `<index/>` at or past the end of the set: XEP-0059 says the page MUST be empty;
 *   feature-not-implemented is allowed where index is not supported.
 */
export async function expectInvalidRsmHandled(
  context: CaseContext,
  caller: Caller,
  to: string,
  node: string | undefined,
  count: number,
  requirement: RequirementId,
): Promise<void> {
  const send = (max: string, index?: string): Promise<IqExchange> =>
    caller.exchangeIq(to, 'get', rawRsmItemsRequest(node, max, index));
  requirePositiveControl(await send('2'), `a page of at most 2 items of ${node ?? to}`);
  const malformed: readonly (readonly [string, string | undefined])[] = [
    ['ten', undefined],
    ['1.5', undefined],
    ['-1', undefined],
    ['2', 'first'],
    ['2', '-1'],
  ];
  for (const [max, index] of malformed) {
    const what = `<max>${max}</max>${index === undefined ? '' : `<index>${index}</index>`}`;
    const exchange = await send(max, index);
    if (exchange.parsed.type === 'result') {
      expectDiscoItems(exchange, requirement);
      context.warn(requirement, `${what} got a page rather than bad-request (interp-14)`);
      continue;
    }
    expectStanzaError(exchange, requirement, exchange.parsed.error.condition, context);
    const expected = index === undefined ? ['bad-request'] : ['bad-request', 'feature-not-implemented'];
    if (!expected.includes(exchange.parsed.error.condition)) {
      context.warn(
        requirement,
        `${what} got <${exchange.parsed.error.condition}/>; RFC 6120 gives bad-request for a value that breaks the element's syntax (interp-14)`,
      );
    }
  }
  for (const index of [count, count + 5]) {
    const exchange = await send('2', String(index));
    if (exchange.parsed.type === 'error') {
      expectStanzaError(exchange, requirement, 'feature-not-implemented', context);
      continue;
    }
    const page = expectDiscoItems(exchange, requirement);
    expectThat(
      exchange.reply.xml,
      requirement,
      `an empty page (no item, no <first/>) for <index>${String(index)}</index> of a set of ${String(count)} (XEP-0059: MUST return an empty page), or feature-not-implemented`,
      page.items.length === 0 && page.rsm?.first === undefined,
    );
  }
}
