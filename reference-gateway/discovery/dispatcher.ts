/**
 * The one entry point the XMPP wiring calls for discovery, metadata and search IQs. It routes
 * by payload, addressee and node, parses the payload, and leaves every visibility decision to
 * the catalog. Everything decided before the catalog is asked (payload shape, IQ type, node
 * syntax) depends only on the request, never on whether an endpoint exists or is hidden; after
 * that, hidden, nonexistent and deactivated endpoints are the same `undefined` and take the same
 * path to the same FAULT.itemNotFound (#errors; interp-19).
 */
import type { Element } from '@xmpp/xml';
import { NODE_DIRECTORY, NS, NS_AGENT_API } from '../../protocol/namespaces.ts';
import {
  StanzaParseError,
  localNameOf,
  namespaceOf,
  parseDiscoInfoRequest,
  parseDiscoItemsRequest,
  parseManifestRequest,
  parseSchemaRequest,
  parseSearchFormRequest,
  parseSearchRequest,
} from '../../protocol/stanza/index.ts';
import type { Catalog, Requester } from '../catalog/catalog.ts';
import { classifyAddressee } from '../iq/addressing.ts';
import { directoryItems } from './directory.ts';
import { endpointInfo, endpointItems } from './endpoint-info.ts';
import { classifyEndpointNode } from './endpoint-nodes.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { directoryNodeInfo, gatewayInfo } from './gateway-info.ts';
import { manifestRetrieval } from './manifest-retrieval.ts';
import { schemaRetrieval } from './schema-retrieval.ts';
import { searchForm, searchSubmission } from './search.ts';
import type { DiscoverySettings } from './settings.ts';
import { collectionInfo, collectionItems } from './tool-collection.ts';
import { toolInfo, toolItems } from './tool-info.ts';

export interface DiscoveryRequest {
  /** The IQ's type; results and errors are not requests. */
  readonly iqType: 'get' | 'set';
  /** The IQ's 'to' exactly as received. */
  readonly to: string;
  /** The authenticated sender (#rules: the principal every visibility decision is for). */
  readonly requester: Requester;
  /** The IQ's one child element. */
  readonly payload: Element;
}

export type DiscoveryPayloadKind = 'disco-info' | 'disco-items' | 'search' | 'manifest' | 'schema';

/** Every payload respondToDiscovery answers, by namespace and element name. */
export const DISCOVERY_PAYLOADS: readonly (readonly [
  ns: string,
  local: string,
  kind: DiscoveryPayloadKind,
])[] = [
  [NS.discoInfo, 'query', 'disco-info'],
  [NS.discoItems, 'query', 'disco-items'],
  [NS.search, 'query', 'search'],
  [NS_AGENT_API, 'manifest-request', 'manifest'],
  [NS_AGENT_API, 'schema-request', 'schema'],
];

function payloadKind(payload: Element): DiscoveryPayloadKind | undefined {
  const ns = namespaceOf(payload);
  const local = localNameOf(payload);
  return DISCOVERY_PAYLOADS.find(
    ([candidateNs, candidateLocal]) => candidateNs === ns && candidateLocal === local,
  )?.[2];
}

/**
 * Runs a codec parser; a payload that breaks the grammar is a bad-request (#errors), decided
 * from the payload alone. The parse error's text is not passed on: it may quote the request.
 */
function parsed<T>(parse: (payload: Element) => T, payload: Element, use: (value: T) => Outcome): Outcome {
  let value: T;
  try {
    value = parse(payload);
  } catch (error) {
    if (error instanceof StanzaParseError) return refuse(FAULT.badRequest);
    throw error;
  }
  return use(value);
}

/**
 * Discovery and search are IQ get, search submissions IQ set (#discovery, #search,
 * #manifest-retrieval, #schemas). Another type is an unsupported request for this namespace:
 * service-unavailable, as XMPP servers answer an IQ nobody handles (RFC 6120 §8.4).
 */
function typeAllowed(kind: DiscoveryPayloadKind, iqType: 'get' | 'set'): boolean {
  return kind === 'search' || iqType === 'get';
}

