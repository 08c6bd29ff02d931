/**
 * #list-agents: the directory as disco#items at the gateway, with or without the directory node;
 * items that are bare endpoint JIDs without nodes; the directory node's disco#info; and XEP-0059
 * paging in ascending octet order of the normalized JIDs, with every edge interp-13 and interp-14
 * settle (max 0, empty <before/>, <index/>, requests without a set, UIDs outside the visible set).
 *
 * What a caller must see comes from the fixture world's grants (suites/fixtures), per role:
 * hidden endpoints leave no trace, and a UID naming one pages exactly like a UID naming nothing.
 */
import type { Caller } from '../../../harness/driver/index.ts';
import { compareUtf8, JidError, normalizeBareJid, parseBareJid } from '../../../protocol/jid/index.ts';
import { IDENTITY_CATEGORY, IDENTITY_TYPE, NODE_DIRECTORY, NS } from '../../../protocol/namespaces.ts';
import type { DiscoItem } from '../../../protocol/stanza/index.ts';
import { defineSuite, type CaseDeclaration, type CaseId } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectDiscoInfo,
  expectDiscoItems,
  expectFeatures,
  expectIdentity,
  expectIndistinguishable,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
  type ComparedReply,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld, type CallerRole, type ReferenceWorld } from '../../fixtures/reference-world.ts';
import {
  callerFor,
  discoInfo,
  discoItems,
  expectInvalidRsmHandled,
  listing,
  orderIsUnambiguous,
  positionOf,
  traverse,
  traverseBackward,
} from '../support/discovery.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { rsmPropertyCases } from './rsm-properties.ts';
import { modelCases } from './model-checks.ts';

/** The normalized JIDs of directory items; an item that is not a bare JID violates `requirement`. */
function itemJids(items: readonly DiscoItem[], requirement: RequirementId, replyXml: string): string[] {
  return items.map((item) => {
    try {
      parseBareJid(item.jid);
      return normalizeBareJid(item.jid);
    } catch (error) {
      if (!(error instanceof JidError)) throw error;
      throw new RequirementViolation(
        requirement,
        `an item whose jid is an endpoint's bare JID, not ${JSON.stringify(item.jid)} (${error.rule})`,
        replyXml,
      );
    }
  });
}

/** The whole directory as `role` sees it, paged `max` at a time. */
async function directoryOf(context: CaseContext, role: CallerRole, max: number, requirement: RequirementId) {
  const caller = await callerFor(context, role);
  const traversal = await traverse(caller, context.sut.gatewayJid, NODE_DIRECTORY, max, requirement);
  const lastXml = traversal.pages.at(-1)?.exchange.reply.xml ?? '';
  return { caller, traversal, jids: itemJids(traversal.items, requirement, lastXml), lastXml };
}

/**
 * The listing must be exactly what the role may see: its active visible endpoints, plus any
 * deactivated visible ones, which interp-23 lets through with a warning.
 */
function expectListing(
  jids: readonly string[],
  requirement: RequirementId,
  world: ReferenceWorld,
  role: CallerRole,
  context: CaseContext,
): void {
  const listed = world.listedFor(role).map((endpoint) => endpoint.jid);
  const tolerated = world.toleratedFor(role).map((endpoint) => endpoint.jid);
  const shown = jids.filter((jid) => !tolerated.includes(jid));
  expectThat(
    listing(jids),
    requirement,
    `the ${role} caller (${world.jidOf(role)}) sees exactly:\n${listing(listed)}`,
    shown.length === listed.length && listed.every((jid) => shown.includes(jid)),
  );
  const inactive = jids.filter((jid) => tolerated.includes(jid));
  if (inactive.length > 0) {
    context.warn(requirement, `the listing shows deactivated endpoints: ${inactive.join(', ')} (interp-23)`);
  }
}

/** The local caller's full listing, for the paging edge cases; they need a few endpoints to page over. */
async function localDirectory(context: CaseContext): Promise<{ caller: Caller; jids: string[] }> {
  const { caller, jids } = await directoryOf(context, 'local', 50, 'list-agents.rsm-paging');
  if (jids.length < 3) {
    throw new MissingFixture(
      `the paging edges need at least 3 endpoints in the local directory, not ${String(jids.length)}: give the local caller more to see`,
    );
  }
  return { caller, jids };
}

