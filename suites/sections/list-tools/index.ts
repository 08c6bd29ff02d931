/**
 * #list-tools: the version-pinned tool collection of an endpoint — items carrying the endpoint
 * JID and a tool node of the same version, in ascending UTF-8 byte order of the tool names (the
 * toolbox fixture's astral and non-ASCII names order differently by node string and by UTF-16
 * units), paged with the full tool node as RSM ID, UIDs outside the set placed by their decoded
 * name (interp-13); the collection node's disco#info; any registered version stays listable on
 * its own tools (#rules); a version that breaks the grammar is refused (#namespaces).
 */
import type { Caller } from '../../../harness/driver/index.ts';
import { bareJidEquals, compareUtf8 } from '../../../protocol/jid/index.ts';
import {
  IDENTITY_CATEGORY,
  IDENTITY_TYPE,
  NODE_BASE_TOOL_COLLECTION,
  NS,
} from '../../../protocol/namespaces.ts';
import type { DiscoItem } from '../../../protocol/stanza/index.ts';
import {
  decodeToolNode,
  encodeCollectionNode,
  encodeToolNode,
  ToolNodeError,
} from '../../../protocol/tool-node.ts';
import { defineSuite, type CaseDeclaration, type CaseId } from '../../framework/case.ts';
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
import { MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld, type CallerRole, type FixtureManifest } from '../../fixtures/reference-world.ts';
import {
  callerFor,
  discoInfo,
  discoItems,
  expectInvalidRsmHandled,
  listing,
  positionOf,
  roleThatMaySee,
  traverse,
  traverseBackward,
} from '../support/discovery.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { rsmPropertyCases } from './rsm-properties.ts';
import { modelCases } from './model-checks.ts';

/** The tool names of collection items; an item that is not the endpoint's tool node of `version` violates `requirement`. */
function toolNamesOf(
  items: readonly DiscoItem[],
  endpointJid: string,
  version: string,
  requirement: RequirementId,
  replyXml: string,
): string[] {
  return items.map((item) => {
    const fail = (why: string): never => {
      throw new RequirementViolation(
        requirement,
        `items with jid ${endpointJid} and a tool node of version ${version} (${why})`,
        replyXml,
      );
    };
    if (!bareJidEquals(item.jid, endpointJid)) fail(`jid ${item.jid}`);
    if (item.node === undefined) return fail('an item without a node');
    try {
      const decoded = decodeToolNode(item.node);
      if (decoded.version !== version) fail(`node ${item.node} names version ${decoded.version}`);
      return decoded.toolName;
    } catch (error) {
      if (!(error instanceof ToolNodeError)) throw error;
      return fail(`node ${item.node}: ${error.message}`);
    }
  });
}

/** The manifest's tool names in the order #list-tools requires. */
function expectedOrder(manifest: FixtureManifest): string[] {
  return manifest.tools.map((tool) => tool.name).toSorted(compareUtf8);
}

/** The whole collection of `manifest` as `caller` sees it, checked item by item. */
async function collectionOf(
  caller: Caller,
  manifest: FixtureManifest,
  max: number,
  requirement: RequirementId,
) {
  const traversal = await traverse(caller, manifest.jid, manifest.collectionNode, max, requirement);
  const lastXml = traversal.pages.at(-1)?.exchange.reply.xml ?? '';
  return {
    traversal,
    names: toolNamesOf(traversal.items, manifest.jid, manifest.version, requirement, lastXml),
    lastXml,
  };
}

/** Exactly the manifest's tools, each once. */
function expectAllTools(
  names: readonly string[],
  requirement: RequirementId,
  manifest: FixtureManifest,
): void {
  const expected = expectedOrder(manifest);
  const received = names.toSorted(compareUtf8);
  expectThat(
    listing(names),
    requirement,
    `the ${String(expected.length)} tools of ${manifest.jid} ${manifest.version}:\n${listing(expected)}`,
    received.length === expected.length && received.every((name, index) => name === expected[index]),
  );
}

