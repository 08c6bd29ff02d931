/**
 * Histories of concurrent task operations and their check against the task model (Jepsen/Elle
 * style, issue 14 item 1): what several callers sent about one task and when, what each was
 * answered (ok with a value, fail with an error condition, info when no answer came), and the
 * lifecycle events each observer received. `checkHistory` decides whether one sequence of
 * committed transitions (#task-states) explains all of it:
 *
 * - the events of all observers agree per revision, and each observer saw revisions 1, 2, 3, …
 *   without gaps (#events; on the harness's lossless links), each a permitted transition;
 * - one terminal event, at the highest revision: nothing commits after it (#task-states,
 *   #cancellation);
 * - every state and result read fits the event log, and no read goes back in real time behind
 *   what an earlier answer or a received event proved (#task-recovery: the IQs are the source of
 *   truth);
 * - cancellation and input: one accepted tuple each, identical replays return the original
 *   revision, acceptance only from the state the transition requires, the transition's status
 *   event at the acceptance revision (interp-33), never after settlement, and an accepted input
 *   applied exactly once (#cancellation, #interactive-input);
 * - invocations: identical ones from any resource of the caller return the same task, another
 *   fingerprint conflict, another caller's same request ID an independent task, and the tool ran
 *   at most once by its out-of-band ledger (#invocation, #idempotency);
 * - operations by other accounts get item-not-found and change nothing (#task-recovery).
 *
 * Where the spec allows either outcome of a race (cancel before or after completion, input
 * before or after expiry, completion just before or at the deadline) every consistent history
 * passes; the caller names the terminal outcomes its schedule admits. Pure: values in, values
 * out, times as numbers on one monotonic clock supplied by the recorder.
 */
import { canonicalJson, sha256Base64 } from '../json/canonical.ts';
import { isJsonObject, type JsonValue } from '../json/json-value.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { findTransition, isTaskState, isTerminal, type EventType, type TaskState } from '../task-states.ts';

export type OperationRequest =
  | {
      readonly kind: 'invoke';
      readonly requestId: string;
      /** What makes two invocations identical for the caller (tool, pins, canonical arguments, deadline). */
      readonly fingerprint: string;
    }
  | { readonly kind: 'cancel'; readonly expectedRevision: number; readonly reason?: string }
  | {
      readonly kind: 'provide-input';
      readonly requestId: string;
      readonly expectedRevision: number;
      /** The input's canonical JSON. */
      readonly input: string;
    }
  | { readonly kind: 'task-state' }
  | { readonly kind: 'task-result' };

export type OperationValue =
  | {
      readonly kind: 'accepted';
      readonly taskId: string;
      readonly created: string;
      readonly revision: number;
      /** As written: informative, the checker compares `created` only (interp-28). */
      readonly retainUntil?: string;
    }
  | { readonly kind: 'cancel-accepted'; readonly taskId: string; readonly revision: number }
  | { readonly kind: 'input-accepted'; readonly taskId: string; readonly revision: number }
  | {
      readonly kind: 'task-state';
      readonly state: string;
      readonly revision: number;
      readonly resultAvailable: boolean;
      /** The pending input request's ID, when the state carries one. */
      readonly pendingRequestId?: string;
    }
  | {
      readonly kind: 'task-result';
      readonly state: string;
      readonly revision: number;
      /** Canonical JSON of the retained payload ('' when it was not JSON). */
      readonly payload: string;
    };

export type OperationResult =
  | { readonly type: 'ok'; readonly value: OperationValue }
  /** An IQ error (its defined condition), or a reply that was not what the operation returns. */
  | { readonly type: 'fail'; readonly condition: string }
  /** No answer within the caller's timeout: the outcome is unknown (Jepsen's info). */
  | { readonly type: 'info'; readonly reason: string };

export interface Operation {
  /** Position in the history, for references in violations. */
  readonly index: number;
  /** Who sent it: one connected resource (e.g. "owner/a", "peer"). */
  readonly process: string;
  /** The authenticated bare JID it was sent as. */
  readonly principal: string;
  readonly request: OperationRequest;
  readonly invokedAt: number;
  /** Absent for info: the operation may take effect at any time after invokedAt. */
  readonly completedAt?: number;
  readonly result: OperationResult;
}

export interface ObservedEvent {
  /** The process whose resource received it. */
  readonly observer: string;
  readonly revision: number;
  readonly eventId: string;
  readonly type: EventType;
  /** Canonical JSON of the payload. */
  readonly payload: string;
  readonly receivedAt: number;
}

export interface History {
  /** The bare JID that owns the task (its invoker). */
  readonly owner: string;
  readonly taskId: string;
  readonly operations: readonly Operation[];
  /** Every lifecycle event of the task, as each observer received it. */
  readonly events: readonly ObservedEvent[];
  /** The tool's executions as its out-of-band ledger counted them, read after settlement. */
  readonly executions?: number;
  /**
   * From this instant on the task's retain-until may have passed, so the owner may get
   * item-not-found for it (#task-recovery: expired tasks are like nonexistent ones).
   */
  readonly purgeableFrom?: number;
}

