/**
 * Tasks, replay records, events, input requests and cancellations (#invocation, #events,
 * #interactive-input, #cancellation, #task-recovery). This class stores; it does not decide.
 * The task engine (reference-gateway/tasks/) runs every check and its writes inside one
 * GatewayStore.transaction, so a mutation's checks, its event and its new revision commit or
 * roll back together. The schema backs the rules up: a terminal state, revision and result
 * cannot be updated, events cannot be updated, and at most one input request is pending.
 */
import type { EventType, TaskState } from '../../protocol/task-states.ts';
import type { StatementCache } from './statement-cache.ts';
import type {
  InputRequestStatus,
  NewTask,
  StoredCancellation,
  StoredEvent,
  StoredInputRequest,
  StoredReplay,
  StoredTask,
  TaskUpdate,
} from './task-records.ts';

interface TaskRow {
  task_id: string;
  handle: string;
  caller_jid: string;
  notify_jid: string;
  endpoint_jid: string;
  tool: string;
  api_version: string;
  manifest_hash_algo: string;
  manifest_hash_value: string;
  arguments_json: string;
  deadline: string | null;
  state: TaskState;
  revision: number;
  created: string;
  updated: string;
  retain_until: string;
  retain_until_ms: number;
  dispatched_at: string | null;
  pending_input_id: string | null;
  result_json: string | null;
}

interface ReplayRow {
  caller_jid: string;
  endpoint_jid: string;
  request_id: string;
  fingerprint: string;
  task_id: string;
  created: string;
  retain_until: string;
  keep_until_ms: number;
}

interface EventRow {
  task_id: string;
  revision: number;
  event_id: string;
  type: EventType;
  payload_json: string;
  created: string;
}

interface InputRow {
  task_id: string;
  request_id: string;
  payload_json: string;
  expires_at: string | null;
  status: InputRequestStatus;
  issued_revision: number;
  accepted_fingerprint: string | null;
  accepted_revision: number | null;
  accepted_input_json: string | null;
}

interface CancellationRow {
  task_id: string;
  fingerprint: string;
  revision: number;
  reason: string | null;
  accepted_at: string;
}

const TASK_COLUMNS =
  'task_id, handle, caller_jid, notify_jid, endpoint_jid, tool, api_version, manifest_hash_algo, ' +
  'manifest_hash_value, arguments_json, deadline, state, revision, created, updated, retain_until, ' +
  'retain_until_ms, dispatched_at, pending_input_id, result_json';
const REPLAY_COLUMNS =
  'caller_jid, endpoint_jid, request_id, fingerprint, task_id, created, retain_until, keep_until_ms';
const EVENT_COLUMNS = 'task_id, revision, event_id, type, payload_json, created';
const INPUT_COLUMNS =
  'task_id, request_id, payload_json, expires_at, status, issued_revision, accepted_fingerprint, ' +
  'accepted_revision, accepted_input_json';
const TERMINAL = "('cancelled', 'failed', 'completed')";

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function taskOf(row: TaskRow): StoredTask {
  return {
    taskId: row.task_id,
    handle: row.handle,
    callerJid: row.caller_jid,
    notifyJid: row.notify_jid,
    endpointJid: row.endpoint_jid,
    tool: row.tool,
    apiVersion: row.api_version,
    manifestHash: { algo: row.manifest_hash_algo, value: row.manifest_hash_value },
    argumentsJson: row.arguments_json,
    deadline: opt(row.deadline),
    state: row.state,
    revision: row.revision,
    created: row.created,
    updated: row.updated,
    retainUntil: row.retain_until,
    retainUntilMs: row.retain_until_ms,
    dispatchedAt: opt(row.dispatched_at),
    pendingInputId: opt(row.pending_input_id),
    resultJson: opt(row.result_json),
  };
}

function replayOf(row: ReplayRow): StoredReplay {
  return {
    callerJid: row.caller_jid,
    endpointJid: row.endpoint_jid,
    requestId: row.request_id,
    fingerprint: row.fingerprint,
    taskId: row.task_id,
    created: row.created,
    retainUntil: row.retain_until,
    keepUntilMs: row.keep_until_ms,
  };
}

function eventOf(row: EventRow): StoredEvent {
  return {
    taskId: row.task_id,
    revision: row.revision,
    eventId: row.event_id,
    type: row.type,
    payloadJson: row.payload_json,
    created: row.created,
  };
}

function inputOf(row: InputRow): StoredInputRequest {
  return {
    taskId: row.task_id,
    requestId: row.request_id,
    payloadJson: row.payload_json,
    expiresAt: opt(row.expires_at),
    status: row.status,
    issuedRevision: row.issued_revision,
    acceptedFingerprint: opt(row.accepted_fingerprint),
    acceptedRevision: opt(row.accepted_revision),
    acceptedInputJson: opt(row.accepted_input_json),
  };
}

function cancellationOf(row: CancellationRow): StoredCancellation {
  return {
    taskId: row.task_id,
    fingerprint: row.fingerprint,
    revision: row.revision,
    reason: opt(row.reason),
    acceptedAt: row.accepted_at,
  };
}

