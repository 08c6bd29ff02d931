/**
 * Discovery addressed to an endpoint (#endpoint-info, #list-tools, #tool-info): node-less
 * disco#info and disco#items, the version-pinned tool collection and tool nodes. A requester
 * that may not see the endpoint gets exactly what it gets for an endpoint that does not exist
 * (#errors: for discovery, not visible is unauthorized; rules.uniform-visibility). Visibility is
 * all-or-nothing (#manifest), so a visible version lists every tool it has.
 */
import { compareUtf8 } from '../../protocol/jid/index.ts';
import {
  FEATURE,
  IDENTITY_TYPE,
  NODE_BASE_TOOL,
  NODE_BASE_TOOL_COLLECTION,
  NS,
} from '../../protocol/namespaces.ts';
import { ToolNodeError, decodeCollectionNode, decodeToolNode } from '../../protocol/tool-node.ts';
import { maySee } from './access.ts';
import { hostedEndpoint } from './directory.ts';
import { error, expectation, notFound, pass, warn, type Expectation } from './expectation.ts';
import { pageAlternatives, type PageRequest, type UidPosition } from './paging.ts';
import {
  activeVersionOf,
  versionOf,
  type ModelEndpoint,
  type ModelVersion,
  type ModelWorld,
  type Principal,
} from './world.ts';

/** The endpoint when it exists and the principal may see it; otherwise undefined, whichever the reason. */
export function seenEndpoint(
  world: ModelWorld,
  principal: Principal,
  jid: string,
): ModelEndpoint | undefined {
  const endpoint = hostedEndpoint(world, jid);
  return endpoint !== undefined && maySee(world, principal, endpoint) ? endpoint : undefined;
}

/**
 * disco#info of an endpoint: node-less, or on a tool collection or tool node (routed to
 * toolCollectionInfo and toolInfo), or on any other node such as the endpoint feature var.
 */
export function endpointInfo(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  node?: string,
): Expectation {
  if (node?.startsWith(`${NODE_BASE_TOOL_COLLECTION}#`) === true)
    return toolCollectionInfo(world, principal, jid, node);
  if (node?.startsWith(`${NODE_BASE_TOOL}#`) === true) return toolInfo(world, principal, jid, node);
  const operation = `disco#info of ${jid}${node === undefined ? '' : ` node ${node}`}`;
  const endpoint = seenEndpoint(world, principal, jid);
  if (endpoint === undefined)
    return notFound(operation, ['endpoint-info.disco-info', 'rules.uniform-visibility']);
  if (node !== undefined) {
    // The feature var is not a node (endpoint-info.feature-var-not-node); nor is any other unknown node.
    return notFound(operation, ['endpoint-info.feature-var-not-node'], false);
  }
  const active = activeVersionOf(endpoint);
  if (active === undefined) {
    return expectation({
      operation,
      requirements: ['endpoint-info.disco-info'],
      interpretations: ['interp-23'],
      alternatives: [pass(error('item-not-found')), pass(error('service-unavailable'))],
    });
  }
  return expectation({
    operation,
    requirements: [
      'endpoint-info.disco-info',
      'endpoint-info.required-fields',
      'endpoint-info.manifest-hash-fields',
      'rules.uniform-visibility',
    ],
    interpretations: ['interp-20', 'interp-21'],
    alternatives: [
      pass({
        kind: 'endpoint-info',
        jid: endpoint.jid,
        version: active.version,
        manifestHash: active.hash,
        serverName: active.name,
        serverTitle: active.title ?? active.name,
        ...(active.description === undefined ? {} : { description: active.description }),
      }),
    ],
  });
}

/**
 * Node-less disco#items of an endpoint: the spec defines none, XEP-0030 wants an empty result
 * rather than an error (interp-16). Visible: an empty result or the collection items of its
 * versions. Invisible or nonexistent: item-not-found or an empty result, the same for both.
 */
