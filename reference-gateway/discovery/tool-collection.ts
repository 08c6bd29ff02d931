/**
 * The version-pinned tool collection node urn:xmpp:agent-tools:0#VERSION (#list-tools):
 * disco#info with the agent-tool-collection identity, and disco#items with one item per tool,
 * ordered by the UTF-8 bytes of the tool names and paged with RSM. Any registered version the
 * requester may see is listable, not only the active one (#rules: every tool list stays pinned
 * to its exact manifest; #manifest-retrieval: a recorded version stays addressable).
 */
import { IDENTITY_CATEGORY, IDENTITY_TYPE, NS } from '../../protocol/namespaces.ts';
import { compareUtf8 } from '../../protocol/jid/index.ts';
import {
  ToolNodeError,
  decodeToolNode,
  encodeCollectionNode,
  encodeToolNode,
} from '../../protocol/tool-node.ts';
import { buildDiscoInfo, buildDiscoItems } from '../../protocol/stanza/index.ts';
import type { RsmRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, Requester, ToolRecord } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { pageResultSet } from './rsm-paging.ts';
import type { OrderedSet, UidPosition } from './rsm-paging.ts';
import type { DiscoverySettings } from './settings.ts';

export function toolDisplayName(tool: ToolRecord): string {
  return tool.definition.title ?? tool.name;
}

/**
 * The UID of a tool item is its node, but base64url does not preserve the order of the names
 * it encodes (interp-13), so a UID is placed by its decoded name. A well-formed node
 * of this version places even when no such tool exists; a malformed node, or one of another
 * version, names no position in this list: item-not-found, the answer an unknown tool node
 * gets everywhere else (interp-13 accepts it beside bad-request).
 */
function toolPosition(version: string): (uid: string) => UidPosition<ToolRecord> | undefined {
  return (uid) => {
    let decoded;
    try {
      decoded = decodeToolNode(uid);
    } catch (error) {
      if (error instanceof ToolNodeError) return undefined;
      throw error;
    }
    if (decoded.version !== version) return undefined;
    const { toolName } = decoded;
    return (tool) => compareUtf8(tool.name, toolName);
  };
}

function toolSet(version: string, tools: readonly ToolRecord[]): OrderedSet<ToolRecord> {
  return {
    // The record promises this order; sorting again keeps the MUST independent of the store.
    // list-tools.name-byte-order
    items: tools.toSorted((a, b) => compareUtf8(a.name, b.name)),
    // list-tools.rsm-paging: the full tool node is the RSM UID.
    uidOf: (tool) => encodeToolNode(version, tool.name),
    positionOf: toolPosition(version),
  };
}

export function collectionInfo(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  version: string,
): Outcome {
  const record = catalog.visibleVersion(requester, jid, version);
  if (record === undefined) return refuse(FAULT.itemNotFound);
  return answer(
    buildDiscoInfo({
      node: encodeCollectionNode(record.version),
      // list-tools.collection-node-info
      identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.toolCollection }],
      features: [NS.discoInfo, NS.discoItems],
    }),
  );
}

export function collectionItems(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  version: string,
  rsm: RsmRequest | undefined,
  settings: DiscoverySettings,
): Outcome {
  // rules.version-pinning: the tool list of the exact version named, any registered version the
  // requester may see.
  const record = catalog.visibleVersion(requester, jid, version);
  if (record === undefined) return refuse(FAULT.itemNotFound);
  const set = toolSet(record.version, record.tools);
  const paged = pageResultSet(set, rsm, settings.pageMaximum);
  if (!paged.ok) return refuse(paged.fault);
  const { items, rsm: page } = paged.page;
  return answer(
    buildDiscoItems({
      node: encodeCollectionNode(record.version),
      // list-tools.item-jid-and-node
      items: items.map((tool) => ({ jid: record.jid, node: set.uidOf(tool), name: toolDisplayName(tool) })),
      ...(page === undefined ? {} : { rsm: page }),
    }),
  );
}