/**
 * item-not-found for the owner once the task may have been purged: allowed, and says nothing. The
 * gateway took the request at some instant up to its answer, so an answer from purgeableFrom on
 * may come from after the purge, however early the request was sent (a loaded gateway answers
 * late).
 */
function purged(history: History, operation: Operation): boolean {
  return (
    history.purgeableFrom !== undefined &&
    (operation.completedAt ?? Number.POSITIVE_INFINITY) >= history.purgeableFrom &&
    operation.result.type === 'fail' &&
    operation.result.condition === 'item-not-found'
  );
}

export interface TerminalOutcome {
  readonly state: 'completed' | 'failed' | 'cancelled';
  /** For failed: the error code required. */
  readonly code?: string;
}

export interface HistoryExpectations {
  /** The terminal outcomes the schedule admits (every one of them is conforming). */
  readonly terminals?: readonly TerminalOutcome[];
  /** The script completes echoing its inputs: a completion must echo exactly the accepted inputs, once each. */
  readonly echoesInputs?: boolean;
  /** The task must have settled by the end of the history. */
  readonly settled?: boolean;
}

export const HISTORY_RULES = {
  'event-identity': 'events',
  'revision-gaps': 'events',
  transitions: 'task-states',
  'terminal-immutable': 'task-states',
  'terminal-outcome': 'task-states',
  'state-read': 'task-recovery',
  'result-read': 'task-recovery',
  'read-order': 'task-recovery',
  'cancel-identity': 'cancellation',
  'cancel-tuple': 'cancellation',
  'cancel-after-terminal': 'cancellation',
  'cancel-revision': 'cancellation',
  'cancel-stale': 'cancellation',
  'input-identity': 'interactive-input',
  'input-tuple': 'interactive-input',
  'input-superseded': 'interactive-input',
  'input-late-not-found': 'interactive-input',
  'input-applied-once': 'interactive-input',
  'invoke-identity': 'invocation',
  'invoke-conflict': 'invocation',
  'invoke-scope': 'idempotency',
  'double-execution': 'invocation',
  authorization: 'task-recovery',
  'unexpected-answer': 'errors',
} as const;

export type HistoryRule = keyof typeof HISTORY_RULES;

export interface HistoryViolation {
  readonly rule: HistoryRule;
  /** The spec section anchor the rule comes from. */
  readonly anchor: string;
  readonly message: string;
  /** Operations involved (their index). */
  readonly operations: readonly number[];
}

interface LogEntry {
  readonly event: ObservedEvent;
  /** The state after this revision committed. */
  readonly state: TaskState;
  /** The pending input request after it, if any. */
  readonly pending: string | undefined;
}

/** What the events say about the task, revision by revision. */
interface EventLog {
  readonly byRevision: ReadonlyMap<number, LogEntry>;
  readonly highest: number;
  /** The first terminal revision, if any. */
  readonly terminal: LogEntry | undefined;
}

function parsed(payload: string): JsonValue | undefined {
  try {
    return parseStrictJson(payload);
  } catch {
    return undefined;
  }
}

function member(value: JsonValue | undefined, name: string): JsonValue | undefined {
  return isJsonObject(value) ? value[name] : undefined;
}

/** The state a non-progress event moves the task to, or undefined when it names none. */
function targetState(event: ObservedEvent): string | undefined {
  if (event.type === 'status') {
    const state = member(parsed(event.payload), 'state');
    return typeof state === 'string' ? state : undefined;
  }
  return event.type === 'progress' ? undefined : event.type;
}

function inputRequestOf(event: ObservedEvent): string | undefined {
  if (event.type !== 'input_required') return undefined;
  const id = member(parsed(event.payload), 'requestId');
  return typeof id === 'string' ? id : undefined;
}

function describeEvent(event: ObservedEvent): string {
  const state = event.type === 'status' ? targetState(event) : undefined;
  const request = inputRequestOf(event);
  return `${event.type}${state === undefined ? '' : `{${state}}`}${request === undefined ? '' : `{${request}}`}@${String(event.revision)}`;
}

class Findings {
  readonly list: HistoryViolation[] = [];

  add(rule: HistoryRule, message: string, operations: readonly number[] = []): void {
    this.list.push({ rule, anchor: HISTORY_RULES[rule], message, operations });
  }
}

