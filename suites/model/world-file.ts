/**
 * From the fixture-world file (fixtures/schemas/fixture-world.schema.json) to a ModelWorld,
 * where the concepts coincide: endpoints, versions, active pointer, hidden and restricted flags,
 * grants. What the file does not hold (domains, accounts, administrators, limits, chat
 * endpoints, blocklists, runtime availability) comes from a WorldSetting: the federation and SUT
 * file of a run. REFERENCE_SETTING is the default run's.
 *
 * Manifests are hashed here from the file (RFC 8785, sha-256), never taken from a gateway.
 */
import { toolHintsOf } from '../fixtures/tool-hints.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { compareUtf8, normalizeBareJid, normalizeJid, parseBareJid } from '../../protocol/jid/index.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import { encodeCollectionNode, encodeToolNode } from '../../protocol/tool-node.ts';
import {
  PRINCIPAL_KINDS,
  type Blocklist,
  type ModelEndpoint,
  type ModelGrant,
  type ModelTool,
  type ModelVersion,
  type ModelWorld,
  type Principal,
  type PrincipalKind,
  type WorldDomains,
  type WorldLimits,
} from './world.ts';

export interface WorldSetting {
  readonly domains: WorldDomains;
  /** The bare JID each principal role connects as. */
  readonly accounts: Readonly<Record<PrincipalKind, string>>;
  readonly admins: readonly string[];
  readonly selfRegistration: boolean;
  readonly limits: WorldLimits;
  /** Endpoints taking part in one-to-one chat (#messaging). */
  readonly chatEndpoints: readonly string[];
  readonly blocklists: ReadonlyMap<string, Blocklist>;
}

/**
 * The default run: the federation's four domains (harness/federation/domains.ts), the runner's
 * accounts for each role (runner/run-session.ts) and the reference SUT file's administrator and
 * chat endpoint (fixtures/sut/reference-gateway.json). Its documented limits (5 tasks per
 * caller, a discovery bucket of 10 at 40/s) are exercised only from the run's `prober` account,
 * the one the reference gateway applies them to, so they are that account's here; every other
 * principal meets no documented limit.
 */
export const REFERENCE_SETTING: WorldSetting = {
  domains: {
    gateway: 'agents.example',
    delegated: [],
    server: 'server.example',
    peer: 'example.com',
    hostile: 'hostile.example',
  },
  accounts: {
    local: 'bob@server.example',
    localPeer: 'dave@server.example',
    remote: 'alice@example.com',
    remotePeer: 'carol@example.com',
    toolGrantee: 'grantee@example.com',
    admin: 'admin@server.example',
    registrant: 'registrant@server.example',
    hostile: 'mallory@hostile.example',
  },
  admins: ['admin@server.example'],
  selfRegistration: true,
  limits: {
    rateLimits: {},
    principalRateLimits: new Map([['prober@server.example', { discovery: { burst: 10, perSecond: 40 } }]]),
    taskCapacityOf: new Map([['prober@server.example', 5]]),
  },
  chatEndpoints: ['conformance@agents.example'],
  blocklists: new Map(),
};

export class WorldFileError extends Error {
  override readonly name = 'WorldFileError';
}

function text(object: JsonObject, member: string): string | undefined {
  const value = object[member];
  return typeof value === 'string' ? value : undefined;
}

function toolOf(raw: JsonValue, version: string): ModelTool {
  if (!isJsonObject(raw) || typeof raw['name'] !== 'string' || raw['inputSchema'] === undefined) {
    throw new WorldFileError(`a tool of version ${version} lacks a name or an inputSchema`);
  }
  const declared = isJsonObject(raw[NS_AGENT_API]) ? raw[NS_AGENT_API] : {};
  const maximum = declared['maximumTimeoutSeconds'];
  const title = text(raw, 'title');
  const description = text(raw, 'description');
  const output = raw['outputSchema'];
  return {
    name: raw['name'],
    node: encodeToolNode(version, raw['name']),
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchemaHash: canonicalDocument(raw['inputSchema']).hash.value,
    ...(output === undefined ? {} : { outputSchemaHash: canonicalDocument(output).hash.value }),
    hints: toolHintsOf(raw),
    supports: {
      progress: declared['supportsProgress'] === true,
      cancel: declared['supportsCancellation'] === true,
      input: declared['supportsInput'] === true,
    },
    ...(typeof maximum === 'number' ? { maximumTimeoutSeconds: maximum } : {}),
  };
}

/** One registered version from an inlined `{ "manifest": {…} }` source. */
export function versionOfManifest(manifest: JsonObject): ModelVersion {
  const agent = manifest['agent'];
  if (!isJsonObject(agent)) throw new WorldFileError('a manifest has no agent object');
  const version = text(agent, 'version');
  const name = text(agent, 'name');
  if (version === undefined || name === undefined)
    throw new WorldFileError('agent.version and agent.name must be strings');
  const tools = (Array.isArray(manifest['tools']) ? manifest['tools'] : []).map((tool) =>
    toolOf(tool, version),
  );
  const document = canonicalDocument(manifest);
  const title = text(agent, 'title');
  const description = text(agent, 'description');
  return {
    version,
    hash: document.hash.value,
    canonical: document.bytes.toString('utf8'),
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    tools: tools.toSorted((a, b) => compareUtf8(a.name, b.name)),
    collectionNode: encodeCollectionNode(version),
  };
}