/**
 * A page asked for after (or before) a UID must be the visible items from the UID's octet
 * position on (or up to it): never empty while items remain, possibly shorter than asked.
 */
function expectPositionedPage(
  received: readonly string[],
  full: readonly string[],
  key: string,
  direction: 'after' | 'before',
  replyXml: string,
): void {
  const position = positionOf(full, key) + (direction === 'after' && full.includes(key) ? 1 : 0);
  const rest = direction === 'after' ? full.slice(position) : full.slice(0, position);
  const fits =
    direction === 'after'
      ? received.every((jid, index) => jid === rest[index])
      : received.every((jid, index) => jid === rest[rest.length - received.length + index]);
  expectThat(
    replyXml,
    'list-agents.rsm-paging',
    `the visible endpoints ${direction} ${key} in octet order (a page may be shorter than asked, not empty):\n${listing(rest)}`,
    fits && (rest.length === 0 || received.length > 0),
  );
}

/**
 * Pages from UIDs outside the caller's visible set that share one gap of it (interp-13): all
 * positioned there, or all item-not-found (a warning), and indistinguishable (interp-19).
 */
async function expectSameGapPaging(
  context: CaseContext,
  caller: Caller,
  full: readonly string[],
  keys: readonly string[],
  labels: readonly string[],
): Promise<void> {
  // The positive control: paging from a JID in the set gives a page, so an item-not-found for
  // the keys outside it is not an item-not-found for every UID.
  const [inSet] = full;
  if (inSet === undefined) throw new MissingFixture('the caller sees no endpoint to page from');
  for (const direction of ['after', 'before'] as const) {
    const rsm = direction === 'after' ? { max: 2, after: inSet } : { max: 2, before: inSet };
    requirePositiveControl(
      await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, rsm),
      `a directory page ${direction} ${inSet}, which the caller sees`,
    );
  }
  for (const direction of ['after', 'before'] as const) {
    const replies: ComparedReply[] = [];
    for (const [index, key] of keys.entries()) {
      const rsm = direction === 'after' ? { max: 2, after: key } : { max: 2, before: key };
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, rsm);
      replies.push({ label: `${direction} ${labels[index] ?? key}`, exchange, to: context.sut.gatewayJid });
      if (exchange.parsed.type === 'error') {
        expectStanzaError(exchange, 'list-agents.rsm-paging', 'item-not-found', context);
        context.warn(
          'list-agents.rsm-paging',
          `a UID outside the visible set (${direction} ${key}) gets item-not-found (interp-13)`,
        );
      } else {
        const result = expectDiscoItems(exchange, 'list-agents.rsm-paging');
        expectPositionedPage(
          itemJids(result.items, 'list-agents.rsm-paging', exchange.reply.xml),
          full,
          key,
          direction,
          exchange.reply.xml,
        );
      }
    }
    const [first, second, ...rest] = replies;
    if (first !== undefined && second !== undefined) {
      expectIndistinguishable([first, second, ...rest], 'errors.not-found-equivalence', context);
    }
  }
}

