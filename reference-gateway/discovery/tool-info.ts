/**
 * disco#info at a tool node urn:xmpp:agent-tool:0#VERSION#NAME (#tool-info): identity
 * agent-tool, the tool feature, the task features the tool effectively supports, and the
 * tool-info form. Everything comes from the pinned manifest; nothing is manufactured.
 */
import {
  FEATURE,
  FORM_TYPE,
  IDENTITY_CATEGORY,
  IDENTITY_TYPE,
  NS,
  NS_AGENT_API,
} from '../../protocol/namespaces.ts';
import { encodeToolNode } from '../../protocol/tool-node.ts';
import { buildDiscoInfo, buildDiscoItems } from '../../protocol/stanza/index.ts';
import type { FormFieldInput } from '../../protocol/stanza/index.ts';
import type { Catalog, ManifestRecord, Requester, ToolRecord } from '../catalog/catalog.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, answer, refuse } from '../iq/outcome.ts';
import { booleanField, formTypeField, textMulti, textSingle } from './form-values.ts';
import type { DiscoverySettings } from './settings.ts';
import { toolDisplayName } from './tool-collection.ts';

/** MCP annotation hints and the tool-info fields they map to (#tool-info, #mcp-mapping). */
const ANNOTATION_FIELDS = [
  ['readOnlyHint', 'read_only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open_world'],
] as const;

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
 * An annotation becomes a field only when the manifest states it as a boolean: an absent hint
 * means unknown and stays absent (#tool-info; interp-08). MCP types the hints as
 * booleans; a value of another type has no XEP-0004 boolean form and is left out too.
 *
 * tool-info.no-manufactured-values: an absent hint stays absent.
 */
function annotationFields(tool: ToolRecord): FormFieldInput[] {
  const annotations = tool.definition.annotations ?? {};
  return ANNOTATION_FIELDS.flatMap(([hint, field]) => {
    const value = annotations[hint];
    return typeof value === 'boolean' ? [booleanField(field, value)] : [];
  });
}

/**
 * Each algo/value pair appears together or not at all (#tool-info).
 *
 * tool-info.required-fields, tool-info.hash-pairs, tool-info.no-manufactured-values
 */
function toolInfoForm(record: ManifestRecord, tool: ToolRecord): FormFieldInput[] {
  const { title, description } = tool.definition;
  const output = tool.outputSchema;
  return [
    formTypeField(FORM_TYPE.toolInfo),
    textSingle('name', tool.name),
    ...(title === undefined ? [] : [textSingle('title', title)]),
    ...(description === undefined ? [] : [textMulti('description', description)]),
    textSingle('api_version', record.version),
    textSingle('input_schema_hash_algo', tool.inputSchema.hash.algo),
    textSingle('input_schema_hash_value', tool.inputSchema.hash.value),
    ...(output === undefined
      ? []
      : [
          textSingle('output_schema_hash_algo', output.hash.algo),
          textSingle('output_schema_hash_value', output.hash.value),
        ]),
    ...annotationFields(tool),
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
      forms: [{ type: 'result', fields: toolInfoForm(record, tool) }],
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