function buildLog(history: History, findings: Findings): EventLog {
  const first = new Map<number, ObservedEvent>();
  for (const event of history.events) {
    const known = first.get(event.revision);
    if (known === undefined) {
      first.set(event.revision, event);
    } else if (
      known.eventId !== event.eventId ||
      known.type !== event.type ||
      known.payload !== event.payload
    ) {
      findings.add(
        'event-identity',
        `revision ${String(event.revision)} arrived as ${describeEvent(known)} (${known.eventId}) at ${known.observer} and as ${describeEvent(event)} (${event.eventId}) at ${event.observer}: one event per revision, a repeat identical`,
      );
    }
  }
  const ids = new Map<string, number>();
  for (const event of first.values()) {
    const other = ids.get(event.eventId);
    if (other !== undefined && other !== event.revision) {
      findings.add(
        'event-identity',
        `event ID ${event.eventId} names revisions ${String(other)} and ${String(event.revision)}`,
      );
    }
    ids.set(event.eventId, event.revision);
  }
  // Per observer: everything it received is 1..its highest, each once.
  const observers = new Map<string, Set<number>>();
  for (const event of history.events) {
    const seen = observers.get(event.observer) ?? new Set<number>();
    seen.add(event.revision);
    observers.set(event.observer, seen);
  }
  for (const [observer, seen] of observers) {
    const highest = Math.max(...seen);
    const missing: number[] = [];
    for (let revision = 1; revision <= highest; revision += 1)
      if (!seen.has(revision)) missing.push(revision);
    if (missing.length > 0 || seen.has(0) || [...seen].some((revision) => revision < 0)) {
      findings.add(
        'revision-gaps',
        `${observer} received revisions ${[...seen].sort((a, b) => a - b).join(', ')}: missing ${missing.join(', ') || 'none'}; events start at revision 1 and rise by one`,
      );
    }
  }
  const byRevision = new Map<number, LogEntry>();
  let state: TaskState = 'accepted';
  let pending: string | undefined;
  let terminal: LogEntry | undefined;
  const highest = first.size === 0 ? 0 : Math.max(...first.keys());
  for (let revision = 1; revision <= highest; revision += 1) {
    const event = first.get(revision);
    if (event === undefined) continue;
    if (terminal !== undefined) {
      findings.add(
        'terminal-immutable',
        `${describeEvent(event)} after the terminal ${describeEvent(terminal.event)}: a settled task never changes`,
      );
      byRevision.set(revision, { event, state, pending });
      continue;
    }
    if (event.type === 'progress') {
      byRevision.set(revision, { event, state, pending });
      continue;
    }
    const to = targetState(event);
    const permitted =
      to !== undefined &&
      isTaskState(to) &&
      (findTransition(state, to)?.event === event.type ||
        // interp-35: an expired request replaced directly by a new one.
        (state === 'input_required' && to === 'input_required' && event.type === 'input_required'));
    if (!permitted) {
      findings.add(
        'transitions',
        `${describeEvent(event)} from ${state}: not a permitted transition announced by its own event`,
      );
    }
    if (to !== undefined && isTaskState(to)) {
      state = to;
      pending = to === 'input_required' ? inputRequestOf(event) : undefined;
    }
    const entry = { event, state, pending };
    byRevision.set(revision, entry);
    if (isTerminal(state)) terminal = entry;
  }
  return { byRevision, highest, terminal };
}

/** The state after revision `revision` as the log has it (0: accepted). */
function stateAt(log: EventLog, revision: number): LogEntry | undefined {
  if (revision === 0) return undefined;
  return log.byRevision.get(revision);
}

function describeOperation(operation: Operation): string {
  const { request } = operation;
  switch (request.kind) {
    case 'invoke':
      return `#${String(operation.index)} invoke by ${operation.process}`;
    case 'cancel':
      return `#${String(operation.index)} cancel by ${operation.process} (expected ${String(request.expectedRevision)}${request.reason === undefined ? '' : `, reason ${JSON.stringify(request.reason)}`})`;
    case 'provide-input':
      return `#${String(operation.index)} provide-input by ${operation.process} (request ${request.requestId}, expected ${String(request.expectedRevision)})`;
    case 'task-state':
    case 'task-result':
      return `#${String(operation.index)} ${request.kind} by ${operation.process}`;
  }
}

const isOk = (
  operation: Operation,
  kind: OperationValue['kind'],
): operation is Operation & { result: { type: 'ok'; value: OperationValue } } =>
  operation.result.type === 'ok' && operation.result.value.kind === kind;

function conditionOf(operation: Operation): string | undefined {
  return operation.result.type === 'fail' ? operation.result.condition : undefined;
}

/** Only progress updates between `from` (exclusive) and `to` (exclusive): a stale-by-progress expected revision (interp-36). */
function onlyProgressBetween(log: EventLog, from: number, to: number): boolean {
  for (let revision = from + 1; revision < to; revision += 1) {
    if (log.byRevision.get(revision)?.event.type !== 'progress') return false;
  }
  return from < to;
}

