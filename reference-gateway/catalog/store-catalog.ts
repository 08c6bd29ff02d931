/**
 * The Catalog over the store and the access policy: what one requester may see (#rules: one
 * visibility decision for search, items, endpoint info, manifest, tool info and schemas).
 *
 * Hidden and nonexistent endpoints go through the same code path: every lookup reads the store
 * AND asks the policy, and only then combines the two answers, so neither answer short-cuts
 * the other (#errors, #privacy; interp-19). A deactivated endpoint is not listed and
 * has no active record, but its exact versions stay addressable to requesters who may see the
 * endpoint (#manifest-retrieval, interp-23).
 *
 * Records are built once per stored version and cached by (jid, version, hash); versions are
 * immutable, and a removed one is never served because the store is asked first. Stored bytes
 * are parsed strictly and re-canonicalized on first use: a row whose bytes do not reproduce
 * its hash is corruption, and the catalog refuses to serve it.
 *
 * Each answer comes from one store query, so it sees one snapshot and needs no transaction
 * (better-sqlite3 runs a statement to completion, and this process has the one connection).
 * The hot query reads only which version is active and its hash; the manifest bytes are read
 * only for a version not built yet, and then the query is the old full one, again one snapshot,
 * whose rows the answer is made of. A (jid, version) never changes content, even after removal
 * (tombstones), so a cached record is exactly what the bytes would give again.
 */
import { JidError, compareUtf8, normalizeBareJid } from '../../protocol/jid/index.ts';
import type { JsonLimits } from '../../protocol/json/json-limits.ts';
import { parseStrictCanonical } from '../../protocol/json/strict-canonical.ts';
import type { Manifest } from '../../protocol/manifest/index.ts';
import type { AccessPolicy } from '../policy/access-policy.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import type { StoredVersion, VersionPin } from '../store/store-records.ts';
import type { Catalog, ManifestRecord, Requester, VisibleEndpoint } from './catalog.ts';
import { buildManifestRecord } from './manifest-record.ts';

export class CatalogIntegrityError extends Error {
  override readonly name = 'CatalogIntegrityError';
}

/** Stored manifests passed the registration limits in force then; reading them back sets none. */
const STORED_MANIFEST_LIMITS: JsonLimits = {
  maxBytes: Infinity,
  maxDepth: Infinity,
  maxStringLength: Infinity,
  maxObjectMembers: Infinity,
  maxArrayElements: Infinity,
  maxValues: Infinity,
};

export class StoreCatalog implements Catalog {
  readonly #store: GatewayStore;
  readonly #policy: () => AccessPolicy;
  readonly #records = new Map<string, ManifestRecord>();

  /** `policy` is read on every call, so a recompiled policy applies at once. */
  constructor(store: GatewayStore, policy: () => AccessPolicy) {
    this.#store = store;
    this.#policy = policy;
  }

  // rules.uniform-visibility, privacy.explicit-visibility-policy: every discovery, search and
  // metadata answer asks these three methods, and they ask the one policy decision canSee.
  visibleEndpoints(requester: Requester): readonly VisibleEndpoint[] {
    const policy = this.#policy();
    const tables = this.#store.registrations;
    const visible = (version: VersionPin): boolean => policy.canSee(requester, version.jid);
    let endpoints = this.#cachedEndpoints(tables.activeVersionPins().filter(visible));
    // A version not built yet: the whole listing from the full query's one snapshot instead.
    endpoints ??= tables
      .activeVersions()
      .filter(visible)
      .map((stored) => ({ jid: stored.jid, active: this.#built(stored) }));
    return endpoints.sort((a, b) => compareUtf8(a.jid, b.jid));
  }

  visibleEndpoint(requester: Requester, jid: string): VisibleEndpoint | undefined {
    const endpoint = normalizedOrUndefined(jid);
    const pin = endpoint === undefined ? undefined : this.#store.registrations.activeVersionPin(endpoint);
    // errors.not-found-equivalence: store and policy are both asked before either answer is used.
    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (pin === undefined || !visible) return undefined;
    const cached = this.#cached(pin);
    if (cached !== undefined) return { jid: pin.jid, active: cached };
    const stored = this.#store.registrations.activeVersionRecord(pin.jid);
    return stored === undefined ? undefined : { jid: stored.jid, active: this.#built(stored) };
  }

  visibleVersion(requester: Requester, jid: string, version: string): ManifestRecord | undefined {
    const endpoint = normalizedOrUndefined(jid);
    const pin = endpoint === undefined ? undefined : this.#store.registrations.versionPin(endpoint, version);
    const visible = endpoint !== undefined && this.#policy().canSee(requester, endpoint);
    if (pin === undefined || !visible) return undefined;
    const cached = this.#cached(pin);
    if (cached !== undefined) return cached;
    const stored = this.#store.registrations.version(pin.jid, pin.version);
    return stored === undefined ? undefined : this.#built(stored);
  }

  /** The endpoints of `pins` with their cached records; undefined when one is not built yet. */
  #cachedEndpoints(pins: readonly VersionPin[]): VisibleEndpoint[] | undefined {
    const endpoints: VisibleEndpoint[] = [];
    for (const pin of pins) {
      const active = this.#cached(pin);
      if (active === undefined) return undefined;
      endpoints.push({ jid: pin.jid, active });
    }
    return endpoints;
  }

  #cached(pin: VersionPin): ManifestRecord | undefined {
    return this.#records.get(recordKey(pin));
  }

  #built(stored: StoredVersion): ManifestRecord {
    const key = recordKey(stored);
    let record = this.#records.get(key);
    if (record === undefined) {
      record = recordOf(stored);
      this.#records.set(key, record);
    }
    return record;
  }
}

function recordKey(version: VersionPin): string {
  return `${version.jid}\u0000${version.version}\u0000${version.hash.value}`;
}

function normalizedOrUndefined(jid: string): string | undefined {
  try {
    return normalizeBareJid(jid);
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

// manifest-retrieval.canonical-bytes: bytes that do not reproduce their registered hash are never
// served.
function recordOf(stored: StoredVersion): ManifestRecord {
  const { value, document } = parseStrictCanonical(stored.canonicalJson, STORED_MANIFEST_LIMITS);
  if (!document.bytes.equals(stored.canonicalJson) || document.hash.value !== stored.hash.value) {
    throw new CatalogIntegrityError(
      `stored manifest ${stored.jid} ${stored.version} does not match its hash`,
    );
  }
  // Validated before it was stored, so the value has the manifest's shape.
  const manifest = value as unknown as Manifest;
  if (manifest.agent.version !== stored.version) {
    throw new CatalogIntegrityError(`stored manifest ${stored.jid} ${stored.version} names another version`);
  }
  return buildManifestRecord(stored.jid, manifest, document);
}
