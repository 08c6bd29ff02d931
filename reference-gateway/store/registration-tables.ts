/**
 * Endpoints, immutable versions, the active-version pointer, tombstones and retention
 * references (#registration-flow, #manifest-retrieval). This class stores; it does not decide.
 * The rules (conflict, tombstone, removability) live in registration/, which calls these
 * methods inside one GatewayStore.transaction so that each check and its write are atomic.
 * The schema backs the rules up: versions cannot be updated, tombstones cannot be deleted or
 * updated, and foreign keys refuse to delete an active or retained version.
 */
import type { CanonicalHash } from '../../protocol/json/canonical.ts';
import { HASH_ALGO_SHA256 } from '../../protocol/namespaces.ts';
import type { StatementCache } from './statement-cache.ts';
import type { IsoInstant, NewVersion, StoredVersion, VersionPin, VersionTombstone } from './store-records.ts';

interface VersionRow {
  endpoint_jid: string;
  version: string;
  canonical_json: Buffer;
  hash_algo: string;
  hash_value: string;
  created_at: string;
}

interface TombstoneRow {
  endpoint_jid: string;
  version: string;
  hash_algo: string;
  hash_value: string;
  removed_at: string;
}

export class StoreIntegrityError extends Error {
  override readonly name = 'StoreIntegrityError';
}

function hashOf(algo: string, value: string): CanonicalHash {
  // Version 0 hashes are sha-256 only (#registration-flow); anything else was not written by us.
  if (algo !== HASH_ALGO_SHA256)
    throw new StoreIntegrityError(`stored hash algorithm ${algo} is not sha-256`);
  return { algo, value };
}

function versionOf(row: VersionRow): StoredVersion {
  return {
    jid: row.endpoint_jid,
    version: row.version,
    canonicalJson: row.canonical_json,
    hash: hashOf(row.hash_algo, row.hash_value),
    createdAt: row.created_at,
  };
}

type PinRow = Pick<VersionRow, 'endpoint_jid' | 'version' | 'hash_algo' | 'hash_value'>;

function pinOf(row: PinRow): VersionPin {
  return { jid: row.endpoint_jid, version: row.version, hash: hashOf(row.hash_algo, row.hash_value) };
}

function tombstoneOf(row: TombstoneRow): VersionTombstone {
  return {
    jid: row.endpoint_jid,
    version: row.version,
    hash: hashOf(row.hash_algo, row.hash_value),
    removedAt: row.removed_at,
  };
}

const VERSION_COLUMNS = 'endpoint_jid, version, canonical_json, hash_algo, hash_value, created_at';
/** The same columns, read from manifest_versions aliased as m. */
const M_VERSION_COLUMNS = VERSION_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ');

export class RegistrationTables {
  readonly #sql: StatementCache;
  readonly #now: () => IsoInstant;
  readonly #transaction: <T>(work: () => T) => T;
  readonly #statement: <T>(work: () => T) => T;

  /** `statement`: a single-statement write, with no savepoint of its own (task-tables.ts). */
  constructor(
    sql: StatementCache,
    now: () => IsoInstant,
    transaction: <T>(work: () => T) => T,
    statement: <T>(work: () => T) => T,
  ) {
    this.#sql = sql;
    this.#now = now;
    this.#transaction = transaction;
    this.#statement = statement;
  }

  endpointExists(jid: string): boolean {
    return this.#sql.get('SELECT 1 FROM endpoints WHERE jid = ?').get(jid) !== undefined;
  }

  version(jid: string, version: string): StoredVersion | undefined {
    const row = this.#sql
      .get(`SELECT ${VERSION_COLUMNS} FROM manifest_versions WHERE endpoint_jid = ? AND version = ?`)
      .get(jid, version) as VersionRow | undefined;
    return row === undefined ? undefined : versionOf(row);
  }