/** Reads and events in real time: nothing read later may be older than what was proved earlier. */
function checkReadOrder(history: History, log: EventLog, findings: Findings): void {
  const terminalRevision = log.terminal?.event.revision;
  // Lower bounds: the task had reached at least this revision by `at`.
  const proofs: { at: number; revision: number; what: string; index?: number }[] = [];
  for (const event of history.events) {
    proofs.push({
      at: event.receivedAt,
      revision: event.revision,
      what: `${event.observer} received ${describeEvent(event)}`,
    });
  }
  for (const operation of history.operations) {
    if (operation.completedAt === undefined || operation.result.type !== 'ok') continue;
    if (operation.principal !== history.owner) continue;
    const { value } = operation.result;
    if (value.kind === 'accepted') continue;
    if (
      (value.kind === 'cancel-accepted' || value.kind === 'input-accepted') &&
      value.taskId !== history.taskId
    )
      continue;
    proofs.push({
      at: operation.completedAt,
      revision: value.revision,
      what: `${describeOperation(operation)} answered ${value.kind} at revision ${String(value.revision)}`,
      index: operation.index,
    });
  }
  for (const operation of history.operations) {
    if (operation.principal !== history.owner) continue;
    let upper: number | undefined;
    let read: string | undefined;
    if (isOk(operation, 'task-state')) {
      upper = operation.result.value.revision;
      read = `revision ${String(upper)} (${operation.result.value.kind === 'task-state' ? operation.result.value.state : ''})`;
    } else if (
      operation.request.kind === 'task-result' &&
      conditionOf(operation) === 'unexpected-request' &&
      terminalRevision !== undefined
    ) {
      upper = terminalRevision - 1;
      read = 'a task not yet settled (unexpected-request)';
    }
    if (upper === undefined) continue;
    const before = proofs.filter((proof) => proof.at < operation.invokedAt && proof.revision > upper);
    if (before.length === 0) continue;
    const latest = before.reduce((a, b) => (b.revision > a.revision ? b : a));
    findings.add(
      'read-order',
      `${describeOperation(operation)} read ${read ?? ''}, although before it was sent ${latest.what}: a read never goes back behind what the task already committed`,
      [operation.index, ...(latest.index === undefined ? [] : [latest.index])],
    );
  }
}

function checkReads(history: History, log: EventLog, findings: Findings): void {
  const terminal = log.terminal;
  for (const operation of history.operations) {
    if (operation.principal !== history.owner || purged(history, operation)) continue;
    const { request, result } = operation;
    if (request.kind === 'task-state') {
      if (result.type === 'fail') {
        findings.add(
          'state-read',
          `${describeOperation(operation)} got ${result.condition}: the owner's task state is readable while retained`,
          [operation.index],
        );
        continue;
      }
      if (result.type !== 'ok' || result.value.kind !== 'task-state') continue;
      const { state, revision, resultAvailable, pendingRequestId } = result.value;
      const entry = stateAt(log, revision);
      const expected = revision === 0 ? 'accepted' : entry?.state;
      if (revision > log.highest || expected === undefined) {
        findings.add(
          'state-read',
          `${describeOperation(operation)} read ${state} at revision ${String(revision)}, a revision no event announced (highest ${String(log.highest)}): a hidden transition`,
          [operation.index],
        );
        continue;
      }
      if (state !== expected) {
        findings.add(
          'state-read',
          `${describeOperation(operation)} read ${state} at revision ${String(revision)}, but the events put the task in ${expected} there`,
          [operation.index],
        );
      }
      const terminalState = isTaskState(state) && isTerminal(state);
      if (resultAvailable !== terminalState) {
        findings.add(
          'state-read',
          `${describeOperation(operation)} read ${state} with result-available=${String(resultAvailable)} (interp-39: true exactly when terminal)`,
          [operation.index],
        );
      }
      const pending = revision === 0 ? undefined : entry?.pending;
      if (state === 'input_required' && pendingRequestId !== pending) {
        findings.add(
          'state-read',
          `${describeOperation(operation)} read input_required with pending request ${pendingRequestId ?? 'none'}; the events make ${pending ?? 'none'} pending`,
          [operation.index],
        );
      }
    } else if (request.kind === 'task-result') {
      if (result.type === 'ok' && result.value.kind === 'task-result') {
        const value = result.value;
        if (
          value.state !== terminal?.state ||
          value.revision !== terminal.event.revision ||
          value.payload !== terminal.event.payload
        ) {
          findings.add(
            'result-read',
            `${describeOperation(operation)} returned ${value.state}@${String(value.revision)} ${value.payload}; the terminal event is ${terminal === undefined ? 'absent' : `${terminal.state}@${String(terminal.event.revision)} ${terminal.event.payload}`}`,
            [operation.index],
          );
        }
      } else if (result.type === 'fail' && result.condition !== 'unexpected-request') {
        findings.add(
          'result-read',
          `${describeOperation(operation)} got ${result.condition}: the result is refused with unexpected-request before settlement and returned after`,
          [operation.index],
        );
      } else if (result.type === 'ok') {
        findings.add('unexpected-answer', `${describeOperation(operation)} answered ${result.value.kind}`, [
          operation.index,
        ]);
      }
    }
  }
}

