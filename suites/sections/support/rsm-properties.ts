/**
 * RSM and ordering properties (issue 14, item 6; XEP-0059, interp-13, interp-14, interp-15):
 * random page sizes and random paths (forward from the start or from any UID, backward from the
 * end or from any UID, <index/>, max 0) over the directory, a tool collection and the empty
 * search, each page checked against the visible set in UTF-8 octet order, which the oracle
 * computes with Buffer.compare (not the suite's comparator). The reference world's
 * 﨎@agents.example and 𠀀@agents.example, and the toolbox's non-ASCII tool names, sort one way by
 * octets and another by UTF-16 code units.
 *
 * Random worlds: where the administrator may provision, list-agents.rsm-random-world and
 * search.rsm-random-paths add seeded endpoints whose localparts come from scripts whose UTF-8,
 * UTF-16 and root-collation orders disagree (compatibility ideographs, CJK Extension B, CJK,
 * Hangul, Hiragana, ASCII; caseless and NFKC-stable, so every reading of JID preparation leaves
 * them alone) and remove them afterwards. Visibility stays the world's: grants are not part of
 * the provisioning protocol.
 *
 * The paths come from context.random, so a failure replays from the printed seed; the number of
 * paths walked is noted in the transcript. Pages may be short (list-agents.short-pages), never
 * empty while items remain.
 */