function directoryNodeInfoCase(
  role: 'local' | 'remote',
  id: CaseId<'list-agents'>,
  statement: string,
): CaseDeclaration<'list-agents'> {
  return {
    id,
    requirements: ['list-agents.directory-node-info'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement,
    run: async (context) => {
      const caller = await callerFor(context, role);
      const exchange = await discoInfo(caller, context.sut.gatewayJid, NODE_DIRECTORY);
      const info = expectDiscoInfo(exchange, 'list-agents.directory-node-info');
      expectIdentity(
        info,
        'list-agents.directory-node-info',
        IDENTITY_CATEGORY,
        IDENTITY_TYPE.directory,
        exchange.reply.xml,
      );
      expectFeatures(
        info,
        'list-agents.directory-node-info',
        [NS.discoInfo, NS.discoItems],
        exchange.reply.xml,
      );
    },
  };
}

function visibilityCase(
  roles: readonly CallerRole[],
  id: CaseId<'list-agents'>,
  statement: string,
  extra: readonly RequirementId[] = [],
): CaseDeclaration<'list-agents'> {
  return {
    id,
    requirements: ['list-agents.visibility-filter', 'privacy.explicit-visibility-policy', ...extra],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-23'],
    statement,
    run: async (context: CaseContext) => {
      const world = requireWorld(context);
      if (roles.some((role) => world.listedFor(role).length === 0)) {
        // The positive control of an empty listing: the local caller's directory is not empty.
        const { jids } = await directoryOf(context, 'local', 10, 'list-agents.visibility-filter');
        if (jids.length === 0) {
          throw new CannotTell(
            'the positive control failed: the local caller’s directory is empty too, so an empty directory shows nothing',
          );
        }
      }
      for (const role of roles) {
        const { jids } = await directoryOf(context, role, 2, 'list-agents.visibility-filter');
        expectListing(jids, 'list-agents.visibility-filter', world, role, context);
      }
    },
  };
}

export const listAgentsSuite = defineSuite('list-agents', 'Listing Agent Endpoints', { alongside: true }, [
  {
    id: 'list-agents.node-optional',
    requirements: ['list-agents.node-optional'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'The directory answers a disco#items query with and without the directory node, listing the same items either way.',
    run: async (context) => {
      const caller = await context.callers.local();
      const max = context.random.int(1, 3);
      const withNode = await traverse(
        caller,
        context.sut.gatewayJid,
        NODE_DIRECTORY,
        max,
        'list-agents.node-optional',
      );
      const withoutNode = await traverse(
        caller,
        context.sut.gatewayJid,
        undefined,
        max,
        'list-agents.node-optional',
      );
      const describe = (items: readonly DiscoItem[]): string =>
        listing(items.map((item) => `${item.jid}${item.name === undefined ? '' : ` (${item.name})`}`));
      expectThat(
        describe(withoutNode.items),
        'list-agents.node-optional',
        `the items of the directory node:\n${describe(withNode.items)}`,
        describe(withNode.items) === describe(withoutNode.items),
      );
    },
  },
  {
    id: 'list-agents.item-bare-jid',
    requirements: ['list-agents.item-jid', 'namespaces.no-resourcepart', 'addressing.endpoint-bare-jid'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'Every directory item carries an endpoint’s bare JID, with no resource, to local and federated callers.',
    run: async (context) => {
      for (const role of ['local', 'remote'] as const)
        await directoryOf(context, role, 3, 'list-agents.item-jid');
    },
  },
  {
    id: 'list-agents.item-no-node',
    requirements: ['list-agents.item-no-node'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'No directory item carries a node: each endpoint is an entity of its own.',
    run: async (context) => {
      for (const role of ['local', 'remote'] as const) {
        const { traversal, lastXml } = await directoryOf(context, role, 3, 'list-agents.item-no-node');
        const withNode = traversal.items.filter((item) => item.node !== undefined);
        expectThat(
          `${listing(withNode.map((item) => `${item.jid} node=${item.node ?? ''}`))}\n${lastXml}`,
          'list-agents.item-no-node',
          'items without a node attribute',
          withNode.length === 0,
        );
      }
    },
  },
  {
    id: 'list-agents.item-names',
    requirements: ['list-agents.item-name'],
    profiles: ['core-directory'],
    level: 'SHOULD',
    statement: 'Directory items carry a human-readable name.',
    run: async (context) => {
      const { traversal } = await directoryOf(context, 'local', 3, 'list-agents.item-name');
      const unnamed = traversal.items.filter((item) => (item.name ?? '').trim() === '');
      if (unnamed.length > 0) {
        context.warn(
          'list-agents.item-name',
          `items without a name: ${unnamed.map((item) => item.jid).join(', ')}`,
        );
      }
    },
  },
  directoryNodeInfoCase(
    'local',
    'list-agents.directory-node-info-local',
    'The directory node answers disco#info with identity automation/agent-directory and the disco#info and disco#items features, to a local caller.',
  ),
  directoryNodeInfoCase(
    'remote',
    'list-agents.directory-node-info-federated',
    'The directory node answers disco#info with identity automation/agent-directory and the disco#info and disco#items features, to a federated caller.',
  ),
  ...(
    [
      ['local', 'list-agents.octet-order-local'],
      ['remote', 'list-agents.octet-order-federated'],
    ] as const
  ).map(([role, id]): CaseDeclaration<'list-agents'> => ({
    id,
    requirements: ['list-agents.octet-order', 'namespaces.jid-comparison'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-02', 'interp-15'],
    statement: `Directory pages come in ascending octet order of the normalized bare JIDs across the whole traversal, each page’s <first/> and <last/> being exactly its first and last item’s JID (${role === 'local' ? 'local' : 'federated'} caller).`,
    run: async (context: CaseContext) => {
      const { traversal, jids } = await directoryOf(
        context,
        role,
        context.random.int(1, 3),
        'list-agents.octet-order',
      );
      const sorted = jids.toSorted(compareUtf8);
      const ascending = jids.every(
        (jid, index) => index === 0 || compareUtf8(jids[index - 1] ?? '', jid) < 0,
      );
      if (!ascending) {
        // interp-15: only JIDs that every reading of preparation leaves alone make the order a
        // MUST-level check (lower-case ASCII, and caseless NFKC-stable letters such as U+FA0E).
        if (!jids.every(orderIsUnambiguous)) {
          context.warn(
            'list-agents.octet-order',
            `non-ASCII or mixed-case JIDs out of octet order: ${jids.join(', ')}`,
          );
        } else {
          throw new RequirementViolation(
            'list-agents.octet-order',
            `ascending octet order:\n${listing(sorted)}`,
            listing(jids),
          );
        }
      }
      for (const { result, exchange } of traversal.pages) {
        if (result.items.length === 0) continue;
        expectThat(
          exchange.reply.xml,
          'list-agents.octet-order',
          '<first/> and <last/> that are exactly the JIDs of the page’s first and last items',
          result.rsm?.first?.uid === result.items[0]?.jid && result.rsm?.last === result.items.at(-1)?.jid,
        );
      }
    },
  })),
  visibilityCase(
    ['local'],
    'list-agents.visibility-filter-local',
    'A local caller’s directory lists exactly the active endpoints its grants let it see: hidden ones leave no item.',
  ),
  visibilityCase(
    ['remote', 'remotePeer'],
    'list-agents.visibility-filter-federated',
    'Federated callers’ directories list exactly what their principal or domain grants let them see (a hidden endpoint only for the grant that names it).',
    ['rules.uniform-visibility'],
  ),
  visibilityCase(
    ['denied'],
    'list-agents.visibility-filter-denied',
    'A caller from a domain with no grants gets an empty directory (deny by default).',
    ['security.federation-deny-default'],
  ),
  {
    id: 'list-agents.count-visible-only',
    requirements: ['list-agents.count-visible-only'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14', 'interp-23'],
    statement:
      'The RSM count of the directory, asked with max 0 and on every page, is the number of endpoints that caller sees: local, federated and denied callers alike.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['local', 'remote', 'remotePeer', 'denied'] as const) {
        const { caller, traversal, jids } = await directoryOf(
          context,
          role,
          2,
          'list-agents.count-visible-only',
        );
        const visible = world.listedFor(role).length + world.toleratedFor(role).length;
        expectThat(
          listing(jids),
          'list-agents.count-visible-only',
          `at most the ${String(visible)} endpoints the ${role} caller may see`,
          jids.length <= visible,
        );
        const countOnly = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, { max: 0 });
        const pages = [
          ...traversal.pages,
          { exchange: countOnly, result: expectDiscoItems(countOnly, 'list-agents.count-visible-only') },
        ];
        for (const { result, exchange } of pages) {
          const count = result.rsm?.count;
          if (count === undefined) {
            context.warn('list-agents.count-visible-only', `a ${role} page without <count/> (interp-14)`);
            continue;
          }
          expectThat(
            exchange.reply.xml,
            'list-agents.count-visible-only',
            `<count>${String(jids.length)}</count>: the endpoints the ${role} caller (${world.jidOf(role)}) sees`,
            count === jids.length,
          );
        }
      }
    },
  },
  {
    id: 'list-agents.max-zero',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement: 'A directory request with max 0 gets no items and no <first/> or <last/>: at most the count.',
    run: async (context) => {
      const caller = await context.callers.local();
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, { max: 0 });
      const result = expectDiscoItems(exchange, 'list-agents.rsm-paging');
      expectThat(
        exchange.reply.xml,
        'list-agents.rsm-paging',
        'no <item/>, no <first/>, no <last/>',
        result.items.length === 0 && result.rsm?.first === undefined && result.rsm?.last === undefined,
      );
    },
  },
  {
    id: 'list-agents.empty-before-last-page',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement: 'An empty <before/> asks for the last page: it ends with the last endpoint of the directory.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const max = context.random.int(1, jids.length - 1);
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, { max, before: '' });
      const received = itemJids(
        expectDiscoItems(exchange, 'list-agents.rsm-paging').items,
        'list-agents.rsm-paging',
        exchange.reply.xml,
      );
      const tail = jids.slice(jids.length - received.length);
      expectThat(
        exchange.reply.xml,
        'list-agents.rsm-paging',
        `the last page of at most ${String(max)} endpoints, ending with ${jids.at(-1) ?? ''}`,
        received.length > 0 && received.length <= max && received.every((jid, index) => jid === tail[index]),
      );
    },
  },
  {
    id: 'list-agents.before-pages-backward',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'Paging backward from the last page with <before/> set to each page’s <first/> yields the same directory as paging forward.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const backward = await traverseBackward(
        caller,
        context.sut.gatewayJid,
        NODE_DIRECTORY,
        context.random.int(1, 2),
        'list-agents.rsm-paging',
      );
      const received = itemJids(
        backward.items,
        'list-agents.rsm-paging',
        backward.pages.at(-1)?.exchange.reply.xml ?? '',
      );
      expectThat(
        listing(received),
        'list-agents.rsm-paging',
        listing(jids),
        received.join('\n') === jids.join('\n'),
      );
    },
  },
  {
    id: 'list-agents.index',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement: 'An <index/> request returns the page starting at that position, or feature-not-implemented.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const index = context.random.int(1, jids.length - 1);
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, { max: 2, index });
      if (exchange.parsed.type === 'error') {
        expectStanzaError(exchange, 'list-agents.rsm-paging', 'feature-not-implemented', context);
        return;
      }
      const result = expectDiscoItems(exchange, 'list-agents.rsm-paging');
      const received = itemJids(result.items, 'list-agents.rsm-paging', exchange.reply.xml);
      const from = jids.slice(index);
      expectThat(
        exchange.reply.xml,
        'list-agents.rsm-paging',
        `items from position ${String(index)}: ${listing(from.slice(0, 2))}`,
        received.length > 0 &&
          received.every((jid, position) => jid === from[position]) &&
          (result.rsm?.first?.index === undefined || result.rsm.first.index === index),
      );
    },
  },
  {
    id: 'list-agents.rsm-invalid-values',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'A directory request whose <max/> or <index/> is not an integer (ten, 1.5, first) or negative gets bad-request (a page or another error is a warning: XEP-0059 names no answer); an <index/> at or past the end of the directory gets an empty page or feature-not-implemented, never items — after the same request with valid values got a page.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      await expectInvalidRsmHandled(
        context,
        caller,
        context.sut.gatewayJid,
        NODE_DIRECTORY,
        jids.length,
        'list-agents.rsm-paging',
      );
    },
  },
  {
    id: 'list-agents.without-set',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'A directory request without a set gets the whole directory, or a first page that carries a set to continue from.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY);
      const result = expectDiscoItems(exchange, 'list-agents.rsm-paging');
      const received = itemJids(result.items, 'list-agents.rsm-paging', exchange.reply.xml);
      const prefix = received.every((jid, index) => jid === jids[index]);
      const complete = prefix && received.length === jids.length;
      expectThat(
        exchange.reply.xml,
        'list-agents.rsm-paging',
        `all ${String(jids.length)} endpoints, or a first page with a <set/> whose <last/> continues it`,
        complete || (prefix && received.length > 0 && result.rsm?.last !== undefined),
      );
    },
  },
  {
    id: 'list-agents.max-above-page-maximum',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement:
      'A request for more items than the gateway pages at once gets a first page (possibly clamped) with a set to continue from; where the SUT documents its page maximum (limits.rsmPageMax), the page holds no more than that (#rules: the directory result count is bounded).',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, {
        max: 2_147_483_647,
      });
      const result = expectDiscoItems(exchange, 'list-agents.rsm-paging');
      const received = itemJids(result.items, 'list-agents.rsm-paging', exchange.reply.xml);
      expectThat(
        exchange.reply.xml,
        'list-agents.rsm-paging',
        `the directory from its start (all ${String(jids.length)} or a clamped page) with <last/>`,
        received.length > 0 &&
          received.every((jid, index) => jid === jids[index]) &&
          result.rsm?.last === result.items.at(-1)?.jid,
      );
      const pageMax = context.sut.limits?.rsmPageMax;
      if (pageMax !== undefined) {
        expectThat(
          exchange.reply.xml,
          'list-agents.rsm-paging',
          `at most ${String(pageMax)} items, the page maximum the SUT documents`,
          received.length <= pageMax,
        );
      }
    },
  },
  {
    id: 'list-agents.uid-not-a-jid',
    requirements: ['list-agents.rsm-paging'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-13'],
    statement:
      'Paging after or before a UID that is not a JID at all (two @, an empty localpart or domain) gets bad-request or item-not-found, never a page — after paging from a listed JID got one.',
    run: async (context) => {
      const { caller, jids } = await localDirectory(context);
      const [first] = jids;
      if (first === undefined) throw new MissingFixture('the local directory is empty: nothing to page from');
      const control = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, {
        max: 2,
        after: first,
      });
      expectDiscoItems(control, 'list-agents.rsm-paging');
      for (const uid of ['no@@such.example', '@server.example', 'nobody@']) {
        for (const request of [
          { max: 2, after: uid },
          { max: 2, before: uid },
        ]) {
          const exchange = await discoItems(caller, context.sut.gatewayJid, NODE_DIRECTORY, request);
          expectStanzaError(exchange, 'list-agents.rsm-paging', ['bad-request', 'item-not-found'], context);
        }
      }
    },
  },
  {
    id: 'list-agents.uid-hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['list-agents.rsm-paging', 'errors.not-found-equivalence', 'list-agents.visibility-filter'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-13', 'interp-19'],
    statement:
      'Paging after or before a hidden endpoint’s JID answers exactly as paging from a JID that names nothing in the same place: both positioned by octet order, or both item-not-found.',
    run: async (context) => {
      const world = requireWorld(context);
      const { caller, jids } = await localDirectory(context);
      const hidden = world.hiddenEndpoint.jid;
      const missing = world.nonexistentJid;
      await expectSameGapPaging(
        context,
        caller,
        jids,
        [hidden, missing],
        [`hidden ${hidden}`, `nonexistent ${missing}`],
      );
    },
  },
  {
    id: 'list-agents.uid-unseen-like-nonexistent-federated',
    scenario: 'equivalence',
    requirements: ['list-agents.rsm-paging', 'errors.not-found-equivalence', 'list-agents.visibility-filter'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-13', 'interp-19'],
    statement:
      'To a federated caller with domain grants only, paging from endpoints it may not see (hidden, visible to others, deactivated) answers exactly as paging from a JID that names nothing.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.remotePeer();
      const traversal = await traverse(
        caller,
        context.sut.gatewayJid,
        NODE_DIRECTORY,
        3,
        'list-agents.rsm-paging',
      );
      const jids = itemJids(
        traversal.items,
        'list-agents.rsm-paging',
        traversal.pages.at(-1)?.exchange.reply.xml ?? '',
      );
      const missing = world.nonexistentJid;
      const unseen = world.endpoints
        .filter(
          (endpoint) =>
            !world.maySee('remotePeer', endpoint) &&
            positionOf(jids, endpoint.jid) === positionOf(jids, missing),
        )
        .map((endpoint) => endpoint.jid);
      if (unseen.length === 0) {
        throw new MissingFixture(
          `the fixture world has no endpoint hidden from the remote peer next to ${missing}`,
        );
      }
      await expectSameGapPaging(
        context,
        caller,
        jids,
        [missing, ...unseen],
        [`nonexistent ${missing}`, ...unseen.map((jid) => `unseen ${jid}`)],
      );
    },
  },
  ...rsmPropertyCases,
  ...modelCases,
]);
