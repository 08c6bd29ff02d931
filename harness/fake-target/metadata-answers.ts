/**
 * The fake target's default answers to a caller's metadata queries, computed from its world:
 * disco#info and disco#items at the domain, an endpoint, a collection node and a tool node
 * (#gateway-info, #endpoint-info, #list-tools, #tool-info), <manifest-request/>
 * (#manifest-retrieval) and <schema-request/> (#schemas). Pure: a request in, an answer out.
 *
 * The fake target is a stand-in, not the thing judged, so its answers are the plain well-formed
 * ones: full lists without RSM paging (a caller's RSM handling is not what these cases probe),
 * unknown JIDs and nodes item-not-found, a wrong manifest hash conflict.
 */
import type { Element } from '@xmpp/xml';

import { FEATURE, IDENTITY_CATEGORY, IDENTITY_TYPE, NODE_DIRECTORY, NS } from '../../protocol/namespaces.ts';
import {
  buildDiscoInfo,
  buildDiscoItems,
  buildManifest,
  buildSchema,
  endpointInfoFields,
  isSha256,
  parseDiscoInfoRequest,
  parseDiscoItemsRequest,
  parseManifestRequest,
  parseSchemaRequest,
  toolInfoFields,
  type FormFieldInput,
  type StanzaError,
} from '../../protocol/stanza/index.ts';
import {
  ToolNodeError,
  decodeCollectionNode,
  decodeToolNode,
  encodeCollectionNode,
  encodeToolNode,
} from '../../protocol/tool-node.ts';
import { NODE_BASE_TOOL, NODE_BASE_TOOL_COLLECTION } from '../../protocol/namespaces.ts';
import {
  ENDPOINT_FEATURES,
  chooseFeatures,
  type CompiledWorld,
  type EndpointRecord,
  type ToolRecord,
} from './target-world.ts';

export type MetadataAnswer =
  { readonly ok: true; readonly payload: Element } | { readonly ok: false; readonly error: StanzaError };

const ok = (payload: Element): MetadataAnswer => ({ ok: true, payload });
const refuse = (
  condition: StanzaError['condition'],
  type: StanzaError['type'] = 'cancel',
): MetadataAnswer => ({
  ok: false,
  error: { type, condition },
});
const ITEM_NOT_FOUND = refuse('item-not-found');

const GATEWAY_FEATURES: readonly string[] = [NS.discoInfo, NS.discoItems, FEATURE.directory];

function endpointInfoForm(endpoint: EndpointRecord): FormFieldInput[] {
  return endpointInfoFields({
    agent: endpoint.agent,
    version: endpoint.active.version,
    manifestHash: endpoint.active.document.hash,
    coldStartSupported: endpoint.coldStart,
    requestReplaySeconds: endpoint.replaySeconds,
  });
}

/** Tool task features: the endpoint's advertised ones the tool also declares (#conformance). */
function toolTaskFeatures(endpoint: EndpointRecord, tool: ToolRecord): string[] {
  const advertised = chooseFeatures(ENDPOINT_FEATURES, endpoint.features);
  const declared = tool.definition['urn:xmpp:agent-api:0'] ?? {};
  return [
    ...(declared.supportsProgress === true ? [FEATURE.taskProgress] : []),
    ...(declared.supportsCancellation === true ? [FEATURE.taskCancel] : []),
    ...(declared.supportsInput === true ? [FEATURE.taskInput] : []),
  ].filter((feature) => advertised.includes(feature));
}

type NodeTarget =
  | { readonly kind: 'none' }
  | { readonly kind: 'collection'; readonly version: string }
  | { readonly kind: 'tool'; readonly version: string; readonly tool: string }
  | { readonly kind: 'unknown' };

function nodeTarget(node: string | undefined): NodeTarget {
  if (node === undefined) return { kind: 'none' };
  try {
    if (node.startsWith(`${NODE_BASE_TOOL_COLLECTION}#`))
      return { kind: 'collection', version: decodeCollectionNode(node) };
    if (node.startsWith(`${NODE_BASE_TOOL}#`)) {
      const decoded = decodeToolNode(node);
      return { kind: 'tool', version: decoded.version, tool: decoded.toolName };
    }
  } catch (error) {
    if (!(error instanceof ToolNodeError)) throw error;
  }
  return { kind: 'unknown' };
}

function domainInfo(world: CompiledWorld, node: string | undefined): MetadataAnswer {
  if (node === NODE_DIRECTORY) {
    return ok(
      buildDiscoInfo({
        node,
        identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.directory }],
        features: [NS.discoInfo, NS.discoItems],
      }),
    );
  }
  if (node !== undefined) return ITEM_NOT_FOUND;
  return ok(
    buildDiscoInfo({
      identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.gateway, name: world.gatewayName }],
      features: chooseFeatures(GATEWAY_FEATURES, world.gatewayFeatures),
    }),
  );
}

function domainItems(world: CompiledWorld, node: string | undefined): MetadataAnswer {
  if (node !== undefined && node !== NODE_DIRECTORY) return ITEM_NOT_FOUND;
  const items = [...world.endpoints.values()].map((endpoint) => ({
    jid: endpoint.jid,
    name: endpoint.agent.name,
  }));
  return ok(buildDiscoItems({ ...(node === undefined ? {} : { node }), items }));
}