/** The toolbox's names around which UID placement by decoded name and by node string disagree. */
function trapKeys(manifest: FixtureManifest): string[] {
  const names = expectedOrder(manifest);
  const nodes = manifest.tools.map((tool) => tool.node).toSorted(compareUtf8);
  const keys = names
    .map((name) => `${name} `)
    .filter((key) => !names.includes(key))
    .filter((key) => {
      const node = encodeToolNode(manifest.version, key);
      const byNode = nodes.slice(positionOf(nodes, node)).map((other) => decodeToolNode(other).toolName)[0];
      const byName = names[positionOf(names, key)];
      return byNode !== byName;
    });
  return keys;
}

/**
 * The positive control of the UID cases: paging after a tool node that names a tool gives a page
 * (so an item-not-found for other UIDs is not an item-not-found for every UID).
 */
async function expectPagingAfterATool(caller: Caller, manifest: FixtureManifest): Promise<void> {
  const [tool] = manifest.tools;
  if (tool === undefined) throw new MissingFixture(`the fixture world's ${manifest.jid} needs tools`);
  requirePositiveControl(
    await discoItems(caller, manifest.jid, manifest.collectionNode, { max: 2, after: tool.node }),
    `a page of ${manifest.jid}'s tools after the node of ${JSON.stringify(tool.name)}`,
  );
}

function collectionInfoCase(
  role: CallerRole,
  id: CaseId<'list-tools'>,
  statement: string,
): CaseDeclaration<'list-tools'> {
  return {
    id,
    requirements: ['list-tools.collection-node-info'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement,
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await callerFor(context, role);
      const manifests = world.listedFor(role).flatMap((endpoint) => endpoint.versions);
      if (manifests.length === 0) {
        throw new MissingFixture(
          `${world.source} lists no registered version of an endpoint the ${role} caller may see: no collection node to ask`,
        );
      }
      for (const manifest of manifests) {
        const exchange = await discoInfo(caller, manifest.jid, manifest.collectionNode);
        const info = expectDiscoInfo(exchange, 'list-tools.collection-node-info');
        expectIdentity(
          info,
          'list-tools.collection-node-info',
          IDENTITY_CATEGORY,
          IDENTITY_TYPE.toolCollection,
          exchange.reply.xml,
        );
        expectFeatures(
          info,
          'list-tools.collection-node-info',
          [NS.discoInfo, NS.discoItems],
          exchange.reply.xml,
        );
      }
    },
  };
}

