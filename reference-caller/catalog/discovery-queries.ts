/**
 * The discovery and metadata IQs of a caller, each addressed to the bare JID it concerns and
 * answered as a typed value or a QueryFailed that says what went wrong without concluding
 * anything about existence (#use-case-discovery: a failed query says nothing about whether the
 * endpoint exists, so the catalog only records "not listed this time").
 */
import type { Element } from '@xmpp/xml';
import { FEATURE, FORM_TYPE, IDENTITY_CATEGORY, IDENTITY_TYPE } from '../../protocol/namespaces.ts';
import {
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildManifestRequest,
  buildSchemaRequest,
  extensionForms,
  fieldOf,
  hasFeature,
  parseDiscoInfo,
  parseDiscoItems,
  parseManifest,
  parseSchema,
  type DiscoInfo,
  type DiscoItem,
  type Hash,
  type Manifest,
  type SchemaDirection,
  type ToolSchema,
} from '../../protocol/stanza/index.ts';
import { encodeCollectionNode, encodeToolNode } from '../../protocol/tool-node.ts';
import { IqLost, type IqAnswer, type Querier } from '../querier.ts';

export class QueryFailed extends Error {
  override readonly name = 'QueryFailed';
  constructor(
    readonly to: string,
    readonly what: string,
    readonly reason: string,
  ) {
    super(`${what} at ${to}: ${reason}`);
  }
}