function checkCancels(history: History, log: EventLog, findings: Findings): void {
  const mine = history.operations.filter(
    (operation) => operation.request.kind === 'cancel' && operation.principal === history.owner,
  );
  const accepted = mine.filter((operation) => isOk(operation, 'cancel-accepted'));
  const tuple = (operation: Operation): string =>
    operation.request.kind === 'cancel'
      ? JSON.stringify([operation.request.expectedRevision, operation.request.reason ?? null])
      : '';
  const tuples = new Set(accepted.map(tuple));
  if (tuples.size > 1) {
    findings.add(
      'cancel-tuple',
      `cancellations with different tuples were all accepted (${accepted.map(describeOperation).join('; ')}): once one is accepted another tuple gets conflict`,
      accepted.map((operation) => operation.index),
    );
  }
  const revisions = new Set(
    accepted.map((operation) =>
      'revision' in operation.result.value ? operation.result.value.revision : -1,
    ),
  );
  if (revisions.size > 1) {
    findings.add(
      'cancel-identity',
      `cancel-accepted at revisions ${[...revisions].join(', ')}: an identical replay returns the original acceptance revision`,
      accepted.map((operation) => operation.index),
    );
  }
  for (const operation of accepted) {
    const { result, request } = operation;
    if (request.kind !== 'cancel') continue;
    const value = result.value;
    if (value.kind !== 'cancel-accepted') continue;
    if (value.taskId !== history.taskId) {
      findings.add('cancel-identity', `${describeOperation(operation)} named task ${value.taskId}`, [
        operation.index,
      ]);
    }
    const terminal = log.terminal;
    if (terminal !== undefined && value.revision > terminal.event.revision) {
      findings.add(
        'cancel-after-terminal',
        `${describeOperation(operation)} was accepted at revision ${String(value.revision)}, after the task settled ${terminal.state} at ${String(terminal.event.revision)}: a cancellation after settlement gets conflict and changes nothing`,
        [operation.index],
      );
      continue;
    }
    const entry = log.byRevision.get(value.revision);
    if (entry?.event.type !== 'status' || targetState(entry.event) !== 'cancelling') {
      findings.add(
        'cancel-revision',
        `${describeOperation(operation)} was accepted at revision ${String(value.revision)}, where the events have ${entry === undefined ? 'nothing' : describeEvent(entry.event)}: the status cancelling event carries the acceptance revision (interp-33)`,
        [operation.index],
      );
      continue;
    }
    if (!onlyProgressBetween(log, request.expectedRevision, value.revision)) {
      findings.add(
        'cancel-stale',
        `${describeOperation(operation)} was accepted at revision ${String(value.revision)}, although a state transition committed after its expected revision ${String(request.expectedRevision)} (interp-36)`,
        [operation.index],
      );
    }
  }
  // An identical replay sent after the acceptance was answered returns it (before any terminal check).
  const firstAccepted = accepted
    .filter((operation) => operation.completedAt !== undefined)
    .sort((a, b) => (a.completedAt ?? 0) - (b.completedAt ?? 0))[0];
  for (const operation of mine) {
    const condition = conditionOf(operation);
    if (condition === undefined || purged(history, operation)) continue;
    if (
      firstAccepted !== undefined &&
      tuple(operation) === tuple(firstAccepted) &&
      operation.invokedAt > (firstAccepted.completedAt ?? Infinity)
    ) {
      findings.add(
        'cancel-identity',
        `${describeOperation(operation)} got ${condition} although the identical cancellation was accepted before it was sent (#${String(firstAccepted.index)})`,
        [operation.index, firstAccepted.index],
      );
    } else if (condition !== 'conflict') {
      findings.add(
        'unexpected-answer',
        `${describeOperation(operation)} got ${condition}: the task's own caller gets cancel-accepted or conflict`,
        [operation.index],
      );
    }
  }
  for (const operation of mine) {
    if (operation.result.type === 'ok' && operation.result.value.kind !== 'cancel-accepted') {
      findings.add(
        'unexpected-answer',
        `${describeOperation(operation)} answered ${operation.result.value.kind}`,
        [operation.index],
      );
    }
  }
}

