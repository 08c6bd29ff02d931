/**
 * The registration rules over the store (#registration-flow), with no notion of who asks:
 * provisioning.ts authorizes, this decides. Each operation's checks and writes run in one
 * store transaction, so a concurrent operation can never slip between a check and its write.
 *
 * - (endpoint, version) is immutable: identical content is an idempotent success, different
 *   canonical content a conflict. Content is compared as RFC 8785 bytes, so formatting, member
 *   order and number spelling never matter (#manifest-retrieval: "stored source formatting is
 *   not protocol-visible").
 * - A removed version leaves a permanent tombstone: the identical content may come back
 *   (interp-24 accepts `registered`), different content is a conflict forever, also
 *   after remove-endpoint.
 * - Activation changes only the pointer and needs the registered hash; removal is refused for
 *   the active version and for versions a task or result retains.
 */
import type { Hash } from '../../protocol/stanza/index.ts';
import type {
  Active,
  EndpointOperation,
  Registered,
  Registration,
  Removed,
} from '../../protocol/stanza/index.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import type { AcceptedManifest } from './manifest-intake.ts';
import { refuse, succeed, type Outcome } from './registration-fault.ts';

/** What a successful <register/> did: nothing new, a new version, or a tombstoned one restored. */
export type RegisterEffect = 'created' | 'unchanged' | 'restored';

export interface RegisterResult {
  readonly registered: Registered;
  readonly effect: RegisterEffect;
}

export class Registry {
  readonly #store: GatewayStore;

  constructor(store: GatewayStore) {
    this.#store = store;
  }

  // registration-flow.version-immutable, registration-flow.tombstone-conflict,
  // registration-flow.no-semver-ordering: the canonical bytes decide; registering never moves the
  // active pointer.
  register(accepted: AcceptedManifest): Outcome<RegisterResult> {
    const { endpointJid: jid, version, document } = accepted;
    const registered: Registered = { jid, version, hash: document.hash };
    return this.#store.transaction(() => {
      const tables = this.#store.registrations;
      const existing = tables.version(jid, version);
      if (existing !== undefined) {
        return existing.canonicalJson.equals(document.bytes)
          ? succeed({ registered, effect: 'unchanged' as const })
          : refuse('version-conflict');
      }
      const tombstone = tables.tombstone(jid, version);
      if (tombstone !== undefined && tombstone.hash.value !== document.hash.value) {
        return refuse('tombstone-conflict');
      }
      tables.insertVersion({ jid, version, canonicalJson: document.bytes, hash: document.hash });
      return succeed({
        registered,
        effect: tombstone === undefined ? ('created' as const) : ('restored' as const),
      });
    });
  }

  /**
   * Selects an existing version after checking its hash (#registration-flow).
   *
   * registration-flow.admin-operations: activate, deactivate, status, remove-version and
   * remove-endpoint below; register above.
   */
  activate(jid: string, version: string, hash: Hash): Outcome<Active> {
    return this.#store.transaction(() => {
      const stored = this.#store.registrations.version(jid, version);
      if (stored === undefined) return refuse('unknown-version');
      // A non-sha-256 algorithm can never name the registered hash: the same conflict.
      if (hash.algo !== stored.hash.algo || hash.value !== stored.hash.value) return refuse('hash-mismatch');
      this.#store.registrations.setActiveVersion(jid, version);
      return succeed({ jid, version });
    });
  }

  /** Removes the pointer, keeping every version; deactivating an inactive endpoint succeeds. */
  deactivate(jid: string): Outcome<EndpointOperation> {
    return this.#store.transaction(() => {
      if (!this.#store.registrations.endpointExists(jid)) return refuse('unknown-endpoint');
      this.#store.registrations.clearActiveVersion(jid);
      return succeed({ jid });
    });
  }

  /**
   * Active version, every version with its hash, and whether each may be removed: four reads
   * that must agree, so one snapshot, but no write lock.
   */
  status(jid: string): Outcome<Registration> {
    return this.#store.snapshot(() => {
      const tables = this.#store.registrations;
      if (!tables.endpointExists(jid)) return refuse('unknown-endpoint');
      const active = tables.activeVersion(jid);
      // registration-flow.removal-blocked-by-tasks: status shows retained versions as not
      // removable.
      const retained = tables.retainedVersions(jid);
      const versions = tables.versions(jid).map((stored) => ({
        id: stored.version,
        active: stored.version === active,
        removable: stored.version !== active && !retained.has(stored.version),
        hash: stored.hash,
      }));
      return succeed({ jid, versions });
    });
  }

  removeVersion(jid: string, version: string): Outcome<Removed> {
    return this.#store.transaction(() => {
      const tables = this.#store.registrations;
      if (tables.version(jid, version) === undefined) return refuse('unknown-version');
      if (tables.activeVersion(jid) === version) return refuse('version-active');
      // registration-flow.removal-blocked-by-tasks, manifest-retrieval.retain-pinned-manifest
      if (tables.isRetained(jid, version)) return refuse('version-retained');
      tables.removeVersion(jid, version);
      return succeed({ jid, version });
    });
  }

  /** Deactivates and removes every version, unless a task or result retains one. */
  removeEndpoint(jid: string): Outcome<Removed> {
    return this.#store.transaction(() => {
      const tables = this.#store.registrations;
      if (!tables.endpointExists(jid)) return refuse('unknown-endpoint');
      // registration-flow.removal-blocked-by-tasks
      if (tables.retainedVersions(jid).size > 0) return refuse('endpoint-retained');
      tables.removeEndpoint(jid);
      return succeed({ jid });
    });
  }
}