/**
 * One endpoint of an inlined world file (`{ jid, versions: [{ manifest }], active, hidden,
 * restrictedInvocation, runtime }`): the one converter of endpoints into the model, for the world
 * file and for the run's world alike (suites/sections/support/model-driver/run-world.ts).
 */
export function modelEndpointOf(
  raw: JsonValue,
  setting: Pick<WorldSetting, 'domains' | 'chatEndpoints'>,
): ModelEndpoint {
  if (!isJsonObject(raw) || typeof raw['jid'] !== 'string' || !Array.isArray(raw['versions'])) {
    throw new WorldFileError('an endpoint needs a jid and versions');
  }
  const jid = normalizeBareJid(raw['jid']);
  const versions = raw['versions'].map((source) => {
    if (!isJsonObject(source) || !isJsonObject(source['manifest'])) {
      throw new WorldFileError(`${jid}: expected inlined manifests (read the world with inlineWorldFile)`);
    }
    return versionOfManifest(source['manifest']);
  });
  const active = raw['active'];
  if (typeof active === 'string' && !versions.some((version) => version.version === active)) {
    throw new WorldFileError(`${jid}: no registered version ${active} to be active`);
  }
  const { domainpart } = parseBareJid(jid);
  return {
    jid,
    versions,
    active: typeof active === 'string' ? active : undefined,
    hidden: raw['hidden'] === true,
    restrictedInvocation: raw['restrictedInvocation'] === true,
    provisioning: domainpart === setting.domains.server ? 'self' : 'admin',
    available: typeof raw['runtime'] === 'string',
    chat: setting.chatEndpoints.some((chat) => normalizeBareJid(chat) === jid),
  };
}

function grantOf(raw: JsonValue): ModelGrant {
  if (!isJsonObject(raw)) throw new WorldFileError('a grant is not an object');
  const see = Array.isArray(raw['see']) ? raw['see'] : [];
  const invoke = new Map<string, 'all' | Set<string>>();
  let invokeAll = false;
  for (const item of Array.isArray(raw['invoke']) ? raw['invoke'] : []) {
    if (item === '*') invokeAll = true;
    else if (typeof item === 'string') invoke.set(normalizeBareJid(item), 'all');
    else if (isJsonObject(item) && typeof item['endpoint'] === 'string' && Array.isArray(item['tools'])) {
      const jid = normalizeBareJid(item['endpoint']);
      const known = invoke.get(jid);
      // A whole-endpoint grant stays whole; tool grants for one endpoint add up.
      if (known !== 'all') {
        const tools = item['tools'].filter((tool): tool is string => typeof tool === 'string');
        invoke.set(jid, new Set([...(known ?? []), ...tools]));
      }
    }
  }
  const domain = text(raw, 'domain');
  const principal = text(raw, 'principal');
  if ((domain === undefined) === (principal === undefined)) {
    throw new WorldFileError('a grant names exactly one of "domain" or "principal"');
  }
  return {
    subject:
      domain === undefined
        ? { principal: normalizeBareJid(principal ?? '') }
        : { domain: normalizeBareJid(domain) },
    seeAll: see.includes('*'),
    see: new Set(
      see.filter((jid): jid is string => typeof jid === 'string' && jid !== '*').map(normalizeBareJid),
    ),
    invokeAll,
    invoke,
  };
}

function principalsOf(setting: WorldSetting): Record<PrincipalKind, Principal> {
  return Object.fromEntries(
    PRINCIPAL_KINDS.map((kind) => {
      const bare = normalizeBareJid(setting.accounts[kind]);
      return [kind, { kind, bare, full: normalizeJid(`${bare}/model`) }];
    }),
  ) as Record<PrincipalKind, Principal>;
}

/** The model of an inlined world file (protocol/fixture-world-file.ts inlineWorldFile) in a setting. */
export function modelWorldFromFile(world: JsonValue, setting: WorldSetting = REFERENCE_SETTING): ModelWorld {
  if (!isJsonObject(world) || !Array.isArray(world['endpoints']))
    throw new WorldFileError('expected { "endpoints": [...] }');
  const endpoints = world['endpoints'].map((endpoint) => modelEndpointOf(endpoint, setting));
  return {
    domains: setting.domains,
    principals: principalsOf(setting),
    admins: new Set(setting.admins.map(normalizeBareJid)),
    selfRegistration: setting.selfRegistration,
    endpoints: endpoints.toSorted((a, b) => compareUtf8(a.jid, b.jid)),
    grants: (Array.isArray(world['grants']) ? world['grants'] : []).map(grantOf),
    limits: setting.limits,
    blocklists: setting.blocklists,
  };
}
