/**
 * What the fake target serves: its endpoints, their registered versions (manifests) and which
 * one is active, and which discovery features each advertises. Cases describe a world; the
 * derived records hold the RFC 8785 bytes and sha-256 hashes that every answer pins, computed by
 * protocol/ (#manifest-retrieval, #schemas: the served hash is the hash of the served bytes).
 */
import { compareUtf8, parseBareJid } from '../../protocol/jid/index.ts';
import { canonicalDocument, type CanonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import type { ManifestTool } from '../../protocol/manifest/index.ts';
import { FEATURE, NS } from '../../protocol/namespaces.ts';

/** The endpoint-wide task features (#endpoint-info): advertised unless withheld. */
export const ENDPOINT_TASK_FEATURES: readonly string[] = [
  FEATURE.task,
  FEATURE.taskProgress,
  FEATURE.taskCancel,
  FEATURE.taskInput,
];

export interface FeatureChoice {
  /** Feature vars left out of the disco#info that would otherwise carry them. */
  readonly withhold?: readonly string[];
  /** Feature vars added (a feature the target does not implement, for a lying target). */
  readonly add?: readonly string[];
}

export interface FakeEndpoint {
  /** The endpoint's bare JID, on the fake target's domain; each manifest's agent.jid. */
  readonly jid: string;
  /** Every registered version's manifest (#manifest); agent.version names the version. */
  readonly manifests: readonly JsonObject[];
  /** The active version (default: the last manifest's). */
  readonly active?: string;
  /** The advertised request_replay_seconds (#endpoint-info; default 86400). */
  readonly replaySeconds?: number;
  /** The advertised cold_start_supported (default true). */
  readonly coldStart?: boolean;
  readonly features?: FeatureChoice;
}

export interface FakeTargetWorld {
  readonly endpoints: readonly FakeEndpoint[];
  /** Features of the fake target's own domain JID (a gateway: #gateway-info). */
  readonly gatewayFeatures?: FeatureChoice;
  /** The gateway identity's name (default "Fake Target"). */
  readonly gatewayName?: string;
}

export interface ToolRecord {
  readonly name: string;
  readonly definition: ManifestTool;
  readonly inputSchema: CanonicalDocument;
  readonly outputSchema?: CanonicalDocument;
}

export interface VersionRecord {
  readonly version: string;
  readonly manifest: JsonObject;
  readonly document: CanonicalDocument;
  /** Ordered by the UTF-8 bytes of their names (#list-tools). */
  readonly tools: readonly ToolRecord[];
}

export interface EndpointRecord {
  readonly jid: string;
  readonly versions: ReadonlyMap<string, VersionRecord>;
  readonly active: VersionRecord;
  readonly replaySeconds: number;
  readonly coldStart: boolean;
  readonly features: FeatureChoice;
  /** agent.name, agent.title and agent.description of the active version. */
  readonly agent: { readonly name: string; readonly title?: string; readonly description?: string };
}

export interface CompiledWorld {
  readonly domain: string;
  readonly gatewayName: string;
  readonly gatewayFeatures: FeatureChoice;
  /** By bare JID (as the world spells it; the fake target normalizes nothing else). */
  readonly endpoints: ReadonlyMap<string, EndpointRecord>;
}

export const DEFAULT_REPLAY_SECONDS = 86_400;

function member(object: JsonObject, name: string): JsonValue | undefined {
  return object[name];
}

function stringMember(object: JsonObject, name: string, where: string): string {
  const value = member(object, name);
  if (typeof value !== 'string') throw new Error(`${where}: ${name} must be a string`);
  return value;
}

function toolRecord(tool: ManifestTool): ToolRecord {
  return {
    name: tool.name,
    definition: tool,
    inputSchema: canonicalDocument(tool.inputSchema),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: canonicalDocument(tool.outputSchema) }),
  };
}

