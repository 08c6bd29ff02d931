/**
 * The database schema, as ordered migrations. A migration is applied once, in its own
 * transaction, and recorded in `schema_migrations`; opening a database applies only the
 * migrations it lacks. Never edit a migration that has shipped: append a new one.
 *
 * Tables (#registration-flow, #manifest-retrieval, #security):
 * - endpoints: one row per registered endpoint (normalized bare JID), while it has versions;
 * - manifest_versions: the immutable (endpoint, version) manifests, as the RFC 8785 bytes that
 *   were hashed and their hash. Immutable by trigger: "The tuple (endpoint bare JID, API version)
 *   is immutable";
 * - active_versions: the mutable selected-version pointer, at most one per endpoint;
 * - version_tombstones: "A removed version leaves a permanent endpoint-scoped version-and-hash
 *   tombstone". No foreign key (it outlives its endpoint) and no update or delete, by trigger;
 * - version_references: versions retained by a task or result ("Removal MUST fail while a
 *   retained task or result depends on that version"); the task module adds and releases them;
 * - policy_grants and endpoint_policies: visibility and invocation grants and per-endpoint
 *   overrides, tagged with the source that declared them (config, world, …) so each source can
 *   be replaced as a whole;
 * - world_declarations: the active version the fixture world last declared per endpoint, so a
 *   restart with the same world leaves the administrators' later changes alone.
 *
 * Text columns compare with SQLite's BINARY collation, which for UTF-8 text is octet order:
 * the same order as compareUtf8 (#list-agents).
 */

export interface Migration {
  /** Consecutive from 1. */
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'registrations, tombstones, retention references, policy, world declarations',
    sql: `
CREATE TABLE endpoints (
  jid TEXT PRIMARY KEY NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE manifest_versions (
  endpoint_jid TEXT NOT NULL REFERENCES endpoints (jid),
  version TEXT NOT NULL,
  canonical_json BLOB NOT NULL,
  hash_algo TEXT NOT NULL,
  hash_value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (endpoint_jid, version)
) STRICT;

CREATE TRIGGER manifest_versions_are_immutable
BEFORE UPDATE ON manifest_versions
BEGIN
  SELECT RAISE(ABORT, 'manifest versions are immutable');
END;

CREATE TABLE active_versions (
  endpoint_jid TEXT PRIMARY KEY NOT NULL REFERENCES endpoints (jid),
  version TEXT NOT NULL,
  activated_at TEXT NOT NULL,
  FOREIGN KEY (endpoint_jid, version) REFERENCES manifest_versions (endpoint_jid, version)
) STRICT;

CREATE TABLE version_tombstones (
  endpoint_jid TEXT NOT NULL,
  version TEXT NOT NULL,
  hash_algo TEXT NOT NULL,
  hash_value TEXT NOT NULL,
  removed_at TEXT NOT NULL,
  PRIMARY KEY (endpoint_jid, version)
) STRICT;

CREATE TRIGGER version_tombstones_are_permanent
BEFORE DELETE ON version_tombstones
BEGIN
  SELECT RAISE(ABORT, 'version tombstones are permanent');
END;

CREATE TRIGGER version_tombstones_are_immutable
BEFORE UPDATE ON version_tombstones
BEGIN
  SELECT RAISE(ABORT, 'version tombstones are immutable');
END;

CREATE TABLE version_references (
  endpoint_jid TEXT NOT NULL,
  version TEXT NOT NULL,
  holder TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (endpoint_jid, version, holder),
  FOREIGN KEY (endpoint_jid, version) REFERENCES manifest_versions (endpoint_jid, version)
) STRICT;

CREATE TABLE policy_grants (
  source TEXT NOT NULL,
  subject_kind TEXT NOT NULL CHECK (subject_kind IN ('domain', 'principal')),
  subject TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('see', 'invoke')),
  endpoint_jid TEXT,
  tool TEXT,
  CHECK (action = 'invoke' OR tool IS NULL)
) STRICT;

CREATE INDEX policy_grants_by_source ON policy_grants (source);

CREATE TABLE endpoint_policies (
  source TEXT NOT NULL,
  endpoint_jid TEXT NOT NULL,
  hidden INTEGER NOT NULL CHECK (hidden IN (0, 1)),
  restricted_invocation INTEGER NOT NULL CHECK (restricted_invocation IN (0, 1)),
  PRIMARY KEY (source, endpoint_jid)
) STRICT;

CREATE TABLE world_declarations (
  endpoint_jid TEXT PRIMARY KEY NOT NULL,
  active_version TEXT
) STRICT;
`,
  },
];