export class TaskTables {
  readonly #sql: StatementCache;
  readonly #transaction: <T>(work: () => T) => T;
  readonly #statement: <T>(work: () => T) => T;

  /**
   * `transaction` for writes of several statements; `statement` for a single one, which is
   * atomic by itself and needs no savepoint inside an enclosing transaction (the engine's
   * hot path writes several rows per task, bench/admission).
   */
  constructor(sql: StatementCache, transaction: <T>(work: () => T) => T, statement: <T>(work: () => T) => T) {
    this.#sql = sql;
    this.#transaction = transaction;
    this.#statement = statement;
  }

  // --- tasks -------------------------------------------------------------------------------

  task(taskId: string): StoredTask | undefined {
    const row = this.#sql.get(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ?`).get(taskId) as
      TaskRow | undefined;
    return row === undefined ? undefined : taskOf(row);
  }

  taskByHandle(handle: string): StoredTask | undefined {
    const row = this.#sql.get(`SELECT ${TASK_COLUMNS} FROM tasks WHERE handle = ?`).get(handle) as
      TaskRow | undefined;
    return row === undefined ? undefined : taskOf(row);
  }

  insertTask(task: NewTask): void {
    this.#statement(() => {
      this.#sql
        .get(
          `INSERT INTO tasks (${TASK_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)`,
        )
        .run(
          task.taskId,
          task.handle,
          task.callerJid,
          task.notifyJid,
          task.endpointJid,
          task.tool,
          task.apiVersion,
          task.manifestHash.algo,
          task.manifestHash.value,
          task.argumentsJson,
          task.deadline ?? null,
          task.state,
          task.revision,
          task.created,
          task.updated,
          task.retainUntil,
          task.retainUntilMs,
        );
    });
  }

  updateTask(taskId: string, update: TaskUpdate): void {
    this.#statement(() => {
      const result = this.#sql
        .get(
          `UPDATE tasks SET state = ?, revision = ?, updated = ?, pending_input_id = ?, result_json = ?
           WHERE task_id = ?`,
        )
        .run(
          update.state,
          update.revision,
          update.updated,
          update.pendingInputId ?? null,
          update.resultJson ?? null,
          taskId,
        );
      if (result.changes !== 1) throw new Error(`no task ${taskId} to update`);
    });
  }

  /** Writes the execution record: from now on a restart must not run the task again. */
  markDispatched(taskId: string, at: string): void {
    this.#statement(() => {
      this.#sql
        .get('UPDATE tasks SET dispatched_at = ? WHERE task_id = ? AND dispatched_at IS NULL')
        .run(at, taskId);
    });
  }

  /** Moves every task notified at `fromJid` to `toJid` (#task-message-routing: bare-JID fallback). */
  rerouteNotifications(fromJid: string, toJid: string): number {
    return this.#statement(
      () =>
        this.#sql
          .get(`UPDATE tasks SET notify_jid = ? WHERE notify_jid = ? AND state NOT IN ${TERMINAL}`)
          .run(toJid, fromJid).changes,
    );
  }

  /** Every task that is not terminal, oldest first: crash recovery and deadline timers. */
  nonTerminalTasks(): StoredTask[] {
    const rows = this.#sql
      .get(`SELECT ${TASK_COLUMNS} FROM tasks WHERE state NOT IN ${TERMINAL} ORDER BY created, task_id`)
      .all() as TaskRow[];
    return rows.map(taskOf);
  }

  countNonTerminal(): number {
    const row = this.#sql.get(`SELECT count(*) AS n FROM tasks WHERE state NOT IN ${TERMINAL}`).get() as {
      n: number;
    };
    return row.n;
  }

  countNonTerminalOf(callerJid: string): number {
    const row = this.#sql
      .get(`SELECT count(*) AS n FROM tasks WHERE caller_jid = ? AND state NOT IN ${TERMINAL}`)
      .get(callerJid) as { n: number };
    return row.n;
  }

  /**
   * Deletes terminal tasks whose retention ended at or before `nowMs`, with their events,
   * input requests and cancellation (cascade); returns what was deleted, so the caller can
   * release the version references in the same transaction.
   */
  purgeTasks(nowMs: number): StoredTask[] {
    return this.#transaction(() => {
      const rows = this.#sql
        .get(`SELECT ${TASK_COLUMNS} FROM tasks WHERE state IN ${TERMINAL} AND retain_until_ms <= ?`)
        .all(nowMs) as TaskRow[];
      const remove = this.#sql.get('DELETE FROM tasks WHERE task_id = ?');
      for (const row of rows) remove.run(row.task_id);
      return rows.map(taskOf);
    });
  }

  // --- replay records ----------------------------------------------------------------------

  replay(callerJid: string, endpointJid: string, requestId: string): StoredReplay | undefined {
    const row = this.#sql
      .get(
        `SELECT ${REPLAY_COLUMNS} FROM invocation_replays
         WHERE caller_jid = ? AND endpoint_jid = ? AND request_id = ?`,
      )
      .get(callerJid, endpointJid, requestId) as ReplayRow | undefined;
    return row === undefined ? undefined : replayOf(row);
  }

  insertReplay(replay: StoredReplay): void {
    this.#statement(() => {
      this.#sql
        .get(`INSERT INTO invocation_replays (${REPLAY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(
          replay.callerJid,
          replay.endpointJid,
          replay.requestId,
          replay.fingerprint,
          replay.taskId,
          replay.created,
          replay.retainUntil,
          replay.keepUntilMs,
        );
    });
  }

  /** Deletes replay records past their keep-until whose task is gone or terminal. */
  purgeReplays(nowMs: number): number {
    return this.#statement(
      () =>
        this.#sql
          .get(
            `DELETE FROM invocation_replays WHERE keep_until_ms <= ? AND NOT EXISTS (
               SELECT 1 FROM tasks t WHERE t.task_id = invocation_replays.task_id
               AND t.state NOT IN ${TERMINAL})`,
          )
          .run(nowMs).changes,
    );
  }

  // --- events ------------------------------------------------------------------------------

  insertEvent(event: StoredEvent): void {
    this.#statement(() => {
      this.#sql
        .get(`INSERT INTO task_events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(event.taskId, event.revision, event.eventId, event.type, event.payloadJson, event.created);
    });
  }

  event(taskId: string, revision: number): StoredEvent | undefined {
    const row = this.#sql
      .get(`SELECT ${EVENT_COLUMNS} FROM task_events WHERE task_id = ? AND revision = ?`)
      .get(taskId, revision) as EventRow | undefined;
    return row === undefined ? undefined : eventOf(row);
  }

  /** The task's events from `fromRevision` on, in revision order. */
  events(taskId: string, fromRevision = 1): StoredEvent[] {
    const rows = this.#sql
      .get(`SELECT ${EVENT_COLUMNS} FROM task_events WHERE task_id = ? AND revision >= ? ORDER BY revision`)
      .all(taskId, fromRevision) as EventRow[];
    return rows.map(eventOf);
  }

  // --- input requests ----------------------------------------------------------------------

  inputRequest(taskId: string, requestId: string): StoredInputRequest | undefined {
    const row = this.#sql
      .get(`SELECT ${INPUT_COLUMNS} FROM input_requests WHERE task_id = ? AND request_id = ?`)
      .get(taskId, requestId) as InputRow | undefined;
    return row === undefined ? undefined : inputOf(row);
  }

  pendingInputRequest(taskId: string): StoredInputRequest | undefined {
    const row = this.#sql
      .get(`SELECT ${INPUT_COLUMNS} FROM input_requests WHERE task_id = ? AND status = 'pending'`)
      .get(taskId) as InputRow | undefined;
    return row === undefined ? undefined : inputOf(row);
  }

  insertInputRequest(request: Omit<StoredInputRequest, 'status'>): void {
    this.#statement(() => {
      this.#sql
        .get(
          `INSERT INTO input_requests (${INPUT_COLUMNS}) VALUES (?, ?, ?, ?, 'pending', ?, NULL, NULL, NULL)`,
        )
        .run(
          request.taskId,
          request.requestId,
          request.payloadJson,
          request.expiresAt ?? null,
          request.issuedRevision,
        );
    });
  }

  /** Ends a pending request without an answer (expired, or superseded by settlement). */
  closeInputRequest(taskId: string, requestId: string, status: 'expired' | 'superseded'): void {
    this.#statement(() => {
      this.#sql
        .get(
          `UPDATE input_requests SET status = ? WHERE task_id = ? AND request_id = ? AND status = 'pending'`,
        )
        .run(status, taskId, requestId);
    });
  }

  recordInputAnswer(
    taskId: string,
    requestId: string,
    answer: { readonly fingerprint: string; readonly revision: number; readonly inputJson: string },
  ): void {
    this.#statement(() => {
      const result = this.#sql
        .get(
          `UPDATE input_requests SET status = 'answered', accepted_fingerprint = ?, accepted_revision = ?,
             accepted_input_json = ?
           WHERE task_id = ? AND request_id = ? AND status = 'pending'`,
        )
        .run(answer.fingerprint, answer.revision, answer.inputJson, taskId, requestId);
      if (result.changes !== 1) throw new Error(`input request ${requestId} is not pending`);
    });
  }

  // --- cancellations -----------------------------------------------------------------------

  cancellation(taskId: string): StoredCancellation | undefined {
    const row = this.#sql
      .get(
        'SELECT task_id, fingerprint, revision, reason, accepted_at FROM task_cancellations WHERE task_id = ?',
      )
      .get(taskId) as CancellationRow | undefined;
    return row === undefined ? undefined : cancellationOf(row);
  }

  insertCancellation(cancellation: StoredCancellation): void {
    this.#statement(() => {
      this.#sql
        .get(
          `INSERT INTO task_cancellations (task_id, fingerprint, revision, reason, accepted_at)
           VALUES (?, ?, ?, ?, ?)`,
        )
        .run(
          cancellation.taskId,
          cancellation.fingerprint,
          cancellation.revision,
          cancellation.reason ?? null,
          cancellation.acceptedAt,
        );
    });
  }
}