  /**
   * The version's identity without its manifest bytes: the task engine looks pins up on every
   * invocation, and copying a large manifest out of SQLite each time showed in bench/admission.
   */
  versionPin(jid: string, version: string): VersionPin | undefined {
    const row = this.#sql
      .get('SELECT hash_algo, hash_value FROM manifest_versions WHERE endpoint_jid = ? AND version = ?')
      .get(jid, version) as Pick<VersionRow, 'hash_algo' | 'hash_value'> | undefined;
    return row === undefined ? undefined : { jid, version, hash: hashOf(row.hash_algo, row.hash_value) };
  }

  /** Every registered version of the endpoint, in octet order of the version string. */
  versions(jid: string): StoredVersion[] {
    const rows = this.#sql
      .get(`SELECT ${VERSION_COLUMNS} FROM manifest_versions WHERE endpoint_jid = ? ORDER BY version`)
      .all(jid) as VersionRow[];
    return rows.map(versionOf);
  }

  activeVersion(jid: string): string | undefined {
    const row = this.#sql.get('SELECT version FROM active_versions WHERE endpoint_jid = ?').get(jid) as
      { version: string } | undefined;
    return row?.version;
  }

  /** The active version of every endpoint that has one, in octet order of the endpoint JID. */
  activeVersions(): StoredVersion[] {
    const rows = this.#sql
      .get(
        `SELECT ${M_VERSION_COLUMNS}
         FROM active_versions a
         JOIN manifest_versions m ON m.endpoint_jid = a.endpoint_jid AND m.version = a.version
         ORDER BY a.endpoint_jid`,
      )
      .all() as VersionRow[];
    return rows.map(versionOf);
  }

  /**
   * The active version of every endpoint that has one, without its manifest bytes, in octet
   * order of the endpoint JID: the catalog lists from these and reads bytes only for a version
   * it has not built yet (copying every active manifest out of SQLite on each listing or search
   * was most of their cost, bench/read-path).
   */
  activeVersionPins(): VersionPin[] {
    const rows = this.#sql
      .get(
        `SELECT a.endpoint_jid, a.version, m.hash_algo, m.hash_value
         FROM active_versions a
         JOIN manifest_versions m ON m.endpoint_jid = a.endpoint_jid AND m.version = a.version
         ORDER BY a.endpoint_jid`,
      )
      .all() as PinRow[];
    return rows.map(pinOf);
  }

  /** The active version of one endpoint without its manifest bytes (the catalog's hot path). */
  activeVersionPin(jid: string): VersionPin | undefined {
    const row = this.#sql
      .get(
        `SELECT a.endpoint_jid, a.version, m.hash_algo, m.hash_value
         FROM active_versions a
         JOIN manifest_versions m ON m.endpoint_jid = a.endpoint_jid AND m.version = a.version
         WHERE a.endpoint_jid = ?`,
      )
      .get(jid) as PinRow | undefined;
    return row === undefined ? undefined : pinOf(row);
  }

  /** The active version of one endpoint, in one query. */
  activeVersionRecord(jid: string): StoredVersion | undefined {
    const row = this.#sql
      .get(
        `SELECT ${M_VERSION_COLUMNS}
         FROM active_versions a
         JOIN manifest_versions m ON m.endpoint_jid = a.endpoint_jid AND m.version = a.version
         WHERE a.endpoint_jid = ?`,
      )
      .get(jid) as VersionRow | undefined;
    return row === undefined ? undefined : versionOf(row);
  }

  tombstone(jid: string, version: string): VersionTombstone | undefined {
    const row = this.#sql
      .get(
        `SELECT endpoint_jid, version, hash_algo, hash_value, removed_at
         FROM version_tombstones WHERE endpoint_jid = ? AND version = ?`,
      )
      .get(jid, version) as TombstoneRow | undefined;
    return row === undefined ? undefined : tombstoneOf(row);
  }

  /** True while any task or result holds the version (#manifest-retrieval). */
  isRetained(jid: string, version: string): boolean {
    return (
      this.#sql
        .get('SELECT 1 FROM version_references WHERE endpoint_jid = ? AND version = ? LIMIT 1')
        .get(jid, version) !== undefined
    );
  }