function checkInputs(
  history: History,
  log: EventLog,
  expectations: HistoryExpectations,
  findings: Findings,
): void {
  const mine = history.operations.filter(
    (operation) => operation.request.kind === 'provide-input' && operation.principal === history.owner,
  );
  const tuple = (operation: Operation): string =>
    operation.request.kind === 'provide-input'
      ? JSON.stringify([
          operation.request.requestId,
          operation.request.expectedRevision,
          operation.request.input,
        ])
      : '';
  const requestOf = (operation: Operation): string =>
    operation.request.kind === 'provide-input' ? operation.request.requestId : '';
  const accepted = mine.filter((operation) => isOk(operation, 'input-accepted'));
  const issued = new Set([...log.byRevision.values()].flatMap((entry) => inputRequestOf(entry.event) ?? []));
  const acceptedByRequest = new Map<string, Operation[]>();
  for (const operation of accepted) {
    const list = acceptedByRequest.get(requestOf(operation)) ?? [];
    list.push(operation);
    acceptedByRequest.set(requestOf(operation), list);
  }
  /** request ID → the accepted input and its revision, in acceptance order. */
  const applied: { revision: number; input: string }[] = [];
  for (const [requestId, list] of acceptedByRequest) {
    if (new Set(list.map(tuple)).size > 1) {
      findings.add(
        'input-tuple',
        `answers to ${requestId} with different tuples were all accepted (${list.map(describeOperation).join('; ')})`,
        list.map((operation) => operation.index),
      );
    }
    const revisions = new Set(
      list.map((operation) =>
        operation.result.type === 'ok' && 'revision' in operation.result.value
          ? operation.result.value.revision
          : -1,
      ),
    );
    if (revisions.size > 1) {
      findings.add(
        'input-identity',
        `input-accepted for ${requestId} at revisions ${[...revisions].join(', ')}: an identical replay returns the original acceptance revision`,
        list.map((operation) => operation.index),
      );
    }
    const first = list[0];
    if (first?.result.type !== 'ok' || first.request.kind !== 'provide-input') continue;
    const value = first.result.value;
    if (value.kind !== 'input-accepted') continue;
    applied.push({ revision: value.revision, input: first.request.input });
    const terminal = log.terminal;
    const entry = log.byRevision.get(value.revision);
    const before = value.revision === 1 ? undefined : log.byRevision.get(value.revision - 1);
    const pendingBefore = before?.state === 'input_required' ? before.pending : undefined;
    if (terminal !== undefined && value.revision > terminal.event.revision) {
      findings.add(
        'input-superseded',
        `${describeOperation(first)} was accepted at revision ${String(value.revision)}, after the task settled ${terminal.state} at ${String(terminal.event.revision)}`,
        [first.index],
      );
    } else if (entry?.event.type !== 'status' || targetState(entry.event) !== 'running') {
      findings.add(
        'input-superseded',
        `${describeOperation(first)} was accepted at revision ${String(value.revision)}, where the events have ${entry === undefined ? 'nothing' : describeEvent(entry.event)}: the status running event carries the acceptance revision (interp-33)`,
        [first.index],
      );
    } else if (pendingBefore !== requestId) {
      findings.add(
        'input-superseded',
        `${describeOperation(first)} was accepted at revision ${String(value.revision)}, but just before it the pending request was ${pendingBefore ?? 'none'} (${before === undefined ? 'accepted' : describeEvent(before.event)}): cancellation, expiry or settlement committed first, so the answer gets conflict`,
        [first.index],
      );
    } else if (!onlyProgressBetween(log, first.request.expectedRevision, value.revision)) {
      findings.add(
        'input-superseded',
        `${describeOperation(first)} was accepted at revision ${String(value.revision)} although a transition committed after its expected revision ${String(first.request.expectedRevision)} (interp-36)`,
        [first.index],
      );
    }
  }
  for (const operation of mine) {
    const condition = conditionOf(operation);
    if (condition === undefined || purged(history, operation)) continue;
    const list = acceptedByRequest.get(requestOf(operation)) ?? [];
    const answeredBefore = list.find(
      (other) => tuple(other) === tuple(operation) && (other.completedAt ?? Infinity) < operation.invokedAt,
    );
    if (answeredBefore !== undefined) {
      findings.add(
        'input-identity',
        `${describeOperation(operation)} got ${condition} although the identical answer was accepted before it was sent (#${String(answeredBefore.index)})`,
        [operation.index, answeredBefore.index],
      );
    } else if (condition === 'item-not-found' && issued.has(requestOf(operation))) {
      findings.add(
        'input-late-not-found',
        `${describeOperation(operation)} got item-not-found for a request the task issued: an answer to an expired, superseded or answered request gets conflict (interp-35, interp-37)`,
        [operation.index],
      );
    } else if (condition !== 'conflict' && condition !== 'item-not-found') {
      findings.add(
        'unexpected-answer',
        `${describeOperation(operation)} got ${condition}: a valid answer gets input-accepted or conflict`,
        [operation.index],
      );
    }
  }
  const terminal = log.terminal;
  if (expectations.echoesInputs === true && terminal?.state === 'completed') {
    const echoed = member(
      member(member(parsed(terminal.event.payload), 'result'), 'structuredContent'),
      'inputs',
    );
    const wanted = applied
      .sort((a, b) => a.revision - b.revision)
      .map((entry) => parsed(entry.input) ?? null);
    if (echoed === undefined || canonicalJson(echoed) !== canonicalJson(wanted)) {
      findings.add(
        'input-applied-once',
        `the task completed echoing ${echoed === undefined ? 'nothing' : canonicalJson(echoed)}; the accepted answers were ${canonicalJson(wanted)}: each accepted input reaches the tool exactly once`,
      );
    }
  }
}

