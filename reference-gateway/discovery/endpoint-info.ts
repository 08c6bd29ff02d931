/**
 * An endpoint's own discovery (#endpoint-info): node-less disco#info with the endpoint-info
 * form for the active version, and node-less disco#items listing that version's tool
 * collection node (interp-16). Both read the active version through
 * Catalog.visibleEndpoint, so hidden, nonexistent and deactivated endpoints are one case.
 */
import { FEATURE, FORM_TYPE, IDENTITY_CATEGORY, IDENTITY_TYPE, NS } from '../../protocol/namespaces.ts';
import { encodeCollectionNode } from '../../protocol/tool-node.ts';
import { buildDiscoInfo, buildDiscoItems } from '../../protocol/stanza/index.ts';
import type { FormFieldInput, RsmRequest } from '../../protocol/stanza/index.ts';
import type { Catalog, Requester, VisibleEndpoint } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { booleanField, formTypeField, textMulti, textSingle } from './form-values.ts';
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
 * The endpoint-info form. server_name is agent.name and server_title agent.title, falling
 * back to agent.name because the field is REQUIRED and the member OPTIONAL (interp-21).
 *
 * endpoint-info.required-fields, endpoint-info.manifest-hash-fields,
 * endpoint-info.cold-start-boolean, endpoint-info.replay-window-field: every required field, the
 * hash of the manifest <manifest-request/> serves, booleans as 1/0.
 */
function endpointInfoForm(endpoint: VisibleEndpoint, settings: DiscoverySettings): FormFieldInput[] {
  const { active } = endpoint;
  const { agent } = active.manifest;
  return [
    formTypeField(FORM_TYPE.endpointInfo),
    textSingle('server_name', agent.name),
    textSingle('server_title', agent.title ?? agent.name),
    ...(agent.description === undefined ? [] : [textMulti('description', agent.description)]),
    textSingle('version', active.version),
    textSingle('manifest_hash_algo', active.document.hash.algo),
    textSingle('manifest_hash_value', active.document.hash.value),
    booleanField('cold_start_supported', settings.coldStartSupported),
    textSingle('request_replay_seconds', String(settings.requestReplaySeconds)),
  ];
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
