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
 * Migration 2 adds the task engine's tables (#invocation, #events, #interactive-input,
 * #cancellation, #task-recovery; docs/tasks.md explains what is durable when):
 * - tasks: one row per admitted task, with its pins, canonical arguments, effective deadline,
 *   current state and revision, the notification route, the execution record (`dispatched_at`,
 *   written before the runtime is called) and, once terminal, the terminal payload;
 * - invocation_replays: the replay record of each admission, keyed by caller, target and
 *   request ID, kept until `keep_until_ms` (the longer of window, lifetime and retention) even
 *   after its task row is purged;
 * - task_events: every committed event at its revision, so a re-sent event keeps its ID and
 *   payload (#events);
 * - input_requests: every input request a task issued with its disposition (pending, answered,
 *   expired, superseded) and, when answered, the accepted tuple's fingerprint and revision;
 * - task_cancellations: the one accepted cancellation per task, its fingerprint and revision;
 * - tool_ledger: the durable counters of the runtime contract's ToolLedger.
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
  {
    version: 2,
    name: 'tasks, replay records, events, input requests, cancellations, tool ledger',
    sql: `
CREATE TABLE tasks (
  task_id TEXT PRIMARY KEY NOT NULL,
  handle TEXT NOT NULL UNIQUE,
  caller_jid TEXT NOT NULL,
  notify_jid TEXT NOT NULL,
  endpoint_jid TEXT NOT NULL,
  tool TEXT NOT NULL,
  api_version TEXT NOT NULL,
  manifest_hash_algo TEXT NOT NULL,
  manifest_hash_value TEXT NOT NULL,
  arguments_json TEXT NOT NULL,
  deadline TEXT,
  state TEXT NOT NULL CHECK (state IN
    ('accepted', 'running', 'input_required', 'cancelling', 'cancelled', 'failed', 'completed')),
  revision INTEGER NOT NULL CHECK (revision >= 0),
  created TEXT NOT NULL,
  updated TEXT NOT NULL,
  retain_until TEXT NOT NULL,
  retain_until_ms INTEGER NOT NULL,
  dispatched_at TEXT,
  pending_input_id TEXT,
  result_json TEXT,
  CHECK ((state IN ('cancelled', 'failed', 'completed')) = (result_json IS NOT NULL)),
  CHECK (state = 'input_required' OR pending_input_id IS NULL)
) STRICT;

CREATE INDEX tasks_by_caller_state ON tasks (caller_jid, state);
CREATE INDEX tasks_by_state_retention ON tasks (state, retain_until_ms);

CREATE TRIGGER terminal_tasks_are_immutable
BEFORE UPDATE ON tasks
WHEN OLD.state IN ('cancelled', 'failed', 'completed')
  AND (NEW.state IS NOT OLD.state OR NEW.revision IS NOT OLD.revision OR NEW.result_json IS NOT OLD.result_json)
BEGIN
  SELECT RAISE(ABORT, 'terminal task states are immutable');
END;

CREATE TABLE invocation_replays (
  caller_jid TEXT NOT NULL,
  endpoint_jid TEXT NOT NULL,
  request_id TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  task_id TEXT NOT NULL,
  created TEXT NOT NULL,
  retain_until TEXT NOT NULL,
  keep_until_ms INTEGER NOT NULL,
  PRIMARY KEY (caller_jid, endpoint_jid, request_id)
) STRICT;

CREATE INDEX invocation_replays_by_expiry ON invocation_replays (keep_until_ms);

CREATE TABLE task_events (
  task_id TEXT NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  revision INTEGER NOT NULL CHECK (revision >= 1),
  event_id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL CHECK (type IN
    ('status', 'progress', 'input_required', 'completed', 'failed', 'cancelled')),
  payload_json TEXT NOT NULL,
  created TEXT NOT NULL,
  PRIMARY KEY (task_id, revision)
) STRICT;

CREATE TRIGGER task_events_are_immutable
BEFORE UPDATE ON task_events
BEGIN
  SELECT RAISE(ABORT, 'committed events are immutable');
END;

CREATE TABLE input_requests (
  task_id TEXT NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  request_id TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  expires_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'superseded')),
  issued_revision INTEGER NOT NULL,
  accepted_fingerprint TEXT,
  accepted_revision INTEGER,
  accepted_input_json TEXT,
  CHECK ((status = 'answered') = (accepted_fingerprint IS NOT NULL)),
  PRIMARY KEY (task_id, request_id)
) STRICT;

CREATE UNIQUE INDEX one_pending_input_per_task ON input_requests (task_id) WHERE status = 'pending';

CREATE TABLE task_cancellations (
  task_id TEXT PRIMARY KEY NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  fingerprint TEXT NOT NULL,
  revision INTEGER NOT NULL,
  reason TEXT,
  accepted_at TEXT NOT NULL
) STRICT;

CREATE TABLE tool_ledger (
  key TEXT PRIMARY KEY NOT NULL,
  count INTEGER NOT NULL CHECK (count >= 1)
) STRICT;
`,
  },
];