function endpointDiscoInfo(
  endpoint: EndpointRecord,
  target: NodeTarget,
  node: string | undefined,
): MetadataAnswer {
  if (target.kind === 'none') {
    return ok(
      buildDiscoInfo({
        identities: [
          {
            category: IDENTITY_CATEGORY,
            type: IDENTITY_TYPE.endpoint,
            name: endpoint.agent.title ?? endpoint.agent.name,
          },
        ],
        features: chooseFeatures(ENDPOINT_FEATURES, endpoint.features),
        forms: [{ type: 'result', fields: endpointInfoForm(endpoint) }],
      }),
    );
  }
  if (target.kind === 'unknown') return ITEM_NOT_FOUND;
  const version = endpoint.versions.get(target.version);
  if (version === undefined) return ITEM_NOT_FOUND;
  if (target.kind === 'collection') {
    return ok(
      buildDiscoInfo({
        ...(node === undefined ? {} : { node }),
        identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.toolCollection }],
        features: [NS.discoInfo, NS.discoItems],
      }),
    );
  }
  const tool = version.tools.find((candidate) => candidate.name === target.tool);
  if (tool === undefined) return ITEM_NOT_FOUND;
  return ok(
    buildDiscoInfo({
      node: encodeToolNode(version.version, tool.name),
      identities: [
        { category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.tool, name: tool.definition.title ?? tool.name },
      ],
      features: [NS.discoInfo, FEATURE.tool, ...toolTaskFeatures(endpoint, tool)],
      forms: [{ type: 'result', fields: toolInfoFields(version.version, tool) }],
    }),
  );
}

function endpointDiscoItems(endpoint: EndpointRecord, target: NodeTarget): MetadataAnswer {
  if (target.kind === 'none') {
    return ok(
      buildDiscoItems({
        items: [{ jid: endpoint.jid, node: encodeCollectionNode(endpoint.active.version) }],
      }),
    );
  }
  if (target.kind === 'unknown') return ITEM_NOT_FOUND;
  const version = endpoint.versions.get(target.version);
  if (version === undefined) return ITEM_NOT_FOUND;
  if (target.kind === 'tool') {
    if (!version.tools.some((tool) => tool.name === target.tool)) return ITEM_NOT_FOUND;
    return ok(buildDiscoItems({ node: encodeToolNode(version.version, target.tool), items: [] }));
  }
  return ok(
    buildDiscoItems({
      node: encodeCollectionNode(version.version),
      items: version.tools.map((tool) => ({
        jid: endpoint.jid,
        node: encodeToolNode(version.version, tool.name),
        name: tool.definition.title ?? tool.name,
      })),
    }),
  );
}

function manifestAnswer(endpoint: EndpointRecord, payload: Element): MetadataAnswer {
  const request = parseManifestRequest(payload);
  const version = request.version === undefined ? endpoint.active : endpoint.versions.get(request.version);
  if (version === undefined) return ITEM_NOT_FOUND;
  return ok(
    buildManifest({
      version: version.version,
      hash: version.document.hash,
      json: version.document.bytes.toString('utf8'),
    }),
  );
}

function schemaAnswer(endpoint: EndpointRecord, payload: Element): MetadataAnswer {
  const request = parseSchemaRequest(payload);
  const version = endpoint.versions.get(request.version);
  if (version === undefined) return ITEM_NOT_FOUND;
  // #schemas: a manifest hash that does not select the registered object is a conflict.
  if (!isSha256(request.manifestHash) || request.manifestHash.value !== version.document.hash.value) {
    return refuse('conflict');
  }
  const tool = version.tools.find((candidate) => candidate.name === request.tool);
  const schema = request.direction === 'input' ? tool?.inputSchema : tool?.outputSchema;
  if (tool === undefined || schema === undefined) return ITEM_NOT_FOUND;
  return ok(
    buildSchema({
      tool: tool.name,
      version: version.version,
      direction: request.direction,
      manifestHash: version.document.hash,
      schemaHash: schema.hash,
      json: schema.bytes.toString('utf8'),
    }),
  );
}

/** The metadata request kinds this module answers. */
export type MetadataKind = 'disco-info' | 'disco-items' | 'manifest' | 'schema';

export function metadataKindOf(payload: Element): MetadataKind | undefined {
  if (payload.is('query', NS.discoInfo)) return 'disco-info';
  if (payload.is('query', NS.discoItems)) return 'disco-items';
  if (payload.is('manifest-request', 'urn:xmpp:agent-api:0')) return 'manifest';
  if (payload.is('schema-request', 'urn:xmpp:agent-api:0')) return 'schema';
  return undefined;
}

/**
 * The answer to a metadata get at `to` (a bare JID or the domain). Throws StanzaParseError when
 * the payload breaks its grammar (the caller of this function answers bad-request).
 */
export function answerMetadata(
  world: CompiledWorld,
  to: string,
  kind: MetadataKind,
  payload: Element,
): MetadataAnswer {
  if (to === world.domain) {
    if (kind === 'disco-info') return domainInfo(world, parseDiscoInfoRequest(payload).node);
    if (kind === 'disco-items') return domainItems(world, parseDiscoItemsRequest(payload).node);
    return refuse('service-unavailable');
  }
  const endpoint = world.endpoints.get(to);
  if (endpoint === undefined) return ITEM_NOT_FOUND;
  switch (kind) {
    case 'disco-info': {
      const { node } = parseDiscoInfoRequest(payload);
      return endpointDiscoInfo(endpoint, nodeTarget(node), node);
    }
    case 'disco-items':
      return endpointDiscoItems(endpoint, nodeTarget(parseDiscoItemsRequest(payload).node));
    case 'manifest':
      return manifestAnswer(endpoint, payload);
    case 'schema':
      return schemaAnswer(endpoint, payload);
  }
}