function versionRecord(manifest: JsonObject, jid: string): VersionRecord {
  const agent = member(manifest, 'agent');
  if (typeof agent !== 'object' || agent === null || Array.isArray(agent)) {
    throw new Error(`${jid}: a manifest needs an agent object`);
  }
  const version = stringMember(agent, 'version', `${jid} manifest`);
  const tools = member(manifest, 'tools');
  if (!Array.isArray(tools)) throw new Error(`${jid} ${version}: a manifest needs a tools array`);
  return {
    version,
    manifest,
    document: canonicalDocument(manifest),
    tools: (tools as unknown as ManifestTool[]).map(toolRecord).sort((a, b) => compareUtf8(a.name, b.name)),
  };
}

function endpointRecord(endpoint: FakeEndpoint, domain: string): EndpointRecord {
  const jid = parseBareJid(endpoint.jid);
  if (jid.domainpart !== domain || jid.localpart === undefined) {
    throw new Error(`${endpoint.jid}: a fake target endpoint is an account-like JID on ${domain}`);
  }
  if (endpoint.manifests.length === 0) throw new Error(`${endpoint.jid}: no manifest`);
  const versions = new Map<string, VersionRecord>();
  for (const manifest of endpoint.manifests) {
    const record = versionRecord(manifest, endpoint.jid);
    if (versions.has(record.version)) throw new Error(`${endpoint.jid}: version ${record.version} twice`);
    versions.set(record.version, record);
  }
  const activeVersion = endpoint.active ?? [...versions.keys()].at(-1) ?? '';
  const active = versions.get(activeVersion);
  if (active === undefined)
    throw new Error(`${endpoint.jid}: active version ${activeVersion} has no manifest`);
  const agent = member(active.manifest, 'agent') as JsonObject;
  const optional = (name: string): Record<string, string> => {
    const value = member(agent, name);
    return typeof value === 'string' ? { [name]: value } : {};
  };
  return {
    jid: endpoint.jid,
    versions,
    active,
    replaySeconds: endpoint.replaySeconds ?? DEFAULT_REPLAY_SECONDS,
    coldStart: endpoint.coldStart ?? true,
    features: endpoint.features ?? {},
    agent: {
      name: stringMember(agent, 'name', endpoint.jid),
      ...optional('title'),
      ...optional('description'),
    },
  };
}

/** Checks the world and computes every canonical document and hash once. */
export function compileWorld(world: FakeTargetWorld, domain: string): CompiledWorld {
  const endpoints = new Map<string, EndpointRecord>();
  for (const endpoint of world.endpoints) {
    if (endpoints.has(endpoint.jid)) throw new Error(`${endpoint.jid}: endpoint listed twice`);
    endpoints.set(endpoint.jid, endpointRecord(endpoint, domain));
  }
  return {
    domain,
    gatewayName: world.gatewayName ?? 'Fake Target',
    gatewayFeatures: world.gatewayFeatures ?? {},
    endpoints,
  };
}

/** The advertised features: the defaults minus the withheld, plus the added. */
export function chooseFeatures(defaults: readonly string[], choice: FeatureChoice): string[] {
  const withheld = new Set(choice.withhold ?? []);
  const chosen = defaults.filter((feature) => !withheld.has(feature));
  for (const feature of choice.add ?? []) if (!chosen.includes(feature)) chosen.push(feature);
  return chosen;
}

/** What the endpoint's node-less disco#info advertises before the world's choice. */
export const ENDPOINT_FEATURES: readonly string[] = [
  NS.discoInfo,
  NS.discoItems,
  FEATURE.endpoint,
  FEATURE.manifest,
  FEATURE.schema,
  ...ENDPOINT_TASK_FEATURES,
];

/** A minimal valid manifest, for worlds that need a tool and nothing particular about it. */
export function simpleManifest(
  jid: string,
  version: string,
  tools: readonly (Partial<ManifestTool> & { readonly name: string })[],
): JsonObject {
  const name = jid.split('@')[0] ?? 'endpoint';
  return {
    manifestSpecVersion: '0',
    agent: { jid, name, version },
    tools: tools.map((tool) => ({
      inputSchema: { type: 'object' },
      ...tool,
    })) as unknown as JsonValue[],
  };
}