import fc from 'fast-check';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { NODE_DIRECTORY } from '../../../protocol/namespaces.ts';
import type { DiscoItem, RsmRequest, RsmResponse } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectDiscoItems, expectStanzaError, expectThat } from '../../framework/expect.ts';
import { MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { sampleOf } from './bad-input.ts';
import { discoInfo, discoItems, listing, orderIsUnambiguous, traverse } from './discovery.ts';
import { minimalManifest } from './manifests.ts';
import { adminFor, freshToken, freshVersion, provisionActive, type Restorer } from './provisioning.ts';

/** Random paths per case: small, so the default run stays within its budget (issue 14, item 8). */
export const PATHS = 16;
/** Under --deep. */
export const DEEP_PATHS = 400;

export const octets = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** One page as a result set gives it: its items' RSM UIDs in document order, and its <set/>. */
export interface ReadPage {
  readonly uids: readonly string[];
  readonly rsm: RsmResponse | undefined;
}

/** What one property run pages over. */
export interface PagedSet {
  /** Whose transcript gets the note. */
  readonly caller: Caller;
  /** Sends one page request. */
  readonly fetch: (rsm: RsmRequest) => Promise<IqExchange>;
  /** The page's UIDs and set, from a reply that must be a result. */
  readonly read: (exchange: IqExchange) => ReadPage;
  /** The visible set's RSM UIDs, in the order the spec requires. */
  readonly uids: readonly string[];
  /** The sort key of a UID (a JID, a tool name), for UIDs outside the set. */
  readonly keyOf: (uid: string) => string;
  /** A UID outside the set that sorts at a random place. */
  readonly foreignUid: (context: CaseContext) => string;
  readonly requirement: RequirementId;
  readonly countRequirement: RequirementId;
  /**
   * interp-13: <after/> or <before/> a UID outside the set may also get item-not-found (a warning)
   * where the UID is the sort key (directory, search).
   */
  readonly foreignNotFound?: boolean;
}

/** A disco#items collection (the directory, a tool collection) as a PagedSet's fetch and read. */
export function discoItemsPages(
  caller: Caller,
  to: string,
  node: string | undefined,
  requirement: RequirementId,
  uidOf: (item: DiscoItem) => string,
): Pick<PagedSet, 'caller' | 'fetch' | 'read'> {
  return {
    caller,
    fetch: (rsm) => discoItems(caller, to, node, rsm),
    read: (exchange) => {
      const result = expectDiscoItems(exchange, requirement);
      return { uids: result.items.map(uidOf), rsm: result.rsm };
    },
  };
}

/** One page: its UIDs in order; the count, when given, must be the set's size. */
export async function page(
  context: CaseContext,
  set: PagedSet,
  rsm: RsmRequest,
  what: string,
  foreign = false,
) {
  const exchange = await set.fetch(rsm);
  if (rsm.index !== undefined && exchange.parsed.type === 'error') {
    // interp-14: <index/> may be unsupported.
    expectStanzaError(exchange, set.requirement, 'feature-not-implemented', context);
    return undefined;
  }
  if (foreign && set.foreignNotFound === true && exchange.parsed.type === 'error') {
    expectStanzaError(exchange, set.requirement, 'item-not-found', context);
    context.warn(set.requirement, `${what}: a UID outside the set got item-not-found (interp-13)`);
    return undefined;
  }
  const result = set.read(exchange);
  const { uids } = result;
  const replyXml = exchange.reply.xml;
  const count = result.rsm?.count;
  if (count === undefined) {
    context.warn(set.countRequirement, `${what}: no <count/> (interp-14)`);
  } else {
    expectThat(
      replyXml,
      set.countRequirement,
      `${what}: <count>${String(set.uids.length)}</count>`,
      count === set.uids.length,
    );
  }
  if (uids.length > 0) {
    expectThat(
      replyXml,
      set.requirement,
      `${what}: <first>${String(uids[0])}</first> and <last>${String(uids.at(-1))}</last>`,
      result.rsm?.first?.uid === uids[0] && result.rsm?.last === uids.at(-1),
    );
  }
  return { uids, replyXml, firstIndex: result.rsm?.first?.index };
}

/** The page must be a non-empty-while-possible run of `slice` at its start (forward) or end (backward). */
export function expectRun(
  set: PagedSet,
  received: readonly string[],
  slice: readonly string[],
  max: number,
  from: 'start' | 'end',
  what: string,
  replyXml: string,
): void {
  const expected =
    from === 'start' ? slice.slice(0, received.length) : slice.slice(slice.length - received.length);
  expectThat(
    replyXml,
    set.requirement,
    `${what}: at most ${String(max)} items, at least one while any remain, taken in octet order from the ${from === 'start' ? 'start' : 'end'} of:\n${listing(slice)}\nreceived:\n${listing(received)}`,
    received.length <= max &&
      (received.length > 0 || slice.length === 0 || max === 0) &&
      received.every((uid, index) => uid === expected[index]),
  );
}

/** Walks one random path; returns a line for the transcript. */
export async function walk(context: CaseContext, set: PagedSet, first: boolean): Promise<string> {
  const { uids } = set;
  const n = uids.length;
  const max = context.random.int(1, n + 1);
  // The first path always walks the whole set, so every seed sees each pair of neighbours.
  const kind = first
    ? 'forward'
    : context.random.pick(['forward', 'backward', 'after', 'before', 'index', 'max0'] as const);
  switch (kind) {
    case 'forward':
    case 'backward': {
      const collected: string[] = [];
      let cursor = kind === 'forward' ? undefined : '';
      for (let pages = 0; pages <= n + 1; pages += 1) {
        const rsm: RsmRequest =
          kind === 'forward'
            ? { max, ...(cursor === undefined ? {} : { after: cursor }) }
            : { max, before: cursor ?? '' };
        const what = `${kind} max ${String(max)} page ${String(pages + 1)}`;
        const got = await page(context, set, rsm, what);
        if (got === undefined) throw new Error('only <index/> may be unsupported');
        const rest = kind === 'forward' ? uids.slice(collected.length) : uids.slice(0, n - collected.length);
        expectRun(set, got.uids, rest, max, kind === 'forward' ? 'start' : 'end', what, got.replyXml);
        if (got.uids.length === 0) return `${kind} max=${String(max)}: ${String(pages + 1)} pages`;
        if (kind === 'forward') collected.push(...got.uids);
        else collected.unshift(...got.uids);
        cursor = kind === 'forward' ? got.uids.at(-1) : got.uids[0];
      }
      throw new Error(`${kind} paging did not end within ${String(n + 2)} pages`);
    }
    case 'after':
    case 'before': {
      const foreign = context.random.int(0, 2) === 0;
      const uid = foreign ? set.foreignUid(context) : context.random.pick(uids);
      const key = set.keyOf(uid);
      const what = `<${kind}>${uid}</${kind}> max ${String(max)}`;
      const got = await page(
        context,
        set,
        kind === 'after' ? { max, after: uid } : { max, before: uid },
        what,
        foreign && !uids.includes(uid),
      );
      if (got === undefined) return `${kind} ${uid}: item-not-found`;
      const slice =
        kind === 'after'
          ? uids.filter((member) => octets(set.keyOf(member), key) > 0)
          : uids.filter((member) => octets(set.keyOf(member), key) < 0);
      expectRun(set, got.uids, slice, max, kind === 'after' ? 'start' : 'end', what, got.replyXml);
      return `${kind} ${uid} max=${String(max)}`;
    }
    case 'index': {
      const index = context.random.int(0, n + 1);
      const what = `<index>${String(index)}</index> max ${String(max)}`;
      const got = await page(context, set, { max, index }, what);
      if (got === undefined) return `index ${String(index)}: feature-not-implemented`;
      expectRun(set, got.uids, uids.slice(index), max, 'start', what, got.replyXml);
      if (got.uids.length > 0 && got.firstIndex !== undefined) {
        expectThat(
          got.replyXml,
          set.requirement,
          `${what}: <first index='${String(index)}'>`,
          got.firstIndex === index,
        );
      }
      return `index ${String(index)} max=${String(max)}`;
    }
    case 'max0': {
      const got = await page(context, set, { max: 0 }, 'max 0');
      if (got === undefined) throw new Error('only <index/> may be unsupported');
      expectThat(
        got.replyXml,
        set.requirement,
        'max 0: no item (interp-14), only the count',
        got.uids.length === 0,
      );
      return 'max=0';
    }
  }
}

export async function walkPaths(
  context: CaseContext,
  set: PagedSet,
  budget: readonly [number, number] = [PATHS, DEEP_PATHS],
): Promise<void> {
  const walked: string[] = [];
  const paths = context.budget.iterations(...budget);
  for (let path = 0; path < paths; path += 1) walked.push(await walk(context, set, path === 0));
  set.caller.transcript.note(
    `rsm-order: ${String(paths)} random paths over ${String(set.uids.length)} items (seed ${String(context.random.seed)}): ${walked.join('; ')}`,
  );
}

export const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The local caller's directory in octet order: what the world lists for it, the endpoints a case
 * added, and the deactivated ones interp-23 lets through that the gateway does list.
 */
export async function localDirectory(
  context: CaseContext,
  caller: Caller,
  added: readonly string[],
): Promise<string[]> {
  const world = requireWorld(context);
  const uids = [...world.listedFor('local').map((endpoint) => endpoint.jid), ...added].toSorted(octets);
  if (uids.length < 3) {
    throw new MissingFixture('the local directory needs at least 3 endpoints to page over');
  }
  const tolerated = world.toleratedFor('local').map((endpoint) => endpoint.jid);
  if (tolerated.length > 0) {
    const full = await traverse(caller, context.sut.gatewayJid, NODE_DIRECTORY, 50, 'list-agents.rsm-paging');
    uids.push(...full.items.map((item) => item.jid).filter((jid) => tolerated.includes(jid)));
    uids.sort(octets);
  }
  return uids;
}

/**
 * Letters every reading of JID preparation leaves alone (caseless Lo, NFKC-stable; interp-15)
 * from scripts whose UTF-8, UTF-16 and collation orders disagree: the twelve unified ideographs
 * of the compatibility block (U+FA0E…: above the surrogates in UTF-16, below 4-byte UTF-8),
 * CJK Extension B (4-byte UTF-8, surrogate pairs), CJK, Hangul syllables (after Hiragana and CJK
 * by code point, before them in the root collation), Hiragana, and ASCII.
 */
export const COMPAT_IDEOGRAPHS = [
  0xfa0e, 0xfa0f, 0xfa11, 0xfa13, 0xfa14, 0xfa1f, 0xfa21, 0xfa23, 0xfa24, 0xfa27, 0xfa28, 0xfa29,
];
export const ASCII_LOCALPART = 'abcdefghijklmnopqrstuvwxyz0123456789-._';
export const inRange = (from: number, to: number): fc.Arbitrary<string> =>
  fc.integer({ min: from, max: to }).map((codePoint) => String.fromCodePoint(codePoint));
export const SCRIPTS = {
  compat: fc.constantFrom(...COMPAT_IDEOGRAPHS).map((codePoint) => String.fromCodePoint(codePoint)),
  astral: inRange(0x20000, 0x2a6dd),
  cjk: inRange(0x4e00, 0x9fef),
  hangul: inRange(0xac00, 0xd7a3),
  hiragana: inRange(0x3041, 0x3096),
  ascii: fc.integer({ min: 0, max: ASCII_LOCALPART.length - 1 }).map((at) => ASCII_LOCALPART.charAt(at)),
} as const;

export function localpartOf(...scripts: fc.Arbitrary<string>[]): fc.Arbitrary<string> {
  return fc.array(fc.oneof(...scripts), { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
}

/** Whether preparation leaves `jid` exactly as it is (so its listed form is this string). */
export function stable(jid: string): boolean {
  try {
    return orderIsUnambiguous(jid) && normalizeBareJid(jid) === jid;
  } catch {
    return false;
  }
}

/**
 * `extra` random JIDs on the gateway's domain plus one from each script alone (so every world
 * has pairs that UTF-8 and UTF-16, and code points and the root collation, order differently),
 * none of them in the fixture world.
 */
export function randomWorldJids(context: CaseContext, extra: number): string[] {
  const domain = context.sut.gatewayJid;
  const taken = new Set(requireWorld(context).endpoints.map((endpoint) => endpoint.jid));
  const token = freshToken(context).slice(0, 3);
  const alone = [SCRIPTS.compat, SCRIPTS.astral, SCRIPTS.hangul, SCRIPTS.hiragana].map((script) =>
    localpartOf(script),
  );
  const mixed = localpartOf(...Object.values(SCRIPTS));
  const localparts = [
    ...alone.map((arbitrary) => sampleOf(context, arbitrary, 1)[0] ?? ''),
    ...sampleOf(context, mixed, extra),
  ];
  // The token keeps the JIDs apart from other runs' tombstones; a suffix of ASCII keeps every order trap.
  const jids = localparts.map((localpart) => `${localpart}${token}@${domain}`).filter(stable);
  return [...new Set(jids)].filter((jid) => !taken.has(jid));
}

/** How the three orders compare over `jids`, for the transcript: they must not all agree. */
export function orderDifferences(jids: readonly string[]): string {
  const byOctets = jids.toSorted(octets);
  const byUtf16 = jids.toSorted();
  const collator = new Intl.Collator('und');
  const byCollation = jids.toSorted((a, b) => collator.compare(a, b));
  const same = (a: readonly string[], b: readonly string[]): boolean =>
    a.every((jid, index) => jid === b[index]);
  return `octets ${same(byOctets, byUtf16) ? '=' : '≠'} UTF-16, octets ${same(byOctets, byCollation) ? '=' : '≠'} root collation`;
}

/**
 * Registers and activates the random endpoints as the administrator, all with the agent name
 * `name` (removed again by the restorer); the local caller must see them, or the case cannot tell.
 */
export async function provisionRandomWorld(
  context: CaseContext,
  restorer: Restorer,
  caller: Caller,
  extra: number,
  name = 'agentconf-rsm',
): Promise<string[]> {
  const admin = await adminFor(context);
  const jids = randomWorldJids(context, extra);
  for (const jid of jids) {
    const version = freshVersion(context);
    await provisionActive(restorer, admin, jid, version, minimalManifest(jid, version, name));
  }
  const [first] = jids;
  if (first !== undefined && (await discoInfo(caller, first)).parsed.type === 'error') {
    throw new MissingFixture(
      `the local caller may not see the provisioned ${first}: the deployment must show endpoints the administrator provisions to local callers for this case`,
    );
  }
  caller.transcript.note(
    `rsm-order: ${String(jids.length)} random endpoints provisioned (${orderDifferences(jids)}): ${jids.join(' ')}`,
  );
  return jids;
}

/** Random endpoints per world: one per script alone plus this many mixed (default, --deep). */
export const RANDOM_WORLD_EXTRA = [1, 24] as const;
/** Random paths over a random world (default, --deep). */
export const RANDOM_WORLD_PATHS = [10, 150] as const;
