/**
 * The fixture worlds of an interop pair. Gateway B (agents.example, on server B) loads the
 * reference world as it is: its remote callers are on example.com, server A. Gateway A
 * (agents.example.com, on server A) loads the same world mirrored: its endpoints on its own
 * domain, and the two user domains swapped, so that its remote callers are on server.example —
 * across s2s from it, as gateway B's are from B. Each suite account of the reference world has
 * its mirror image (alice@example.com ↔ alice@server.example), so every scenario runs the same
 * way in both directions and a difference between the directions is the gateways', not the
 * fixtures'.
 */
import { FEDERATION_DOMAINS, PAIR_COMPONENT_DOMAIN } from '../../harness/federation/domains.ts';
import type { AccountRequest } from '../../harness/federation/server-provider.ts';
import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { REFERENCE_WORLD_ACCOUNTS } from '../fixtures/world-accounts.ts';

const { local, remote, component } = FEDERATION_DOMAINS;

/** Each side's gateway domain, and the user domain across s2s from it (its remote callers'). */
export const PAIR_DOMAINS: Readonly<
  Record<PairSide, { readonly gateway: string; readonly remote: string; readonly local: string }>
> = {
  a: { gateway: PAIR_COMPONENT_DOMAIN, remote: local, local: remote },
  b: { gateway: component, remote, local },
};

/** A domain or JID of the reference world, as the mirrored world names it. */
export function mirrorAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const localpart = at < 0 ? '' : address.slice(0, at + 1);
  const domain = at < 0 ? address : address.slice(at + 1);
  const mirrored =
    domain === component
      ? PAIR_COMPONENT_DOMAIN
      : domain === local
        ? remote
        : domain === remote
          ? local
          : domain;
  return `${localpart}${mirrored}`;
}

function isObject(value: JsonValue | undefined): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mirrorInvoke(entry: JsonValue): JsonValue {
  if (typeof entry === 'string') return mirrorAddress(entry);
  if (isObject(entry) && typeof entry['endpoint'] === 'string') {
    return { ...entry, endpoint: mirrorAddress(entry['endpoint']) };
  }
  return entry;
}

function mirrorGrant(grant: JsonValue): JsonValue {
  if (!isObject(grant)) return grant;
  const mirrored: Record<string, JsonValue> = { ...grant };
  for (const key of ['domain', 'principal'] as const) {
    const value = grant[key];
    if (typeof value === 'string') mirrored[key] = mirrorAddress(value);
  }
  const see = grant['see'];
  if (Array.isArray(see))
    mirrored['see'] = see.map((entry) => (typeof entry === 'string' ? mirrorAddress(entry) : entry));
  const invoke = grant['invoke'];
  if (Array.isArray(invoke)) mirrored['invoke'] = invoke.map(mirrorInvoke);
  return mirrored;
}

/** A version of an endpoint with its inline manifest's agent.jid mirrored (#manifest binds it). */
function mirrorVersion(version: JsonValue): JsonValue {
  if (!isObject(version)) return version;
  const manifest = version['manifest'];
  if (!isObject(manifest)) return version;
  const agent = manifest['agent'];
  if (!isObject(agent) || typeof agent['jid'] !== 'string') return version;
  return { ...version, manifest: { ...manifest, agent: { ...agent, jid: mirrorAddress(agent['jid']) } } };
}

function mirrorEndpoint(endpoint: JsonValue): JsonValue {
  if (!isObject(endpoint) || typeof endpoint['jid'] !== 'string') return endpoint;
  const versions = endpoint['versions'];
  return {
    ...endpoint,
    jid: mirrorAddress(endpoint['jid']),
    ...(Array.isArray(versions) ? { versions: versions.map(mirrorVersion) } : {}),
  };
}

/**
 * The world gateway `side` loads, from the reference world (manifests inlined): as it is for B,
 * mirrored for A. Only addresses move (endpoint JIDs and the agent.jid their manifests bind, grant
 * subjects and objects); tools and every other member stay as they are, so both gateways publish
 * the same tools (under manifest hashes of their own, the JID being part of the manifest).
 */
export function pairWorld(referenceWorld: JsonValue, side: PairSide): JsonValue {
  const placed = side === 'b' ? referenceWorld : mirroredWorld(referenceWorld);
  if (!isObject(placed) || !Array.isArray(placed['grants'])) return placed;
  // The other gateway calls out from a JID of its own domain (docs/caller.md): it may see and
  // invoke this side's conformance endpoint, and nothing else.
  const peer = PAIR_DOMAINS[side === 'a' ? 'b' : 'a'].gateway;
  const conformance = `conformance@${PAIR_DOMAINS[side].gateway}`;
  return {
    ...placed,
    grants: [...placed['grants'], { domain: peer, see: [conformance], invoke: [conformance] }],
  };
}

function mirroredWorld(referenceWorld: JsonValue): JsonValue {
  if (!isObject(referenceWorld)) return referenceWorld;
  const endpoints = referenceWorld['endpoints'];
  const grants = referenceWorld['grants'];
  return {
    ...referenceWorld,
    ...(Array.isArray(endpoints) ? { endpoints: endpoints.map(mirrorEndpoint) } : {}),
    ...(Array.isArray(grants) ? { grants: grants.map(mirrorGrant) } : {}),
  };
}

/**
 * Every string of a JSON value (object keys too) that is a federation domain or a JID on one,
 * mirrored; other strings as they are. For what a SUT file writes into gateway A's own config
 * (its local domains, per-principal limits): the mirror image of a configuration written for
 * gateway B's place, so gateway A is configured for its world as gateway B is for the reference
 * world.
 */
export function mirrorAddresses(value: JsonValue): JsonValue {
  if (typeof value === 'string') return mirrorAddress(value);
  if (Array.isArray(value)) return value.map(mirrorAddresses);
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [mirrorAddress(key), mirrorAddresses(member)]),
    );
  }
  return value;
}

/** The suite accounts of both worlds: the reference world's and their mirror images. */
export function pairAccounts(): AccountRequest[] {
  const accounts = new Map<string, AccountRequest>();
  for (const { username, domain } of Object.values(REFERENCE_WORLD_ACCOUNTS)) {
    // The hostile domain has no mirror: it is across s2s from both gateways already.
    for (const on of [domain, mirrorAddress(domain)])
      accounts.set(`${username}@${on}`, { username, domain: on });
  }
  return [...accounts.values()];
}