  /** The versions of the endpoint that something retains. */
  retainedVersions(jid: string): Set<string> {
    const rows = this.#sql
      .get('SELECT DISTINCT version FROM version_references WHERE endpoint_jid = ?')
      .all(jid) as { version: string }[];
    return new Set(rows.map((row) => row.version));
  }

  /** Stores a new version, creating the endpoint row on its first version. */
  insertVersion(version: NewVersion): StoredVersion {
    return this.#transaction(() => {
      const at = this.#now();
      this.#sql.get('INSERT OR IGNORE INTO endpoints (jid, created_at) VALUES (?, ?)').run(version.jid, at);
      this.#sql
        .get(`INSERT INTO manifest_versions (${VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(version.jid, version.version, version.canonicalJson, version.hash.algo, version.hash.value, at);
      return { ...version, createdAt: at };
    });
  }

  setActiveVersion(jid: string, version: string): void {
    this.#transaction(() => {
      this.#sql
        .get(
          `INSERT INTO active_versions (endpoint_jid, version, activated_at) VALUES (?, ?, ?)
           ON CONFLICT (endpoint_jid) DO UPDATE SET version = excluded.version, activated_at = excluded.activated_at
           WHERE version IS NOT excluded.version`,
        )
        .run(jid, version, this.#now());
    });
  }

  clearActiveVersion(jid: string): void {
    this.#transaction(() => {
      this.#sql.get('DELETE FROM active_versions WHERE endpoint_jid = ?').run(jid);
    });
  }

  /**
   * Tombstones and deletes one version; the endpoint row goes with its last version. The
   * caller has checked that the version is neither active nor retained (the foreign keys
   * would refuse anyway).
   */
  removeVersion(jid: string, version: string): void {
    this.#transaction(() => {
      const stored = this.version(jid, version);
      if (stored === undefined) return;
      this.#tombstone(stored);
      this.#sql.get('DELETE FROM manifest_versions WHERE endpoint_jid = ? AND version = ?').run(jid, version);
      this.#deleteEndpointIfEmpty(jid);
    });
  }

  /** Deactivates the endpoint and removes every version, leaving a tombstone for each. */
  removeEndpoint(jid: string): void {
    this.#transaction(() => {
      this.clearActiveVersion(jid);
      for (const stored of this.versions(jid)) this.#tombstone(stored);
      this.#sql.get('DELETE FROM manifest_versions WHERE endpoint_jid = ?').run(jid);
      this.#deleteEndpointIfEmpty(jid);
    });
  }

  /**
   * Marks a version as retained by `holder` (e.g. `task:<id>`), for the task module: removal is
   * refused while any holder remains (#registration-flow). Idempotent per holder.
   */
  retain(jid: string, version: string, holder: string): void {
    this.#statement(() => {
      this.#sql
        .get(
          `INSERT OR IGNORE INTO version_references (endpoint_jid, version, holder, created_at)
           VALUES (?, ?, ?, ?)`,
        )
        .run(jid, version, holder, this.#now());
    });
  }

  release(jid: string, version: string, holder: string): void {
    this.#statement(() => {
      this.#sql
        .get('DELETE FROM version_references WHERE endpoint_jid = ? AND version = ? AND holder = ?')
        .run(jid, version, holder);
    });
  }

  #tombstone(stored: StoredVersion): void {
    const existing = this.tombstone(stored.jid, stored.version);
    if (existing !== undefined) {
      // A restored version removed again: the tombstone already records this very content.
      if (existing.hash.value !== stored.hash.value) {
        throw new StoreIntegrityError('a version differs from its own tombstone');
      }
      return;
    }
    this.#sql
      .get(
        `INSERT INTO version_tombstones (endpoint_jid, version, hash_algo, hash_value, removed_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(stored.jid, stored.version, stored.hash.algo, stored.hash.value, this.#now());
  }

  #deleteEndpointIfEmpty(jid: string): void {
    this.#sql
      .get(
        `DELETE FROM endpoints WHERE jid = ?
         AND NOT EXISTS (SELECT 1 FROM manifest_versions WHERE endpoint_jid = ?)`,
      )
      .run(jid, jid);
  }
}