function checkInvokes(history: History, findings: Findings): void {
  const invokes = history.operations.filter((operation) => operation.request.kind === 'invoke');
  const mine = invokes.filter((operation) => operation.principal === history.owner);
  const ours = mine.filter(
    (operation) =>
      operation.result.type === 'ok' &&
      operation.result.value.kind === 'accepted' &&
      operation.result.value.taskId === history.taskId,
  );
  const fingerprintOf = (operation: Operation): string =>
    operation.request.kind === 'invoke' ? operation.request.fingerprint : '';
  const admitted = new Set(ours.map(fingerprintOf));
  if (admitted.size > 1) {
    findings.add(
      'invoke-conflict',
      `invocations with different fingerprints and the same request ID returned the same task (${ours.map(describeOperation).join('; ')}): another fingerprint gets conflict`,
      ours.map((operation) => operation.index),
    );
  }
  const original = ours[0];
  const originalValue = original?.result.type === 'ok' ? original.result.value : undefined;
  const originalCreated = originalValue?.kind === 'accepted' ? originalValue.created : undefined;
  for (const operation of mine) {
    const { result } = operation;
    const same = original !== undefined && fingerprintOf(operation) === fingerprintOf(original);
    if (result.type === 'ok' && result.value.kind === 'accepted') {
      const value = result.value;
      if (
        same &&
        (value.taskId !== history.taskId ||
          (originalCreated !== undefined && value.created !== originalCreated))
      ) {
        findings.add(
          'invoke-identity',
          `${describeOperation(operation)} returned task ${value.taskId} created ${value.created}; the identical invocation's task is ${history.taskId} created ${String(originalCreated)}`,
          [operation.index, original.index],
        );
      } else if (!same && value.taskId !== history.taskId) {
        findings.add(
          'invoke-conflict',
          `${describeOperation(operation)} reused the request ID with another fingerprint and was admitted as task ${value.taskId}: it gets conflict`,
          [operation.index],
        );
      }
      if (value.revision !== 0) {
        findings.add(
          'invoke-identity',
          `${describeOperation(operation)} answered revision ${String(value.revision)}, not 0`,
          [operation.index],
        );
      }
    } else if (result.type === 'fail') {
      // resource-constraint is a rate limit's answer to any request, replays included.
      if (same && result.condition !== 'resource-constraint') {
        findings.add(
          'invoke-identity',
          `${describeOperation(operation)} got ${result.condition}; the identical invocation was admitted as ${history.taskId}: a replay returns it`,
          [operation.index],
        );
      } else if (!same && result.condition !== 'conflict' && result.condition !== 'resource-constraint') {
        findings.add(
          'invoke-conflict',
          `${describeOperation(operation)} reused the request ID with another fingerprint and got ${result.condition}, not conflict`,
          [operation.index],
        );
      }
    }
  }
  for (const operation of invokes) {
    if (operation.principal === history.owner) continue;
    const { result } = operation;
    if (result.type === 'ok' && result.value.kind === 'accepted' && result.value.taskId === history.taskId) {
      findings.add(
        'invoke-scope',
        `${describeOperation(operation)} (${operation.principal}) got ${history.owner}'s task ${history.taskId}: request IDs are scoped to the caller's bare JID`,
        [operation.index],
      );
    } else if (result.type === 'fail' && result.condition === 'conflict') {
      findings.add(
        'invoke-scope',
        `${describeOperation(operation)} (${operation.principal}) got conflict for ${history.owner}'s request ID: another caller's request is independent`,
        [operation.index],
      );
    }
  }
}

function checkForeign(history: History, findings: Findings): void {
  for (const operation of history.operations) {
    if (operation.principal === history.owner || operation.request.kind === 'invoke') continue;
    const { result } = operation;
    if (result.type === 'info') continue;
    if (result.type !== 'fail' || result.condition !== 'item-not-found') {
      findings.add(
        'authorization',
        `${describeOperation(operation)} as ${operation.principal} got ${result.type === 'ok' ? result.value.kind : result.condition}: only the task's own bare JID may touch it, anyone else gets item-not-found`,
        [operation.index],
      );
    }
  }
}

function failureCode(payload: string): string | undefined {
  const code = member(member(parsed(payload), 'error'), 'code');
  return typeof code === 'string' ? code : undefined;
}