async function ask<T>(
  querier: Querier,
  to: string,
  what: string,
  payload: Element,
  read: (payload: Element) => T,
): Promise<T> {
  let answer: IqAnswer;
  try {
    answer = await querier(to, 'get', payload);
  } catch (error) {
    if (error instanceof IqLost) throw new QueryFailed(to, what, 'no answer in time');
    throw error;
  }
  if (answer.type === 'error') {
    throw new QueryFailed(to, what, `error <${answer.error.condition}/> (type ${answer.error.type})`);
  }
  if (answer.payload === undefined) throw new QueryFailed(to, what, 'an empty result');
  try {
    return read(answer.payload);
  } catch (error) {
    throw new QueryFailed(
      to,
      what,
      `a malformed result (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/**
 * #find-gateway: a candidate is a gateway only if its disco#info advertises the directory
 * feature; the look of its name proves nothing.
 */
export async function verifyGateway(querier: Querier, gatewayJid: string): Promise<void> {
  const info = await ask(
    querier,
    gatewayJid,
    'gateway disco#info',
    buildDiscoInfoRequest({}),
    parseDiscoInfo,
  );
  if (!hasFeature(info, FEATURE.directory)) {
    throw new QueryFailed(gatewayJid, 'gateway disco#info', `no ${FEATURE.directory} feature`);
  }
}

export interface EndpointInfo {
  readonly activeVersion: string;
  readonly manifestHash: Hash;
  /** request_replay_seconds: how long an identical invoke is recognized (#invocation). */
  readonly replaySeconds: number;
  readonly features: readonly string[];
}

function formValue(info: DiscoInfo, formType: string, name: string): string | undefined {
  const [form] = extensionForms(info, formType);
  return form === undefined ? undefined : fieldOf(form.fields, name)?.values[0];
}

function readEndpointInfo(info: DiscoInfo): EndpointInfo {
  const isEndpoint = info.identities.some(
    (identity) => identity.category === IDENTITY_CATEGORY && identity.type === IDENTITY_TYPE.endpoint,
  );
  if (!isEndpoint || !hasFeature(info, FEATURE.endpoint)) throw new Error('not an agent endpoint');
  if (!hasFeature(info, FEATURE.task)) throw new Error(`no ${FEATURE.task} feature: nothing can be invoked`);
  const read = (name: string): string => {
    const value = formValue(info, FORM_TYPE.endpointInfo, name);
    if (value === undefined) throw new Error(`no ${name} field`);
    return value;
  };
  const replay = read('request_replay_seconds');
  if (!/^[1-9][0-9]{0,9}$/.test(replay)) throw new Error('request_replay_seconds is not a positive integer');
  return {
    activeVersion: read('version'),
    manifestHash: { algo: read('manifest_hash_algo'), value: read('manifest_hash_value') },
    replaySeconds: Number(replay),
    features: info.features,
  };
}

export function endpointInfo(querier: Querier, endpoint: string): Promise<EndpointInfo> {
  return ask(querier, endpoint, 'endpoint disco#info', buildDiscoInfoRequest({}), (payload) =>
    readEndpointInfo(parseDiscoInfo(payload)),
  );
}

export function retrieveManifest(querier: Querier, endpoint: string, version?: string): Promise<Manifest> {
  const request = buildManifestRequest(version === undefined ? {} : { version });
  return ask(querier, endpoint, 'manifest retrieval', request, parseManifest);
}

/** Page size of the tool collection walk: an internal detail, never an MCP cursor (#mcp-mapping). */
const RSM_PAGE = 50;
/** A collection that keeps handing out pages past this is not walked to the end. */
const MAX_PAGES = 200;

/** Every item of the version-pinned tool collection, following RSM `<last/>` page by page. */
export async function toolCollection(
  querier: Querier,
  endpoint: string,
  version: string,
): Promise<DiscoItem[]> {
  const node = encodeCollectionNode(version);
  const items: DiscoItem[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const request = buildDiscoItemsRequest({
      node,
      rsm: { max: RSM_PAGE, ...(after === undefined ? {} : { after }) },
    });
    const result = await ask(querier, endpoint, 'tool listing', request, parseDiscoItems);
    items.push(...result.items);
    const last = result.rsm?.last;
    const count = result.rsm?.count;
    if (result.items.length === 0 || last === undefined || last === after) return items;
    if (count !== undefined && items.length >= count) return items;
    after = last;
  }
  throw new QueryFailed(endpoint, 'tool listing', `more than ${String(MAX_PAGES)} pages`);
}

export interface ToolInfo {
  readonly name: string;
  readonly features: readonly string[];
  readonly inputSchemaHash: Hash;
  readonly outputSchemaHash?: Hash;
  /** The annotation fields as the form states them; absent fields stay absent (#tool-info). */
  readonly hints: Readonly<Record<string, string>>;
}

const HINT_FIELDS = ['read_only', 'destructive', 'idempotent', 'open_world'] as const;

function readToolInfo(info: DiscoInfo): ToolInfo {
  const isTool = info.identities.some(
    (identity) => identity.category === IDENTITY_CATEGORY && identity.type === IDENTITY_TYPE.tool,
  );
  if (!isTool || !hasFeature(info, FEATURE.tool)) throw new Error('not an agent tool');
  const value = (name: string): string | undefined => formValue(info, FORM_TYPE.toolInfo, name);
  const pair = (prefix: string): Hash | undefined => {
    const algo = value(`${prefix}_hash_algo`);
    const hashValue = value(`${prefix}_hash_value`);
    if ((algo === undefined) !== (hashValue === undefined))
      throw new Error(`${prefix} hash fields come in pairs`);
    return algo === undefined || hashValue === undefined ? undefined : { algo, value: hashValue };
  };
  const name = value('name');
  const inputSchemaHash = pair('input_schema');
  if (name === undefined || inputSchemaHash === undefined)
    throw new Error('name or input schema hash missing');
  const outputSchemaHash = pair('output_schema');
  const hints: Record<string, string> = {};
  for (const field of HINT_FIELDS) {
    const hint = value(field);
    if (hint !== undefined) hints[field] = hint;
  }
  return {
    name,
    features: info.features,
    inputSchemaHash,
    ...(outputSchemaHash === undefined ? {} : { outputSchemaHash }),
    hints,
  };
}

export function toolInfo(
  querier: Querier,
  endpoint: string,
  version: string,
  tool: string,
): Promise<ToolInfo> {
  const request = buildDiscoInfoRequest({ node: encodeToolNode(version, tool) });
  return ask(querier, endpoint, `tool information of ${tool}`, request, (payload) =>
    readToolInfo(parseDiscoInfo(payload)),
  );
}

export function retrieveSchema(
  querier: Querier,
  endpoint: string,
  request: {
    readonly tool: string;
    readonly version: string;
    readonly direction: SchemaDirection;
    readonly manifestHash: Hash;
  },
): Promise<ToolSchema> {
  return ask(
    querier,
    endpoint,
    `${request.direction} schema of ${request.tool}`,
    buildSchemaRequest(request),
    parseSchema,
  );
}
