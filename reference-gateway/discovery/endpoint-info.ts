/**
 * An endpoint's own discovery (#endpoint-info): node-less disco#info with the endpoint-info
 * form for the active version, and node-less disco#items listing that version's tool
 * collection node (interp-16). Both read the active version through
 * Catalog.visibleEndpoint, so hidden, nonexistent and deactivated endpoints are one case.
 */
import { FEATURE, IDENTITY_CATEGORY, IDENTITY_TYPE, NS } from '../../protocol/namespaces.ts';
import { encodeCollectionNode } from '../../protocol/tool-node.ts';
import { buildDiscoInfo, buildDiscoItems, endpointInfoFields } from '../../protocol/stanza/index.ts';
import type { FormFieldInput, RsmRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, Requester, VisibleEndpoint } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { pageResultSet } from './rsm-paging.ts';
import type { OrderedSet } from './rsm-paging.ts';
import type { DiscoverySettings, TaskFeatureSwitches } from './settings.ts';

/**
 * The endpoint-wide task features the gateway implements (#conformance: never more).
 *
 * conformance.no-false-advertising: task features only where the engine executes
 * (component/task-routing.ts).
 */
export function endpointTaskFeatures(switches: TaskFeatureSwitches): string[] {
  return [
    ...(switches.core ? [FEATURE.task] : []),
    ...(switches.progress ? [FEATURE.taskProgress] : []),
    ...(switches.cancel ? [FEATURE.taskCancel] : []),
    ...(switches.input ? [FEATURE.taskInput] : []),
  ];
}

/**
 * The endpoint-info form of the active version (protocol/stanza/info-forms.ts: server_title
 * falls back to agent.name, interp-21).
 *
 * endpoint-info.required-fields, endpoint-info.manifest-hash-fields,
 * endpoint-info.cold-start-boolean, endpoint-info.replay-window-field: every required field, the
 * hash of the manifest <manifest-request/> serves, booleans as 1/0.
 */
function endpointInfoForm(endpoint: VisibleEndpoint, settings: DiscoverySettings): FormFieldInput[] {
  const { active } = endpoint;
  return endpointInfoFields({
    agent: active.manifest.agent,
    version: active.version,
    manifestHash: active.document.hash,
    coldStartSupported: settings.coldStartSupported,
    requestReplaySeconds: settings.requestReplaySeconds,
  });
}

export function endpointInfo(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  settings: DiscoverySettings,
): Outcome {
  const endpoint = catalog.visibleEndpoint(requester, jid);
  // errors.not-found-equivalence: hidden, nonexistent and deactivated endpoints are one undefined,
  // one fault.
  if (endpoint === undefined) return refuse(FAULT.itemNotFound);
  const { agent } = endpoint.active.manifest;
  return answer(
    buildDiscoInfo({
      // endpoint-info.disco-info: automation/agent-endpoint, both disco features, the API and task
      // features, the endpoint-info form.
      identities: [
        { category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.endpoint, name: agent.title ?? agent.name },
      ],
      features: [
        NS.discoInfo,
        NS.discoItems,
        FEATURE.endpoint,
        FEATURE.manifest,
        FEATURE.schema,
        ...endpointTaskFeatures(settings.taskFeatures),
        // XEP-0199 §6: an entity that answers pings (health/ping-route.ts answers at every
        // hosted JID) says so where its disco#info succeeds.
        ...(settings.gatewayFeatures.ping ? [NS.ping] : []),
        // messaging.advertise-implemented: the chat extensions, only on endpoints that chat.
        ...(settings.messagingFeatures?.(endpoint.jid) ?? []),
      ],
      forms: [{ type: 'result', fields: endpointInfoForm(endpoint, settings) }],
    }),
  );
}

/**
 * Node-less disco#items: the active version's collection node (interp-16). The one
 * item pages like any other set; its UID is the node, and any other UID has no position.
 */
export function endpointItems(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  rsm: RsmRequest | undefined,
  settings: DiscoverySettings,
): Outcome {
  const endpoint = catalog.visibleEndpoint(requester, jid);
  if (endpoint === undefined) return refuse(FAULT.itemNotFound);
  const node = encodeCollectionNode(endpoint.active.version);
  const set: OrderedSet<string> = {
    items: [node],
    uidOf: (item) => item,
    positionOf: (uid) => (uid === node ? () => 0 : undefined),
  };
  const paged = pageResultSet(set, rsm, settings.pageMaximum);
  if (!paged.ok) return refuse(paged.fault);
  const { items, rsm: page } = paged.page;
  return answer(
    buildDiscoItems({
      // list-tools.item-jid-and-node
      items: items.map((item) => ({ jid: endpoint.jid, node: item })),
      ...(page === undefined ? {} : { rsm: page }),
    }),
  );
}
