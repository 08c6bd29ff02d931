/**
 * disco#info at the gateway JID: the gateway itself (#gateway-info) and the directory node
 * (#list-agents). Features come from the settings so the gateway advertises only what the
 * running deployment implements (#conformance).
 */
import type { Element } from '@xmpp/xml';
import { FEATURE, IDENTITY_CATEGORY, IDENTITY_TYPE, NODE_DIRECTORY, NS } from '../../protocol/namespaces.ts';
import { buildDiscoInfo } from '../../protocol/stanza/index.ts';
import type { DiscoverySettings } from './settings.ts';

/**
 * The gateway's feature vars. RSM is advertised because every listing pages (XEP-0059
 * "Determining Support"; interp-09). Search brings jabber:x:data with it: its form
 * and result use XEP-0004 (#search).
 *
 * gateway-info.features, conformance.no-false-advertising: the directory feature always, the others
 * only when the deployment implements them.
 */
export function gatewayFeatures(settings: DiscoverySettings): string[] {
  const { admin, selfRegister, ping } = settings.gatewayFeatures;
  return [
    NS.discoInfo,
    NS.discoItems,
    NS.rsm,
    FEATURE.directory,
    ...(settings.searchEnabled ? [NS.search, NS.dataForms] : []),
    ...(admin ? [FEATURE.admin] : []),
    ...(selfRegister ? [FEATURE.selfRegister] : []),
    ...(ping ? [NS.ping] : []),
  ];
}

// gateway-info.identity: automation/agent-gateway.
export function gatewayInfo(settings: DiscoverySettings): Element {
  return buildDiscoInfo({
    identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.gateway, name: settings.gatewayName }],
    features: gatewayFeatures(settings),
  });
}

/**
 * #list-agents: identity automation/agent-directory plus disco#info and disco#items.
 *
 * list-agents.directory-node-info
 */
export function directoryNodeInfo(): Element {
  return buildDiscoInfo({
    node: NODE_DIRECTORY,
    identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.directory }],
    features: [NS.discoInfo, NS.discoItems],
  });
}
