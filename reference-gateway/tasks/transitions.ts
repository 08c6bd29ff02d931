/**
 * Committed mutations and their events (#events, #task-states): every state transition and
 * every progress update raises the revision by exactly one and stores exactly one event at
 * that revision, in the same transaction. The payload is validated against the normative event
 * schema (protocol/events) before anything is written; a payload that does not validate is a
 * bug or a runtime's fault and commits nothing. Event IDs come from the CSPRNG.
 *
 * Every function here runs inside `commit` (engine-context.ts) and queues its delivery as an
 * effect, so an event leaves the process only after its revision is durable.
 */
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { validateEventPayload } from '../../protocol/events/index.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import {
  findTransition,
  isTerminal,
  progressAllowed,
  type EventType,
  type TaskState,
  type TerminalState,
} from '../../protocol/task-states.ts';
import type { StoredTask } from '../store/task-records.ts';
import { nowText, type EngineContext, type Effects } from './engine-context.ts';
import { eventMessage } from './event-delivery.ts';

/** A mutation the engine refused to write: its payload broke the schema or a per-task limit. */
export class MutationRefused extends Error {
  override readonly name = 'MutationRefused';
}

export interface Change {
  readonly to: TaskState;
  readonly type: EventType;
  /** The payload, or a function of the commit's time stamp (status events carry it). */
  readonly payload: JsonValue | ((at: string) => JsonValue);
  /** The pending input request after the change (undefined clears it). */
  readonly pendingInputId?: string;
}

/** True when the payload conforms to `$defs/<type>` and the rules beyond the schema. */
export function payloadIsValid(type: EventType, payload: JsonValue): boolean {
  return validateEventPayload(type, payload).ok;
}

/** Commits one change at revision + 1 with its event; returns the task as it now is. */
export function appendEvent(
  ctx: EngineContext,
  effects: Effects,
  task: StoredTask,
  change: Change,
): StoredTask {
  if (change.type === 'progress') {
    if (change.to !== task.state || !progressAllowed(task.state)) {
      throw new MutationRefused('progress is reported only on a non-terminal task, without a transition');
    }
  } else if (findTransition(task.state, change.to)?.event !== change.type) {
    throw new MutationRefused(
      `no ${change.type} transition from ${task.state} to ${change.to} (#task-states)`,
    );
  }
  const at = nowText(ctx);
  const payload = typeof change.payload === 'function' ? change.payload(at) : change.payload;
  // event-json-schemas.payloads-valid, events.progress-percent-range, errors.failed-event-shape,
  // errors.qualified-codes: a payload that breaks the normative event schema or the rules beyond it
  // commits nothing.
  if (!payloadIsValid(change.type, payload)) {
    throw new MutationRefused(`the ${change.type} payload does not validate (#event-json-schemas)`);
  }
  // events.revision-increments: exactly one event per committed change, at revision + 1, in the
  // same transaction.
  const revision = task.revision + 1;
  // rules.resource-bounds, security.rate-limits: events per task and the result size are capped.
  if (revision > ctx.limits.maxEventsPerTask) throw new MutationRefused('the task has too many events');
  // events.replay-identical, json-encoding.producer-escaping: the stored canonical payload is what
  // every send of the event carries.
  const payloadJson = canonicalJson(payload);
  const terminal = isTerminal(change.to);
  if (terminal && Buffer.byteLength(payloadJson, 'utf8') > ctx.limits.resultMaxBytes) {
    throw new MutationRefused('the terminal payload exceeds the result size limit');
  }
  const event = {
    taskId: task.taskId,
    revision,
    // invocation.identifier-grammar, invocation.identifier-unpredictability
    eventId: generateIdentifier('evt-'),
    type: change.type,
    payloadJson,
    created: at,
  };
  const tables = ctx.store.tasks;
  tables.insertEvent(event);
  const updated: StoredTask = {
    ...task,
    state: change.to,
    revision,
    updated: at,
    pendingInputId: change.pendingInputId,
    resultJson: terminal ? payloadJson : undefined,
  };
  tables.updateTask(task.taskId, updated);
  // task-message-routing.delivery-independent: the event leaves only after its revision is durable,
  // and state and result are recoverable without it.
  effects.later(() => {
    ctx.deliver(eventMessage(updated, event));
  });
  if (terminal) {
    effects.later(() => {
      ctx.live.settled(task.taskId);
      ctx.active.settled(task.callerJid);
    });
  }
  return updated;
}

/**
 * Settles the task terminally. A pending input request is superseded in the same transaction,
 * so a late answer to it gets <conflict/> (#interactive-input).
 */
export function settle(
  ctx: EngineContext,
  effects: Effects,
  task: StoredTask,
  state: TerminalState,
  payload: JsonValue,
): StoredTask {
  // interactive-input.race-loser-conflict: settlement supersedes a pending input request in its own
  // transaction.
  if (task.pendingInputId !== undefined) {
    ctx.store.tasks.closeInputRequest(task.taskId, task.pendingInputId, 'superseded');
  }
  return appendEvent(ctx, effects, task, { to: state, type: state, payload });
}

/** A status event payload for `state` at the commit's time stamp. */
export function statusPayload(state: 'running' | 'input_required' | 'cancelling'): (at: string) => JsonValue {
  return (at) => ({ state, updatedAt: at });
}

/** The task as stored now, inside the caller's transaction. */
export function reload(ctx: EngineContext, taskId: string): StoredTask | undefined {
  return ctx.store.tasks.task(taskId);
}
