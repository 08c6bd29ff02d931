/**
 * The fields of the two XEP-0128 result forms a responder attaches to disco#info: the
 * endpoint-info form (#endpoint-info) and the tool-info form (#tool-info), typed as the XEP-0068
 * registrations declare (#registrar-formtypes). One builder for every responder the project
 * runs (the reference gateway and the harness's fake target), so the two cannot drift apart on
 * the wire. What goes into the fields (which version, which hash, which settings) is the
 * responder's.
 */
import { FORM_TYPE } from '../namespaces.ts';
import { FORM_TYPE_FIELD, formBooleanText, type FormFieldInput } from './data-form.ts';
import type { Hash } from './hash.ts';

export function formTypeField(formType: string): FormFieldInput {
  return { var: FORM_TYPE_FIELD, type: 'hidden', values: [formType] };
}

export function textSingleField(name: string, value: string): FormFieldInput {
  return { var: name, type: 'text-single', values: [value] };
}

/**
 * A text-multi field carries one line per <value/> (XEP-0004 §3.3); CRLF and CR become line
 * breaks first, so joining the values with LF gives the text back (interp-20).
 */
export function textMultiField(name: string, value: string): FormFieldInput {
  return { var: name, type: 'text-multi', values: value.replace(/\r\n?/g, '\n').split('\n') };
}

/** Responders emit XEP-0004 booleans as 1 or 0 (#endpoint-info; interp-20). */
export function booleanField(name: string, value: boolean): FormFieldInput {
  return { var: name, type: 'boolean', values: [formBooleanText(value)] };
}

export interface EndpointInfoValues {
  /** The active version's manifest agent. */
  readonly agent: { readonly name: string; readonly title?: string; readonly description?: string };
  /** The active version. */
  readonly version: string;
  /** The hash of the manifest <manifest-request/> serves for that version. */
  readonly manifestHash: Hash;
  readonly coldStartSupported: boolean;
  readonly requestReplaySeconds: number;
}

/**
 * server_name is agent.name and server_title agent.title, falling back to agent.name because
 * the field is REQUIRED and the member OPTIONAL (interp-21); description only when the manifest
 * has one.
 *
 * endpoint-info.required-fields, endpoint-info.manifest-hash-fields,
 * endpoint-info.cold-start-boolean, endpoint-info.replay-window-field
 */
export function endpointInfoFields(values: EndpointInfoValues): FormFieldInput[] {
  const { agent } = values;
  return [
    formTypeField(FORM_TYPE.endpointInfo),
    textSingleField('server_name', agent.name),
    textSingleField('server_title', agent.title ?? agent.name),
    ...(agent.description === undefined ? [] : [textMultiField('description', agent.description)]),
    textSingleField('version', values.version),
    textSingleField('manifest_hash_algo', values.manifestHash.algo),
    textSingleField('manifest_hash_value', values.manifestHash.value),
    booleanField('cold_start_supported', values.coldStartSupported),
    textSingleField('request_replay_seconds', String(values.requestReplaySeconds)),
  ];
}

/** MCP annotation hints and the tool-info fields they map to (#tool-info, #mcp-mapping). */
const ANNOTATION_FIELDS = [
  ['readOnlyHint', 'read_only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open_world'],
] as const;

/** A pinned tool as a responder holds it: its manifest definition and its schemas' hashes. */
export interface ToolInfoSource {
  readonly name: string;
  readonly definition: {
    readonly title?: string;
    readonly description?: string;
    /** The tool's MCP annotations as the manifest states them. */
    readonly annotations?: Readonly<Record<string, unknown>>;
  };
  readonly inputSchema: { readonly hash: Hash };
  /** Absent when the tool declares no output schema. */
  readonly outputSchema?: { readonly hash: Hash } | undefined;
}

/**
 * The tool-info form of `tool` pinned at manifest version `apiVersion`. Each algo/value pair appears together or not at all. An annotation becomes a field only when
 * the manifest states it as a boolean: an absent hint means unknown and stays absent
 * (interp-08); MCP types the hints as booleans, and a value of another type has no XEP-0004
 * boolean form, so it is left out too.
 *
 * tool-info.required-fields, tool-info.hash-pairs, tool-info.no-manufactured-values
 */
export function toolInfoFields(apiVersion: string, tool: ToolInfoSource): FormFieldInput[] {
  const { title, description, annotations = {} } = tool.definition;
  const input = tool.inputSchema.hash;
  const output = tool.outputSchema?.hash;
  return [
    formTypeField(FORM_TYPE.toolInfo),
    textSingleField('name', tool.name),
    ...(title === undefined ? [] : [textSingleField('title', title)]),
    ...(description === undefined ? [] : [textMultiField('description', description)]),
    textSingleField('api_version', apiVersion),
    textSingleField('input_schema_hash_algo', input.algo),
    textSingleField('input_schema_hash_value', input.value),
    ...(output === undefined
      ? []
      : [
          textSingleField('output_schema_hash_algo', output.algo),
          textSingleField('output_schema_hash_value', output.value),
        ]),
    ...ANNOTATION_FIELDS.flatMap(([hint, field]) => {
      const value = annotations[hint];
      return typeof value === 'boolean' ? [booleanField(field, value)] : [];
    }),
  ];
}
