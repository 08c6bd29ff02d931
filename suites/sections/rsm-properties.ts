/**
 * RSM and ordering properties (issue 14, item 6; XEP-0059, interp-14, interp-15): random page
 * sizes and random paths (forward from the start or from any UID, backward from the end or from
 * any UID, <index/>, max 0) over the directory and a tool collection, each page checked against
 * the visible set in UTF-8 octet order, which the oracle computes with Buffer.compare (not the
 * suite's comparator). The reference world's 﨎@agents.example and 𠀀@agents.example, and the
 * toolbox's non-ASCII tool names, sort one way by octets and another by UTF-16 code units.
 *
 * The paths come from context.random, so a failure replays from the printed seed; the number of
 * paths walked is noted in the transcript. Pages may be short (list-agents.short-pages), never
 * empty while items remain.
 */
import type { Caller } from '../../harness/driver/index.ts';
import { NODE_DIRECTORY } from '../../protocol/namespaces.ts';
import type { DiscoItem, RsmRequest } from '../../protocol/stanza/index.ts';
import { defineSuite, type Suite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { expectDiscoItems, expectStanzaError, expectThat } from '../framework/expect.ts';
import { MissingFixture } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import { callerFor, discoItems, listing, traverse } from './support/discovery.ts';

/** Random paths per case: small, so the default run stays within its budget (issue 14, item 8). */
const PATHS = 16;
/** Under --deep. */
const DEEP_PATHS = 400;

const octets = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** What one property run pages over. */
interface PagedSet {
  readonly caller: Caller;
  readonly to: string;
  readonly node: string | undefined;
  /** The visible set's RSM UIDs, in the order the spec requires. */
  readonly uids: readonly string[];
  /** An item's RSM UID. */
  readonly uidOf: (item: DiscoItem) => string;
  /** The sort key of a UID (a JID, a tool name), for UIDs outside the set. */
  readonly keyOf: (uid: string) => string;
  /** A UID outside the set that sorts at a random place. */
  readonly foreignUid: (context: CaseContext) => string;
  readonly requirement: RequirementId;
  readonly countRequirement: RequirementId;
}

/** One page: its UIDs in order; the count, when given, must be the set's size. */
async function page(context: CaseContext, set: PagedSet, rsm: RsmRequest, what: string) {
  const exchange = await discoItems(set.caller, set.to, set.node, rsm);
  if (rsm.index !== undefined && exchange.parsed.type === 'error') {
    // interp-14: <index/> may be unsupported.
    expectStanzaError(exchange, set.requirement, 'feature-not-implemented', context);
    return undefined;
  }
  const result = expectDiscoItems(exchange, set.requirement);
  const uids = result.items.map(set.uidOf);
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
      const uid = context.random.int(0, 2) === 0 ? set.foreignUid(context) : context.random.pick(uids);
      const key = set.keyOf(uid);
      const what = `<${kind}>${uid}</${kind}> max ${String(max)}`;
      const got = await page(
        context,
        set,
        kind === 'after' ? { max, after: uid } : { max, before: uid },
        what,
      );
      if (got === undefined) throw new Error('only <index/> may be unsupported');
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

async function walkPaths(context: CaseContext, set: PagedSet): Promise<void> {
  const walked: string[] = [];
  const paths = context.budget.iterations(PATHS, DEEP_PATHS);
  for (let path = 0; path < paths; path += 1) walked.push(await walk(context, set, path === 0));
  set.caller.transcript.note(
    `rsm-order: ${String(paths)} random paths over ${String(set.uids.length)} items (seed ${String(context.random.seed)}): ${walked.join('; ')}`,
  );
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

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
      const world = requireWorld(context);
      const caller = await callerFor(context, 'local');
      const uids = world
        .listedFor('local')
        .map((endpoint) => endpoint.jid)
        .toSorted(octets);
      if (uids.length < 3) {
        throw new MissingFixture('the local directory needs at least 3 endpoints to page over');
      }
      const tolerated = world.toleratedFor('local').map((endpoint) => endpoint.jid);
      if (tolerated.length > 0) {
        // interp-23 lets deactivated endpoints through: those the gateway lists belong to the set it pages.
        const full = await traverse(
          caller,
          context.sut.gatewayJid,
          NODE_DIRECTORY,
          50,
          'list-agents.rsm-paging',
        );
        uids.push(...full.items.map((item) => item.jid).filter((jid) => tolerated.includes(jid)));
        uids.sort(octets);
      }
      await walkPaths(context, {
        caller,
        to: context.sut.gatewayJid,
        node: NODE_DIRECTORY,
        uids,
        uidOf: (item) => item.jid,
        keyOf: (uid) => uid,
        foreignUid: (random) => `${random.random.string(LETTERS, 3)}@${context.sut.gatewayJid}`,
        requirement: 'list-agents.octet-order',
        countRequirement: 'list-agents.count-visible-only',
      });
    },
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
        caller: await callerFor(context, 'local'),
        to: endpoint.jid,
        node: manifest.collectionNode,
        uids,
        uidOf: (item) => item.node ?? '',
        keyOf: (uid) => byNode.get(uid) ?? uid,
        // Only UIDs of the set: a foreign tool node's position is the gateway's to decode.
        foreignUid: (random) => random.random.pick(uids),
        requirement: 'list-tools.name-byte-order',
        countRequirement: 'list-tools.rsm-paging',
      });
    },
  },
]);