export function endpointItems(world: ModelWorld, principal: Principal, jid: string): Expectation {
  const operation = `node-less disco#items of ${jid}`;
  const endpoint = seenEndpoint(world, principal, jid);
  const empty = {
    kind: 'page',
    page: {
      fullSet: [],
      candidates: [],
      anchor: 'start',
      minItems: 0,
      maxItems: 0,
      setRequired: 'when-short',
    },
  } as const;
  if (endpoint === undefined) {
    return expectation({
      operation,
      requirements: ['errors.not-found-equivalence'],
      interpretations: ['interp-16', 'interp-19'],
      alternatives: [pass(error('item-not-found')), pass(empty)],
      sameAsNonexistent: true,
      unauthorized: true,
    });
  }
  // interp-16 leaves open which collections: every version's, or the active version's alone (what
  // a client can invoke); each list is complete in itself, so no RSM set is needed.
  const active = activeVersionOf(endpoint);
  const lists = [
    endpoint.versions.map((version) => version.collectionNode),
    ...(active === undefined || endpoint.versions.length === 1 ? [] : [[active.collectionNode]]),
  ];
  // Without an active version the endpoint answers node-less disco#items as it answers node-less
  // disco#info (interp-23): a refusal is as good as the listing.
  const deactivated =
    active === undefined ? [pass(error('item-not-found')), pass(error('service-unavailable'))] : [];
  return expectation({
    operation,
    requirements: ['endpoint-info.disco-info'],
    interpretations: active === undefined ? ['interp-16', 'interp-23'] : ['interp-16'],
    alternatives: [
      ...deactivated,
      pass(empty),
      ...lists.map((collections) =>
        pass({
          kind: 'page',
          page: {
            fullSet: collections,
            candidates: collections,
            anchor: 'start',
            minItems: collections.length,
            maxItems: collections.length,
            setRequired: 'when-short',
          },
        }),
      ),
    ],
  });
}

/**
 * The version a collection or tool node pins, when the principal may see the endpoint and the
 * version is registered there. A deactivated endpoint's versions stay addressable by exact value
 * (#manifest-retrieval); refusing them is a warning (interp-23).
 */
function pinnedVersion(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  version: string,
): { readonly endpoint: ModelEndpoint; readonly manifest: ModelVersion } | undefined {
  const endpoint = seenEndpoint(world, principal, jid);
  const manifest = endpoint === undefined ? undefined : versionOf(endpoint, version);
  return endpoint === undefined || manifest === undefined ? undefined : { endpoint, manifest };
}

/** Adds the warned refusal a deactivated endpoint may give for an exact version (interp-23). */
function withDeactivatedRefusal(expected: Expectation, endpoint: ModelEndpoint): Expectation {
  if (endpoint.active !== undefined) return expected;
  return {
    ...expected,
    interpretations: [...expected.interpretations, 'interp-23'],
    alternatives: [
      ...expected.alternatives,
      warn(error('item-not-found'), 'a deactivated endpoint refused an exact version (interp-23)'),
    ],
  };
}

/** A tool-node UID in a collection of `version` (interp-13): well-formed nodes are positioned by name. */
function locateToolNode(version: ModelVersion, uid: string): UidPosition {
  const index = version.tools.findIndex((tool) => tool.node === uid);
  if (index !== -1) return { kind: 'member', index };
  try {
    const decoded = decodeToolNode(uid);
    if (decoded.version !== version.version) return { kind: 'malformed' };
    const at = version.tools.findIndex((tool) => compareUtf8(tool.name, decoded.toolName) > 0);
    return { kind: 'gap', at: at === -1 ? version.tools.length : at, notFound: 'pass' };
  } catch (problem) {
    if (problem instanceof ToolNodeError) return { kind: 'malformed' };
    throw problem;
  }
}

