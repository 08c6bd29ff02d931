/**
 * The requests one visibility decision governs (#rules): endpoint information and items, the
 * version's tool collection, tool information, the manifest (active and exact) and a tool's
 * schema — each one IQ to an endpoint, pinned to a version, a tool and a hash, so the same
 * request can go to a hidden, an unauthorized and a nonexistent endpoint alike (#errors).
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildSchemaRequest,
  type Hash,
} from '../../../protocol/stanza/index.ts';
import { encodeCollectionNode, encodeToolNode } from '../../../protocol/tool-node.ts';
import type { CaseContext } from '../../framework/context.ts';
import type { FixtureEndpoint } from '../../fixtures/reference-world.ts';
import { MissingFixture } from '../../framework/verdicts.ts';

/** What a surface request names: an endpoint, one of its versions, a tool of it and the version's hash. */
export interface Target {
  readonly jid: string;
  readonly version: string;
  readonly tool: string;
  readonly hash: Hash;
}

export interface Surface {
  readonly name: string;
  /** Tool Discovery surfaces; Core Directory has only endpoint information and items. */
  readonly toolDiscovery: boolean;
  /**
   * An empty result is as good as item-not-found for an object the caller may not see, as long
   * as hidden and nonexistent ones get the same (interp-16: disco#items of an endpoint).
   */
  readonly emptyResultAllowed: boolean;
  readonly payload: (target: Target) => Element;
}

export const SURFACES: readonly Surface[] = [
  {
    name: 'endpoint info',
    toolDiscovery: false,
    emptyResultAllowed: false,
    payload: () => buildDiscoInfoRequest({}),
  },
  {
    name: 'endpoint items',
    toolDiscovery: false,
    emptyResultAllowed: true,
    payload: () => buildDiscoItemsRequest({}),
  },
  {
    name: 'collection info',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: (t) => buildDiscoInfoRequest({ node: encodeCollectionNode(t.version) }),
  },
  {
    name: 'collection items',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: (t) => buildDiscoItemsRequest({ node: encodeCollectionNode(t.version), rsm: { max: 10 } }),
  },
  {
    name: 'tool info',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: (t) => buildDiscoInfoRequest({ node: encodeToolNode(t.version, t.tool) }),
  },
  {
    name: 'active manifest',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: () => buildManifestRequest({}),
  },
  {
    name: 'exact manifest',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: (t) => buildManifestRequest({ version: t.version }),
  },
  {
    name: 'input schema',
    toolDiscovery: true,
    emptyResultAllowed: false,
    payload: (t) =>
      buildSchemaRequest({ tool: t.tool, version: t.version, direction: 'input', manifestHash: t.hash }),
  },
];

/** The surfaces the SUT's claims make it answer. */
export function surfacesFor(context: CaseContext): readonly Surface[] {
  const toolDiscovery = context.sut.profiles.has('tool-discovery');
  return SURFACES.filter((surface) => toolDiscovery || !surface.toolDiscovery);
}

export function probe(caller: Caller, target: Target, surface: Surface): Promise<IqExchange> {
  return caller.exchangeIq(target.jid, 'get', surface.payload(target));
}

/** The endpoint's active version (or its first registered one) and that version's first tool. */
export function targetOf(endpoint: FixtureEndpoint): Target {
  const manifest = endpoint.active ?? endpoint.versions[0];
  const tool = manifest?.tools[0];
  if (manifest === undefined || tool === undefined) {
    throw new MissingFixture(
      `the fixture world gives ${endpoint.jid} no version with a tool: the surfaces pin a tool`,
    );
  }
  return { jid: endpoint.jid, version: manifest.version, tool: tool.name, hash: manifest.document.hash };
}

/** The same request at a JID nobody registered, on the gateway's domain. */
export function nonexistentLike(target: Target, jid: string): Target {
  return { ...target, jid };
}
