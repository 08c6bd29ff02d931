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
import type { Caller, IqExchange } from '../../harness/driver/index.ts';
import { normalizeBareJid } from '../../protocol/jid/index.ts';
import { FEATURE, NODE_DIRECTORY, NS } from '../../protocol/namespaces.ts';
import type { DiscoItem, RsmRequest, RsmResponse } from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { expectDiscoItems, expectStanzaError, expectThat } from '../framework/expect.ts';
import { CannotTell, MissingFixture } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import { sampleOf } from './support/bad-input.ts';
import {
  callerFor,
  discoInfo,
  discoItems,
  listing,
  orderIsUnambiguous,
  traverse,
} from './support/discovery.ts';
import { minimalManifest } from './support/manifests.ts';
import {
  adminFor,
  freshToken,
  freshVersion,
  hasAdmin,
  provisionActive,
  withRestore,
  type Restorer,
} from './support/provisioning.ts';
import { readFound, searchForm, searchLegacy, searchWithForm } from './support/search.ts';

/** Random paths per case: small, so the default run stays within its budget (issue 14, item 8). */
const PATHS = 16;
/** Under --deep. */
const DEEP_PATHS = 400;

const octets = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** One page as a result set gives it: its items' RSM UIDs in document order, and its <set/>. */
interface ReadPage {
  readonly uids: readonly string[];
  readonly rsm: RsmResponse | undefined;
}

