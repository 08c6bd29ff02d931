/**
 * The world the spec model reasons about: who exists (domains, principals), what is hosted
 * (endpoints, their immutable versions and tools), who may see and invoke what (grants), the
 * documented limits, and what humans have blocked. A plain value: the model's functions read it
 * and never change it, so a generated world and the reference world are judged alike.
 *
 * Concepts follow the spec, not any gateway: visibility is all-or-nothing per endpoint
 * (#manifest: a requester that may retrieve a manifest sees every tool in it), invocation is
 * granted per endpoint or per tool independently of visibility (#rules), remote domains get
 * nothing without a grant (#security), and block state may be unknowable (#security, interp-44).
 */
import type { ToolHints } from '../fixtures/tool-hints.ts';
import type { RateLimitedRequest } from '../../protocol/rate-limits.ts';

/** The four domain roles of a federation (#addressing, #security). */
export interface WorldDomains {
  /** The gateway's own domain JID; administrators provision endpoints below it. */
  readonly gateway: string;
  /** Other domains the XMPP server delegated to the gateway (#addressing); usually none. */
  readonly delegated: readonly string[];
  /** The XMPP server the gateway is attached to: its accounts are the local principals. */
  readonly server: string;
  /** A federated peer server whose accounts are remote principals. */
  readonly peer: string;
  /** A server nobody configured: deny by default applies to it (#security). */
  readonly hostile: string;
}

/**
 * Principal roles. `local` and `localPeer` are two accounts of the server domain (task and
 * grant decisions are per bare JID, not per domain); `remote`, `remotePeer` and `toolGrantee`
 * three of the peer (the last one granted tools one by one); `registrant` is a local account that
 * self-registers its own bare JID; `hostile` lives on the unconfigured server.
 */
export const PRINCIPAL_KINDS = [
  'local',
  'localPeer',
  'remote',
  'remotePeer',
  'toolGrantee',
  'admin',
  'registrant',
  'hostile',
] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export interface Principal {
  readonly kind: PrincipalKind;
  /** The normalized bare JID: the authorization principal (#invocation). */
  readonly bare: string;
  /** The full JID requests come from; any resource of the bare JID is the same principal. */
  readonly full: string;
}

/** The task support a tool declares in its `urn:xmpp:agent-api:0` member (#manifest). */
export interface ToolSupport {
  readonly progress: boolean;
  readonly cancel: boolean;
  readonly input: boolean;
}

/** MCP annotations present in the manifest; an absent one is unknown (#tool-info). */
export type { ToolHints };

export interface ModelTool {
  readonly name: string;
  /** The version-pinned tool node, the tool's RSM item ID (#list-tools). */
  readonly node: string;
  readonly title?: string;
  readonly description?: string;
  /** sha-256 of the RFC 8785 bytes of inputSchema (#tool-info, #schemas). */
  readonly inputSchemaHash: string;
  readonly outputSchemaHash?: string;
  readonly hints: ToolHints;
  readonly supports: ToolSupport;
  /** `maximumTimeoutSeconds` of the extension member: the deadline bound (interp-32). */
  readonly maximumTimeoutSeconds?: number;
}