/** disco#items of the tool collection node `urn:xmpp:agent-tools:0#VERSION` (#list-tools). */
export function toolCollectionItems(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  collectionNode: string,
  rsm?: PageRequest,
): Expectation {
  const operation = `disco#items of ${jid} node ${collectionNode}`;
  const version = versionOfCollectionNode(collectionNode);
  const pinned = version === undefined ? undefined : pinnedVersion(world, principal, jid, version);
  if (pinned === undefined) return notFound(operation, ['list-tools.rsm-paging', 'rules.uniform-visibility']);
  const nodes = pinned.manifest.tools.map((tool) => tool.node);
  return withDeactivatedRefusal(
    expectation({
      operation,
      requirements: [
        'list-tools.rsm-paging',
        'list-tools.name-byte-order',
        'list-tools.item-jid-and-node',
        'rules.version-pinning',
      ],
      interpretations: ['interp-13', 'interp-14'],
      alternatives: pageAlternatives(
        nodes,
        rsm,
        (uid) => locateToolNode(pinned.manifest, uid),
        world.limits.pageMax,
      ),
    }),
    pinned.endpoint,
  );
}

function versionOfCollectionNode(node: string): string | undefined {
  try {
    return decodeCollectionNode(node);
  } catch (problem) {
    if (problem instanceof ToolNodeError) return undefined;
    throw problem;
  }
}

/** disco#info of the tool collection node (list-tools.collection-node-info). */
export function toolCollectionInfo(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  collectionNode: string,
): Expectation {
  const operation = `disco#info of ${jid} node ${collectionNode}`;
  const version = versionOfCollectionNode(collectionNode);
  const pinned = version === undefined ? undefined : pinnedVersion(world, principal, jid, version);
  if (pinned === undefined)
    return notFound(operation, ['list-tools.collection-node-info', 'rules.uniform-visibility']);
  return withDeactivatedRefusal(
    expectation({
      operation,
      requirements: ['list-tools.collection-node-info'],
      alternatives: [
        pass({
          kind: 'identity',
          type: IDENTITY_TYPE.toolCollection,
          features: [NS.discoInfo, NS.discoItems],
        }),
      ],
    }),
    pinned.endpoint,
  );
}

/**
 * disco#info of a tool node. A node that does not decode strictly gets bad-request or
 * item-not-found (interp-22); one that decodes but names no visible tool, item-not-found.
 */
export function toolInfo(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  toolNode: string,
): Expectation {
  const operation = `disco#info of ${jid} node ${toolNode}`;
  let decoded: { version: string; toolName: string };
  try {
    decoded = decodeToolNode(toolNode);
  } catch (problem) {
    if (!(problem instanceof ToolNodeError)) throw problem;
    return expectation({
      operation,
      requirements: ['namespaces.tool-node-decoding'],
      interpretations: ['interp-22'],
      alternatives: [pass(error('bad-request')), pass(error('item-not-found'))],
    });
  }
  const pinned = pinnedVersion(world, principal, jid, decoded.version);
  const tool = pinned?.manifest.tools.find((candidate) => candidate.name === decoded.toolName);
  if (pinned === undefined || tool === undefined)
    return notFound(operation, ['tool-info.disco-info', 'rules.uniform-visibility']);
  return withDeactivatedRefusal(
    expectation({
      operation,
      requirements: [
        'tool-info.disco-info',
        'tool-info.required-fields',
        'tool-info.optional-fields',
        'tool-info.no-manufactured-values',
      ],
      interpretations: ['interp-08', 'interp-20'],
      alternatives: [
        pass({
          kind: 'tool-info',
          name: tool.name,
          apiVersion: decoded.version,
          inputSchemaHash: tool.inputSchemaHash,
          ...(tool.outputSchemaHash === undefined ? {} : { outputSchemaHash: tool.outputSchemaHash }),
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          hints: tool.hints,
        }),
      ],
    }),
    pinned.endpoint,
  );
}

/** The identity and fixed features every visible active endpoint's disco#info must show. */
export const ENDPOINT_IDENTITY = {
  type: IDENTITY_TYPE.endpoint,
  features: [NS.discoInfo, NS.discoItems],
} as const;
/** The features a tool node's disco#info must show besides its task features (#tool-info). */
export const TOOL_IDENTITY = { type: IDENTITY_TYPE.tool, features: [NS.discoInfo, FEATURE.tool] } as const;