export const listToolsSuite = defineSuite('list-tools', 'Listing Tools', { alongside: true }, [
  {
    id: 'list-tools.items-local',
    requirements: ['list-tools.item-jid-and-node', 'namespaces.tool-name-no-extra-limits'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-22'],
    statement:
      'The active collection of every endpoint a local caller may see lists each of its tools once, each item carrying the endpoint JID and that tool’s node in the same version (unusual names included).',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.local();
      const active = world.listedFor('local').filter((endpoint) => endpoint.active !== undefined);
      if (active.length === 0) {
        throw new MissingFixture(
          `${world.source} lists no active endpoint the local caller may see: no active collection to list`,
        );
      }
      for (const endpoint of active) {
        if (endpoint.active === undefined) continue;
        const { names } = await collectionOf(
          caller,
          endpoint.active,
          context.random.int(3, 8),
          'list-tools.item-jid-and-node',
        );
        expectAllTools(names, 'list-tools.item-jid-and-node', endpoint.active);
      }
    },
  },
  {
    id: 'list-tools.items-federated',
    requirements: ['list-tools.item-jid-and-node', 'rules.uniform-visibility'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'A federated caller lists the tools of the endpoints its grants show it, a hidden one its grant names included.',
    run: async (context) => {
      const world = requireWorld(context);
      const caller = await context.callers.remote();
      for (const endpoint of [world.visibleEndpoint, world.hiddenEndpoint]) {
        const { names } = await collectionOf(caller, endpoint.active, 3, 'list-tools.item-jid-and-node');
        expectAllTools(names, 'list-tools.item-jid-and-node', endpoint.active);
      }
    },
  },
  {
    id: 'list-tools.item-names',
    requirements: ['list-tools.item-name'],
    profiles: ['tool-discovery'],
    level: 'SHOULD',
    statement: 'Tool items carry a human-readable name.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const caller = await context.callers.local();
      const { traversal } = await collectionOf(caller, endpoint.active, 10, 'list-tools.item-name');
      const unnamed = traversal.items.filter((item) => (item.name ?? '').trim() === '');
      if (unnamed.length > 0) {
        context.warn(
          'list-tools.item-name',
          `items without a name: ${unnamed.map((item) => item.node ?? '').join(', ')}`,
        );
      }
    },
  },
  {
    id: 'list-tools.name-byte-order',
    requirements: ['list-tools.name-byte-order', 'namespaces.tool-name-no-extra-limits'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-13'],
    statement:
      'Tools are listed in ascending byte order of their UTF-8 names across all pages — astral names after U+E000–U+FFFF ones, which neither UTF-16 order nor node-string order gives.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const { names } = await collectionOf(
        caller,
        toolbox,
        context.random.int(2, 9),
        'list-tools.name-byte-order',
      );
      const expected = expectedOrder(toolbox);
      expectThat(
        listing(names),
        'list-tools.name-byte-order',
        listing(expected),
        names.join('\n') === expected.join('\n'),
      );
    },
  },
  {
    id: 'list-tools.rsm-ids-are-nodes',
    requirements: ['list-tools.rsm-paging'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'Each tool page’s <first/> and <last/> are exactly the full tool nodes of its first and last items, and <count/> is the number of tools.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const { traversal } = await collectionOf(
        caller,
        toolbox,
        context.random.int(2, 9),
        'list-tools.rsm-paging',
      );
      for (const { result, exchange } of traversal.pages) {
        if (result.items.length > 0) {
          expectThat(
            exchange.reply.xml,
            'list-tools.rsm-paging',
            '<first/> and <last/> that are the nodes of the page’s first and last items',
            result.rsm?.first?.uid === result.items[0]?.node &&
              result.rsm?.last === result.items.at(-1)?.node,
          );
        }
        if (result.rsm?.count === undefined) {
          context.warn('list-tools.rsm-paging', 'a tool page without <count/> (interp-14)');
        } else {
          expectThat(
            exchange.reply.xml,
            'list-tools.rsm-paging',
            `<count>${String(toolbox.tools.length)}</count>`,
            result.rsm.count === toolbox.tools.length,
          );
        }
      }
    },
  },
  {
    id: 'list-tools.rsm-edges',
    requirements: ['list-tools.rsm-paging'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'Tool paging honours max 0 (no items, no <first/>/<last/>), an empty <before/> (the last page), <index/> (the page there, or feature-not-implemented) and paging backward.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const names = expectedOrder(toolbox);
      const node = toolbox.collectionNode;
      const decode = (exchange: Awaited<ReturnType<typeof discoItems>>): string[] =>
        toolNamesOf(
          expectDiscoItems(exchange, 'list-tools.rsm-paging').items,
          toolbox.jid,
          toolbox.version,
          'list-tools.rsm-paging',
          exchange.reply.xml,
        );

      const zero = await discoItems(caller, toolbox.jid, node, { max: 0 });
      const zeroResult = expectDiscoItems(zero, 'list-tools.rsm-paging');
      expectThat(
        zero.reply.xml,
        'list-tools.rsm-paging',
        'no <item/>, no <first/>, no <last/> for max 0',
        zeroResult.items.length === 0 &&
          zeroResult.rsm?.first === undefined &&
          zeroResult.rsm?.last === undefined,
      );

      const max = context.random.int(1, 5);
      const lastPage = await discoItems(caller, toolbox.jid, node, { max, before: '' });
      const tail = decode(lastPage);
      expectThat(
        lastPage.reply.xml,
        'list-tools.rsm-paging',
        `the last page (at most ${String(max)} tools) ending with ${names.at(-1) ?? ''}`,
        tail.length > 0 &&
          tail.length <= max &&
          tail.every((name, i) => name === names[names.length - tail.length + i]),
      );

      const index = context.random.int(1, names.length - 1);
      const jump = await discoItems(caller, toolbox.jid, node, { max: 3, index });
      if (jump.parsed.type === 'error') {
        expectStanzaError(jump, 'list-tools.rsm-paging', 'feature-not-implemented', context);
      } else {
        const page = decode(jump);
        expectThat(
          jump.reply.xml,
          'list-tools.rsm-paging',
          `the tools from position ${String(index)}: ${listing(names.slice(index, index + 3))}`,
          page.length > 0 && page.every((name, i) => name === names[index + i]),
        );
      }

      const backward = await traverseBackward(
        caller,
        toolbox.jid,
        node,
        context.random.int(3, 9),
        'list-tools.rsm-paging',
      );
      const received = toolNamesOf(backward.items, toolbox.jid, toolbox.version, 'list-tools.rsm-paging', '');
      expectThat(
        listing(received),
        'list-tools.rsm-paging',
        listing(names),
        received.join('\n') === names.join('\n'),
      );
    },
  },
  {
    id: 'list-tools.rsm-invalid-values',
    requirements: ['list-tools.rsm-paging'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-14'],
    statement:
      'A tool-collection request whose <max/> or <index/> is not an integer or negative gets bad-request (a page or another error is a warning: XEP-0059 names no answer); an <index/> at or past the last tool gets an empty page or feature-not-implemented, never items — after the same request with valid values got a page.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      await expectInvalidRsmHandled(
        context,
        await context.callers.local(),
        toolbox.jid,
        toolbox.collectionNode,
        toolbox.tools.length,
        'list-tools.rsm-paging',
      );
    },
  },
  {
    id: 'list-tools.uid-placed-by-decoded-name',
    requirements: ['list-tools.rsm-paging', 'list-tools.name-byte-order'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-13'],
    statement:
      'After or before a well-formed tool node of the same version that names no tool, the page continues from the decoded name’s byte position (not the node string’s), or the request gets item-not-found.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const names = expectedOrder(toolbox);
      const traps = trapKeys(toolbox);
      await expectPagingAfterATool(caller, toolbox);
      const keys = [
        ...new Set([
          context.random.pick(names.map((name) => `${name} `).filter((k) => !names.includes(k))),
          ...traps.slice(0, 2),
        ]),
      ];
      for (const key of keys) {
        for (const direction of ['after', 'before'] as const) {
          const uid = encodeToolNode(toolbox.version, key);
          const rsm = direction === 'after' ? { max: 2, after: uid } : { max: 2, before: uid };
          const exchange = await discoItems(caller, toolbox.jid, toolbox.collectionNode, rsm);
          if (exchange.parsed.type === 'error') {
            expectStanzaError(exchange, 'list-tools.rsm-paging', 'item-not-found', context);
            continue;
          }
          const page = toolNamesOf(
            expectDiscoItems(exchange, 'list-tools.rsm-paging').items,
            toolbox.jid,
            toolbox.version,
            'list-tools.rsm-paging',
            exchange.reply.xml,
          );
          const position = positionOf(names, key);
          const rest = direction === 'after' ? names.slice(position) : names.slice(0, position);
          const fits =
            direction === 'after'
              ? page.every((name, i) => name === rest[i])
              : page.every((name, i) => name === rest[rest.length - page.length + i]);
          expectThat(
            exchange.reply.xml,
            'list-tools.name-byte-order',
            `the tools ${direction} the name ${JSON.stringify(key)} in UTF-8 byte order: ${listing(direction === 'after' ? rest.slice(0, 2) : rest.slice(-2))}`,
            fits && (rest.length === 0 || page.length > 0),
          );
        }
      }
    },
  },
  {
    id: 'list-tools.uid-malformed-or-other-version',
    requirements: ['list-tools.rsm-paging', 'namespaces.tool-node-decoding'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-13', 'interp-22'],
    statement:
      'A malformed tool node, or one of another version, as RSM UID gets bad-request or item-not-found, never a page.',
    run: async (context) => {
      const toolbox = requireWorld(context).toolboxEndpoint.active;
      const caller = await context.callers.local();
      const [tool] = toolbox.tools;
      if (tool === undefined)
        throw new RequirementViolation('list-tools.rsm-paging', 'a toolbox with tools', '(none)');
      await expectPagingAfterATool(caller, toolbox);
      const otherVersion = `${toolbox.version}.other`;
      for (const uid of [`${tool.node}==`, `${tool.node}#x`, encodeToolNode(otherVersion, tool.name)]) {
        const exchange = await discoItems(caller, toolbox.jid, toolbox.collectionNode, {
          max: 2,
          after: uid,
        });
        expectStanzaError(exchange, 'list-tools.rsm-paging', ['bad-request', 'item-not-found'], context);
      }
    },
  },
  collectionInfoCase(
    'local',
    'list-tools.collection-node-info-local',
    'Each registered version’s collection node of the endpoints a local caller may see answers disco#info with identity automation/agent-tool-collection and the disco#info and disco#items features.',
  ),
  collectionInfoCase(
    'remote',
    'list-tools.collection-node-info-federated',
    'Each registered version’s collection node of the endpoints a federated caller may see answers disco#info with identity automation/agent-tool-collection and both disco features.',
  ),
  {
    id: 'list-tools.other-version-pinned',
    requirements: ['list-tools.item-jid-and-node', 'rules.version-pinning'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'A registered version that is not the active one stays listable by its collection node, with exactly its own tools in nodes of that version.',
    run: async (context) => {
      const { other } = requireWorld(context).multiVersionEndpoint;
      const caller = await context.callers.local();
      const { names } = await collectionOf(caller, other, 5, 'list-tools.item-jid-and-node');
      expectAllTools(names, 'list-tools.item-jid-and-node', other);
    },
  },
  {
    id: 'list-tools.version-grammar',
    requirements: ['namespaces.version-grammar', 'list-tools.item-jid-and-node'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-13'],
    statement:
      'A collection node whose version breaks the version grammar (a slash, a space, 65 characters, empty) is refused with bad-request or item-not-found, and so is an unregistered version.',
    run: async (context) => {
      const endpoint = requireWorld(context).visibleEndpoint;
      const caller = await context.callers.local();
      const base = `${NODE_BASE_TOOL_COLLECTION}#`;
      const active = endpoint.active.version;
      requirePositiveControl(
        await discoItems(caller, endpoint.jid, encodeCollectionNode(active)),
        `disco#items of ${endpoint.jid}'s active collection node`,
      );
      for (const version of [`${active}/x`, `${active} `, 'v'.repeat(65), '']) {
        const exchange = await discoItems(caller, endpoint.jid, `${base}${version}`);
        expectStanzaError(exchange, 'namespaces.version-grammar', ['bad-request', 'item-not-found'], context);
      }
      const unregistered = `${active}.unregistered`;
      if (!endpoint.versions.some((manifest) => manifest.version === unregistered)) {
        const exchange = await discoItems(caller, endpoint.jid, encodeCollectionNode(unregistered));
        expectStanzaError(exchange, 'list-tools.item-jid-and-node', 'item-not-found', context);
      }
    },
  },
  {
    id: 'list-tools.hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['rules.uniform-visibility', 'errors.not-found-equivalence'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-19'],
    statement:
      'To a local caller, a hidden endpoint’s collection node (items and info) answers exactly as the same node at a JID that names nothing.',
    run: async (context) => {
      const world = requireWorld(context);
      const hidden = world.hiddenEndpoint;
      const missing = world.nonexistentJid;
      const caller = await context.callers.local();
      const node = hidden.active.collectionNode;
      const seer = await callerFor(context, roleThatMaySee(world, hidden, ['remote', 'remotePeer']));
      for (const query of [discoItems, discoInfo]) {
        requirePositiveControl(
          await query(seer, hidden.jid, node),
          `the collection node of ${hidden.jid} for ${seer.bareJid}, who may see it`,
        );
      }
      for (const query of [discoItems, discoInfo]) {
        const replies: [ComparedReply, ComparedReply] = [
          { label: `hidden ${hidden.jid}`, exchange: await query(caller, hidden.jid, node), to: hidden.jid },
          { label: `nonexistent ${missing}`, exchange: await query(caller, missing, node), to: missing },
        ];
        for (const { exchange } of replies) {
          expectStanzaError(
            exchange,
            'errors.not-found-equivalence',
            ['item-not-found', 'service-unavailable'],
            context,
          );
        }
        expectIndistinguishable(replies, 'errors.not-found-equivalence', context);
      }
    },
  },
  ...rsmPropertyCases,
  ...modelCases,
]);