function atGateway(
  kind: DiscoveryPayloadKind,
  request: DiscoveryRequest,
  catalog: Catalog,
  settings: DiscoverySettings,
): Outcome {
  const { requester, payload } = request;
  switch (kind) {
    case 'disco-info':
      return parsed(parseDiscoInfoRequest, payload, ({ node }) => {
        if (node === undefined) return answer(gatewayInfo(settings));
        return node === NODE_DIRECTORY ? answer(directoryNodeInfo()) : refuse(FAULT.itemNotFound);
      });
    case 'disco-items':
      // list-agents.node-optional: node-less and directory-node listings are the same.
      return parsed(parseDiscoItemsRequest, payload, ({ node, rsm }) =>
        node === undefined || node === NODE_DIRECTORY
          ? directoryItems(catalog, requester, node, rsm, settings)
          : refuse(FAULT.itemNotFound),
      );
    case 'search':
      // search.advertised-and-implemented: search answered at the gateway JID exactly when
      // advertised.
      if (!settings.searchEnabled) return refuse(FAULT.serviceUnavailable);
      return request.iqType === 'get'
        ? parsed(parseSearchFormRequest, payload, () => answer(searchForm()))
        : parsed(parseSearchRequest, payload, (search) =>
            searchSubmission(catalog, requester, search, settings),
          );
    case 'manifest':
    case 'schema':
      // The gateway is not an endpoint: it has no manifest or schemas to serve.
      return refuse(FAULT.serviceUnavailable);
  }
}

function atEndpoint(
  kind: DiscoveryPayloadKind,
  jid: string,
  request: DiscoveryRequest,
  catalog: Catalog,
  settings: DiscoverySettings,
): Outcome {
  const { requester, payload } = request;
  switch (kind) {
    case 'disco-info':
      return parsed(parseDiscoInfoRequest, payload, ({ node }) => {
        const target = classifyEndpointNode(node);
        switch (target.kind) {
          case 'endpoint':
            return endpointInfo(catalog, requester, jid, settings);
          case 'collection':
            return collectionInfo(catalog, requester, jid, target.version);
          case 'tool':
            return toolInfo(catalog, requester, jid, target.version, target.toolName, settings);
          case 'none':
            return refuse(FAULT.itemNotFound);
        }
      });
    case 'disco-items':
      return parsed(parseDiscoItemsRequest, payload, ({ node, rsm }) => {
        const target = classifyEndpointNode(node);
        switch (target.kind) {
          case 'endpoint':
            return endpointItems(catalog, requester, jid, rsm, settings);
          case 'collection':
            return collectionItems(catalog, requester, jid, target.version, rsm, settings);
          case 'tool':
            return toolItems(catalog, requester, jid, target.version, target.toolName);
          case 'none':
            return refuse(FAULT.itemNotFound);
        }
      });
    case 'manifest':
      return parsed(parseManifestRequest, payload, (manifest) =>
        manifestRetrieval(catalog, requester, jid, manifest),
      );
    case 'schema':
      // schemas.request-attributes: the codec refuses a request without tool, version, direction or
      // hash (bad-request).
      return parsed(parseSchemaRequest, payload, (schema) =>
        schemaRetrieval(catalog, requester, jid, schema),
      );
    case 'search':
      // Search is a gateway service (#search); the same answer whether or not the JID exists.
      return refuse(FAULT.serviceUnavailable);
  }
}

/**
 * The answer to one IQ get/set, or undefined when the payload is not discovery's (the wiring
 * routes it elsewhere: registration, tasks, ping). `settings` must have passed
 * checkDiscoverySettings.
 */
export function respondToDiscovery(
  request: DiscoveryRequest,
  catalog: Catalog,
  settings: DiscoverySettings,
): Outcome | undefined {
  const kind = payloadKind(request.payload);
  if (kind === undefined) return undefined;
  const addressee = classifyAddressee(request.to, settings.gatewayJid);
  if (addressee.kind === 'malformed') return refuse(FAULT.jidMalformed);
  if (addressee.kind === 'full-jid' || !typeAllowed(kind, request.iqType)) {
    return refuse(FAULT.serviceUnavailable);
  }
  return addressee.kind === 'gateway'
    ? atGateway(kind, request, catalog, settings)
    : atEndpoint(kind, addressee.jid, request, catalog, settings);
}