/** What one property run pages over. */
interface PagedSet {
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
function discoItemsPages(
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
async function page(context: CaseContext, set: PagedSet, rsm: RsmRequest, what: string, foreign = false) {
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
function expectRun(
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
async function walk(context: CaseContext, set: PagedSet, first: boolean): Promise<string> {
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

async function walkPaths(
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

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The local caller's directory in octet order: what the world lists for it, the endpoints a case
 * added, and the deactivated ones interp-23 lets through that the gateway does list.
 */
async function localDirectory(
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
const COMPAT_IDEOGRAPHS = [
  0xfa0e, 0xfa0f, 0xfa11, 0xfa13, 0xfa14, 0xfa1f, 0xfa21, 0xfa23, 0xfa24, 0xfa27, 0xfa28, 0xfa29,
];
const ASCII_LOCALPART = 'abcdefghijklmnopqrstuvwxyz0123456789-._';
const inRange = (from: number, to: number): fc.Arbitrary<string> =>
  fc.integer({ min: from, max: to }).map((codePoint) => String.fromCodePoint(codePoint));
const SCRIPTS = {
  compat: fc.constantFrom(...COMPAT_IDEOGRAPHS).map((codePoint) => String.fromCodePoint(codePoint)),
  astral: inRange(0x20000, 0x2a6dd),
  cjk: inRange(0x4e00, 0x9fef),
  hangul: inRange(0xac00, 0xd7a3),
  hiragana: inRange(0x3041, 0x3096),
  ascii: fc.integer({ min: 0, max: ASCII_LOCALPART.length - 1 }).map((at) => ASCII_LOCALPART.charAt(at)),
} as const;

function localpartOf(...scripts: fc.Arbitrary<string>[]): fc.Arbitrary<string> {
  return fc.array(fc.oneof(...scripts), { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
}

/** Whether preparation leaves `jid` exactly as it is (so its listed form is this string). */
function stable(jid: string): boolean {
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
function randomWorldJids(context: CaseContext, extra: number): string[] {
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
function orderDifferences(jids: readonly string[]): string {
  const byOctets = jids.toSorted(octets);
  const byUtf16 = jids.toSorted();
  const collator = new Intl.Collator('und');
  const byCollation = jids.toSorted((a, b) => collator.compare(a, b));
  const same = (a: readonly string[], b: readonly string[]): boolean =>
    a.every((jid, index) => jid === b[index]);
  return `octets ${same(byOctets, byUtf16) ? '=' : '≠'} UTF-16, octets ${same(byOctets, byCollation) ? '=' : '≠'} root collation`;
}

/**
 * Registers and activates the random endpoints as the administrator (removed again by the
 * restorer); the local caller must see them, or the case cannot tell.
 */
async function provisionRandomWorld(
  context: CaseContext,
  restorer: Restorer,
  caller: Caller,
  extra: number,
): Promise<string[]> {
  const admin = await adminFor(context);
  const jids = randomWorldJids(context, extra);
  for (const jid of jids) {
    const version = freshVersion(context);
    await provisionActive(restorer, admin, jid, version, minimalManifest(jid, version, 'agentconf-rsm'));
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
const RANDOM_WORLD_EXTRA = [1, 24] as const;
/** Random paths over a random world (default, --deep). */
const RANDOM_WORLD_PATHS = [10, 150] as const;

export const listAgentsRsmProperties: Suite = defineSuite('list-agents', 'Listing Agent Endpoints', [
  {
    id: 'list-agents.rsm-random-paths',
    scenario: 'rsm-order',
    requirements: ['list-agents.rsm-paging', 'list-agents.octet-order', 'list-agents.count-visible-only'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14', 'interp-15'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any JID or none, index, max 0), every directory page is the visible set in UTF-8 octet order from where it starts, the pages of a walk add up to exactly that set, and every count is its size.',
    run: async (context) => {
      const caller = await callerFor(context, 'local');
      const uids = await localDirectory(context, caller, []);
      await walkPaths(context, {
        ...discoItemsPages(
          caller,
          context.sut.gatewayJid,
          NODE_DIRECTORY,
          'list-agents.octet-order',
          (item) => item.jid,
        ),
        uids,
        keyOf: (uid) => uid,
        foreignUid: (random) => `${random.random.string(LETTERS, 3)}@${context.sut.gatewayJid}`,
        requirement: 'list-agents.octet-order',
        countRequirement: 'list-agents.count-visible-only',
        foreignNotFound: true,
      });
    },
  },
  {
    id: 'list-agents.rsm-random-world',
    scenario: 'rsm-order',
    requirements: ['list-agents.octet-order', 'list-agents.rsm-paging', 'list-agents.count-visible-only'],
    profiles: ['core-directory'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-13', 'interp-14', 'interp-15'],
    statement:
      'With random endpoints provisioned for the case — JIDs of compatibility ideographs, CJK Extension B, CJK, Hangul, Hiragana and ASCII, whose UTF-8, UTF-16 and collation orders disagree — random paths over the directory find them in UTF-8 octet order among the world’s endpoints, with exact counts; they are removed afterwards.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const caller = await callerFor(context, 'local');
        const added = await provisionRandomWorld(
          context,
          restorer,
          caller,
          context.budget.iterations(...RANDOM_WORLD_EXTRA),
        );
        const uids = await localDirectory(context, caller, added);
        await walkPaths(
          context,
          {
            ...discoItemsPages(
              caller,
              context.sut.gatewayJid,
              NODE_DIRECTORY,
              'list-agents.octet-order',
              (item) => item.jid,
            ),
            uids,
            keyOf: (uid) => uid,
            // Just after a random endpoint in octet order, where UTF-16 and octets may disagree.
            foreignUid: (caseContext) => {
              const jid = caseContext.random.pick(added.length > 0 ? added : uids);
              return `${jid.slice(0, jid.indexOf('@'))}x@${context.sut.gatewayJid}`;
            },
            requirement: 'list-agents.octet-order',
            countRequirement: 'list-agents.count-visible-only',
            foreignNotFound: true,
          },
          RANDOM_WORLD_PATHS,
        );
      }),
  },
]);

export const listToolsRsmProperties: Suite = defineSuite('list-tools', 'Listing Tools', [
  {
    id: 'list-tools.rsm-random-paths',
    scenario: 'rsm-order',
    requirements: ['list-tools.rsm-paging', 'list-tools.name-byte-order'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any tool node, index, max 0), every page of the tool collection with the most tools is its tools in UTF-8 octet order of their names, the pages of a walk add up to exactly them, and every count is their number.',
    run: async (context) => {
      const world = requireWorld(context);
      const candidates = world.listedFor('local').filter((endpoint) => endpoint.active !== undefined);
      const endpoint = candidates.toSorted(
        (a, b) => (b.active?.tools.length ?? 0) - (a.active?.tools.length ?? 0),
      )[0];
      const manifest = endpoint?.active;
      if (endpoint === undefined || manifest === undefined || manifest.tools.length < 3) {
        throw new MissingFixture('the local caller needs an endpoint with at least 3 tools to page over');
      }
      const byNode = new Map(manifest.tools.map((tool) => [tool.node, tool.name]));
      const uids = manifest.tools.toSorted((a, b) => octets(a.name, b.name)).map((tool) => tool.node);
      await walkPaths(context, {
        ...discoItemsPages(
          await callerFor(context, 'local'),
          endpoint.jid,
          manifest.collectionNode,
          'list-tools.name-byte-order',
          (item) => item.node ?? '',
        ),
        uids,
        keyOf: (uid) => byNode.get(uid) ?? uid,
        // Only UIDs of the set: a foreign tool node's position is the gateway's to decode.
        foreignUid: (random) => random.random.pick(uids),
        requirement: 'list-tools.name-byte-order',
        countRequirement: 'list-tools.rsm-paging',
      });
    },
  },
]);

export const searchRsmProperties: Suite = defineSuite('search', 'Agent Directory Search', [
  {
    id: 'search.rsm-random-paths',
    scenario: 'rsm-order',
    requirements: ['search.octet-order', 'search.visibility-filter'],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-18'],
    statement:
      'Over random page sizes and random paths (forward, backward, after and before any JID or none, index, max 0), every page of the empty search is the local directory in UTF-8 octet order from where it starts, with exact counts — with random endpoints whose UTF-8, UTF-16 and collation orders disagree provisioned for the case where the administrator may (removed afterwards).',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const caller = await callerFor(context, 'local');
        const gateway = context.sut.gatewayJid;
        const added = hasAdmin(context)
          ? await provisionRandomWorld(
              context,
              restorer,
              caller,
              context.budget.iterations(...RANDOM_WORLD_EXTRA),
            )
          : [];
        const uids = await localDirectory(context, caller, added);
        const { offer } = await searchForm(caller, gateway, 'search.octet-order');
        const fetch = (rsm: RsmRequest): Promise<IqExchange> =>
          offer.form === undefined
            ? searchLegacy(caller, gateway, {}, rsm)
            : searchWithForm(caller, gateway, {}, rsm);
        const probe = await fetch({ max: 1 });
        if (probe.parsed.type === 'error' || readFound(probe, 'search.octet-order').jids.length === 0) {
          if (probe.parsed.type === 'error')
            expectStanzaError(probe, 'search.octet-order', 'not-acceptable', context);
          throw new CannotTell(
            'an empty search lists nothing (interp-18 allows it): no result set is known to hold the whole directory, so its paging cannot be walked',
          );
        }
        await walkPaths(
          context,
          {
            caller,
            fetch,
            read: (exchange) => {
              const found = readFound(exchange, 'search.octet-order');
              return { uids: found.jids, rsm: found.results.rsm };
            },
            uids,
            keyOf: (uid) => uid,
            foreignUid: (random) => `${random.random.string(LETTERS, 3)}@${gateway}`,
            requirement: 'search.octet-order',
            countRequirement: 'search.visibility-filter',
            foreignNotFound: true,
          },
          added.length > 0 ? RANDOM_WORLD_PATHS : [PATHS, DEEP_PATHS],
        );
      }),
  },
]);
