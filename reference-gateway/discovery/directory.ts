/**
 * The directory listing: disco#items at the gateway JID, node-less or with node
 * urn:xmpp:agent-directory:0 (#list-agents). Items carry the endpoint JID and its display name
 * and never a node (each item is an addressable entity); only visible endpoints are listed, and
 * the RSM count counts only them.
 */
import { buildDiscoItems } from '../../protocol/stanza/index.ts';
import type { RsmRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, Requester } from '../catalog/catalog.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { byJidOctets, endpointDisplayName, endpointSet } from './endpoint-order.ts';
import { pageResultSet } from './rsm-paging.ts';
import type { DiscoverySettings } from './settings.ts';

export function directoryItems(
  catalog: Catalog,
  requester: Requester,
  node: string | undefined,
  rsm: RsmRequest | undefined,
  settings: DiscoverySettings,
): Outcome {
  // list-agents.visibility-filter, list-agents.count-visible-only, list-agents.octet-order: the
  // visible endpoints alone, in JID octet order, are the set that is paged and counted.
  const endpoints = byJidOctets(catalog.visibleEndpoints(requester));
  // list-agents.rsm-paging
  const paged = pageResultSet(endpointSet(endpoints), rsm, settings.pageMaximum);
  if (!paged.ok) return refuse(paged.fault);
  const { items, rsm: set } = paged.page;
  return answer(
    buildDiscoItems({
      ...(node === undefined ? {} : { node }),
      // list-agents.item-jid, list-agents.item-no-node, namespaces.no-resourcepart: the endpoint's
      // bare JID and no node.
      items: items.map((endpoint) => ({ jid: endpoint.jid, name: endpointDisplayName(endpoint) })),
      ...(set === undefined ? {} : { rsm: set }),
    }),
  );
}