/** Every violation of the task model the history shows; empty when one commit order explains it all. */
export function checkHistory(history: History, expectations: HistoryExpectations = {}): HistoryViolation[] {
  const findings = new Findings();
  const log = buildLog(history, findings);
  const terminal = log.terminal;
  if (expectations.settled === true && terminal === undefined) {
    findings.add(
      'terminal-outcome',
      `no observer received a terminal event (highest revision ${String(log.highest)})`,
    );
  }
  if (terminal !== undefined && expectations.terminals !== undefined) {
    const code = failureCode(terminal.event.payload);
    const admitted = expectations.terminals.some(
      (outcome) => outcome.state === terminal.state && (outcome.code === undefined || outcome.code === code),
    );
    if (!admitted) {
      findings.add(
        'terminal-outcome',
        `settled ${terminal.state}${code === undefined ? '' : ` (${code})`} at revision ${String(terminal.event.revision)}; this schedule admits ${expectations.terminals.map((outcome) => `${outcome.state}${outcome.code === undefined ? '' : ` (${outcome.code})`}`).join(' or ')}`,
      );
    }
  }
  checkReads(history, log, findings);
  checkReadOrder(history, log, findings);
  checkCancels(history, log, findings);
  checkInputs(history, log, expectations, findings);
  checkInvokes(history, findings);
  checkForeign(history, findings);
  if (history.executions !== undefined) {
    if (history.executions > 1) {
      findings.add(
        'double-execution',
        `the ledger counted ${String(history.executions)} executions of one admitted task: it runs at most once`,
      );
    } else if (history.executions === 0 && terminal?.state === 'completed') {
      findings.add(
        'double-execution',
        'the task completed with its tool output, yet the ledger counted no execution',
      );
    }
  }
  return findings.list;
}

function formatResult(operation: Operation): string {
  const { result } = operation;
  switch (result.type) {
    case 'info':
      return `info (${result.reason})`;
    case 'fail':
      return `fail ${result.condition}`;
    case 'ok': {
      const value = result.value;
      switch (value.kind) {
        case 'accepted':
          return `ok accepted ${value.taskId} created ${value.created}`;
        case 'cancel-accepted':
        case 'input-accepted':
          return `ok ${value.kind}@${String(value.revision)}`;
        case 'task-state':
          return `ok ${value.state}@${String(value.revision)}${value.pendingRequestId === undefined ? '' : ` pending ${value.pendingRequestId}`}${value.resultAvailable ? ' result-available' : ''}`;
        case 'task-result':
          return `ok ${value.state}@${String(value.revision)} ${value.payload}`;
      }
    }
  }
}

function formatRequest(operation: Operation): string {
  const { request } = operation;
  switch (request.kind) {
    case 'invoke':
      // The fingerprint's digest: enough to tell identical invocations from changed ones.
      return `invoke request-id=${request.requestId} fingerprint=${sha256Base64(Buffer.from(request.fingerprint, 'utf8')).slice(0, 10)}`;
    case 'cancel':
      return `cancel expected=${String(request.expectedRevision)}${request.reason === undefined ? '' : ` reason=${JSON.stringify(request.reason)}`}`;
    case 'provide-input':
      return `provide-input request=${request.requestId} expected=${String(request.expectedRevision)} input=${request.input}`;
    case 'task-state':
    case 'task-result':
      return request.kind;
  }
}

/**
 * The history as lines in time order, relative to its first entry: each operation as it was
 * invoked (and when it completed), each event as an observer received it.
 */
export function formatHistory(history: History): string {
  const times = [
    ...history.operations.map((operation) => operation.invokedAt),
    ...history.events.map((event) => event.receivedAt),
  ];
  const origin = times.length === 0 ? 0 : Math.min(...times);
  const relative = (time: number): string => `+${(time - origin).toFixed(1)} ms`;
  const at = (time: number): string => relative(time).padStart(11);
  const lines: { time: number; text: string }[] = [
    ...history.operations.map((operation) => ({
      time: operation.invokedAt,
      text: `${at(operation.invokedAt)}  #${String(operation.index).padEnd(3)} ${operation.process.padEnd(8)} ${formatRequest(operation)} → ${formatResult(operation)}${operation.completedAt === undefined ? '' : ` (${relative(operation.completedAt)})`}`,
    })),
    ...history.events.map((event) => ({
      time: event.receivedAt,
      text: `${at(event.receivedAt)}  ${'event'.padEnd(4)} ${event.observer.padEnd(8)} ← ${describeEvent(event)} ${event.payload}`,
    })),
  ];
  lines.sort((a, b) => a.time - b.time);
  return [
    `task ${history.taskId} of ${history.owner}${history.executions === undefined ? '' : `; ledger: ${String(history.executions)} execution(s)`}`,
    ...lines.map((line) => line.text),
  ].join('\n');
}
