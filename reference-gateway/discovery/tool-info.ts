/**
 * disco#info at a tool node urn:xmpp:agent-tool:0#VERSION#NAME (#tool-info): identity
 * agent-tool, the tool feature, the task features the tool effectively supports, and the
 * tool-info form. Everything comes from the pinned manifest; nothing is manufactured.
 */
import { FEATURE, IDENTITY_CATEGORY, IDENTITY_TYPE, NS, NS_AGENT_API } from '../../protocol/namespaces.ts';
import { encodeToolNode } from '../../protocol/tool-node.ts';
import { buildDiscoInfo, buildDiscoItems, toolInfoFields } from '../../protocol/stanza/index.ts';
import type { Catalog, ManifestRecord, Requester, ToolRecord } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import type { DiscoverySettings } from './settings.ts';
import { toolDisplayName } from './tool-collection.ts';

/**
 * Effective support is the endpoint's advertised feature AND the pinned tool's declaration; a
 * missing declaration is false (#conformance; interp-05).
 *
 * manifest.endpoint-features-prevail, conformance.no-false-advertising
 */
export function toolTaskFeatures(tool: ToolRecord, settings: DiscoverySettings): string[] {
  const declared = tool.definition[NS_AGENT_API] ?? {};
  const { progress, cancel, input } = settings.taskFeatures;
  return [
    ...(progress && declared.supportsProgress === true ? [FEATURE.taskProgress] : []),
    ...(cancel && declared.supportsCancellation === true ? [FEATURE.taskCancel] : []),
    ...(input && declared.supportsInput === true ? [FEATURE.taskInput] : []),
  ];
}

/**
 * The tool a version-pinned tool node names, compared code point by code point (#namespaces).
 *
 * namespaces.tool-name-rules, i18n.stable-names: tool names compare code point by code point,
 * never normalized, whatever the locale.
 */
function findTool(record: ManifestRecord | undefined, toolName: string): ToolRecord | undefined {
  return record?.tools.find((tool) => tool.name === toolName);
}

export function toolInfo(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  version: string,
  toolName: string,
  settings: DiscoverySettings,
): Outcome {
  const record = catalog.visibleVersion(requester, jid, version);
  const tool = findTool(record, toolName);
  if (record === undefined || tool === undefined) return refuse(FAULT.itemNotFound);
  return answer(
    buildDiscoInfo({
      node: encodeToolNode(record.version, tool.name),
      // tool-info.disco-info
      identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.tool, name: toolDisplayName(tool) }],
      features: [NS.discoInfo, FEATURE.tool, ...toolTaskFeatures(tool, settings)],
      // tool-info.required-fields, tool-info.hash-pairs, tool-info.no-manufactured-values: each
      // algo/value pair together or not at all, an annotation only where the manifest states it
      // as a boolean (interp-08).
      forms: [{ type: 'result', fields: toolInfoFields(record.version, tool) }],
    }),
  );
}

/**
 * disco#items at a tool node: a tool has no items, and XEP-0030 §4.1 wants an empty <query/>
 * rather than an error for an entity without items. An unknown tool is item-not-found.
 */
export function toolItems(
  catalog: Catalog,
  requester: Requester,
  jid: string,
  version: string,
  toolName: string,
): Outcome {
  const record = catalog.visibleVersion(requester, jid, version);
  const tool = findTool(record, toolName);
  if (record === undefined || tool === undefined) return refuse(FAULT.itemNotFound);
  return answer(buildDiscoItems({ node: encodeToolNode(record.version, tool.name), items: [] }));
}