/** One immutable (endpoint, version) manifest (#registration-flow). */
export interface ModelVersion {
  readonly version: string;
  /** sha-256 Base64 of the canonical manifest bytes. */
  readonly hash: string;
  /** The canonical bytes a retrieval must serve (#manifest-retrieval). */
  readonly canonical: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** In ascending UTF-8 byte order of the names: the listing order (#list-tools). */
  readonly tools: readonly ModelTool[];
  /** The version-pinned collection node (#namespaces). */
  readonly collectionNode: string;
}

export interface ModelEndpoint {
  /** Normalized bare JID. */
  readonly jid: string;
  readonly versions: readonly ModelVersion[];
  /** The selected version, or undefined when deactivated (#registration-flow). */
  readonly active: string | undefined;
  /** Only a grant naming this endpoint makes it visible (the world file's `hidden`). */
  readonly hidden: boolean;
  /** Only a grant naming this endpoint lets anyone invoke it (`restrictedInvocation`). */
  readonly restrictedInvocation: boolean;
  /** How it got here: by an administrator (virtual) or by its own account (#registration-flow). */
  readonly provisioning: 'admin' | 'self';
  /** Whether its runtime is up now: told by presence only (#identity-presence). */
  readonly available: boolean;
  /** Whether it takes part in one-to-one chat (#messaging). */
  readonly chat: boolean;
}

/** Who a grant applies to: every account of a domain, or one bare JID. */
export type GrantSubject = { readonly domain: string } | { readonly principal: string };

/**
 * A grant as the world file writes it (fixtures/schemas/fixture-world.schema.json): `seeAll`
 * covers endpoints that are not hidden, `invokeAll` those that are not restricted; a hidden or
 * restricted endpoint needs a grant naming it. `invoke` maps an endpoint to 'all' tools or to
 * named tools. Seeing and invoking are independent (#rules).
 */
export interface ModelGrant {
  readonly subject: GrantSubject;
  readonly seeAll: boolean;
  readonly see: ReadonlySet<string>;
  readonly invokeAll: boolean;
  readonly invoke: ReadonlyMap<string, 'all' | ReadonlySet<string>>;
}

/** A documented token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface TokenBucket {
  readonly burst: number;
  readonly perSecond: number;
}

/** Documented limits (#rules, #security); an absent one is not known to the model. */
export interface WorldLimits {
  /** The largest RSM page the gateway returns (#list-agents: it MAY cap below the request). */
  readonly pageMax?: number;
  readonly rateLimits: Partial<Record<RateLimitedRequest, TokenBucket>>;
  /** Per-principal buckets replacing `rateLimits` for the operations named. */
  readonly principalRateLimits: ReadonlyMap<string, Partial<Record<RateLimitedRequest, TokenBucket>>>;
  /** Non-terminal tasks one caller may hold; per-principal overrides in `taskCapacityOf`. */
  readonly taskCapacity?: number;
  readonly taskCapacityOf: ReadonlyMap<string, number>;
}

/**
 * A human's blocklist as its server would report it (XEP-0191), or 'unknown' when the gateway
 * has no authoritative way to learn it (#security: the test servers do not always answer).
 */
export type Blocklist = readonly string[] | 'unknown';

export interface ModelWorld {
  readonly domains: WorldDomains;
  readonly principals: Readonly<Record<PrincipalKind, Principal>>;
  /** Bare JIDs trusted with Administrative Provisioning. */
  readonly admins: ReadonlySet<string>;
  /** Whether local accounts may self-register their own bare JID (#registration-flow). */
  readonly selfRegistration: boolean;
  /** Every endpoint, in ascending UTF-8 byte order of its JID (#list-agents). */
  readonly endpoints: readonly ModelEndpoint[];
  readonly grants: readonly ModelGrant[];
  readonly limits: WorldLimits;
  /** Human bare JID → its blocklist; a human not listed blocks nothing it could report. */
  readonly blocklists: ReadonlyMap<string, Blocklist>;
}

/** The endpoint with this normalized JID, if the world hosts one. */
export function endpointOf(world: ModelWorld, jid: string): ModelEndpoint | undefined {
  return world.endpoints.find((endpoint) => endpoint.jid === jid);
}

export function versionOf(endpoint: ModelEndpoint, version: string): ModelVersion | undefined {
  return endpoint.versions.find((candidate) => candidate.version === version);
}

export function activeVersionOf(endpoint: ModelEndpoint): ModelVersion | undefined {
  return endpoint.active === undefined ? undefined : versionOf(endpoint, endpoint.active);
}

/** The domains whose endpoints this gateway hosts (#addressing). */
export function hostedDomains(world: ModelWorld): readonly string[] {
  return [world.domains.gateway, ...world.domains.delegated];
}
