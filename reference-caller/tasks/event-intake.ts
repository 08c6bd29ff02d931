/**
 * The caller's judgement of one inbound message (#events, #event-json-schemas, #json-encoding).
 * Every rule that makes a lifecycle message invalid is checked, in the order the caller can
 * afford to: the XML shape, the JSON (within the caller's documented limits: an over-limit
 * payload is just another invalid message), the event schema, the task and its target, and
 * consistency with the task's history. An invalid message is dropped whole, never shown as chat;
 * the verdict's reason is bounded and never quotes the payload, so it can be logged as is.
 * Pure: the task records are looked up through the function given.
 */
import type { Element } from '@xmpp/xml';
import { validateEventPayload, type EventPayload } from '../../protocol/events/index.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonLimits } from '../../protocol/json/json-limits.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { bareJidOf } from '../../protocol/jid/index.ts';
import { isLifecycleMessage, parseLifecycleMessage, type TaskEvent } from '../../protocol/stanza/index.ts';
import { findTransition, isTerminal, progressAllowed, type TaskState } from '../../protocol/task-states.ts';
import type { SeenEvent, TaskRecord } from './task-record.ts';

/** The caller's documented limits on an event's JSON (docs/mcp-bridge.md). */
export const EVENT_JSON_LIMITS: Partial<JsonLimits> = {
  maxBytes: 262_144,
  maxDepth: 32,
  maxStringLength: 65_536,
  maxObjectMembers: 4096,
  maxArrayElements: 16_384,
  maxValues: 65_536,
};

export interface AcceptedEvent {
  readonly record: TaskRecord;
  readonly event: TaskEvent;
  readonly payload: EventPayload;
  readonly seen: SeenEvent;
  /** The state the task is in once this event is committed. */
  readonly nextState: TaskState;
}

export type Intake =
  /** No agent-task <event/> child: not a task event, and the caller shows no chat. */
  | { readonly kind: 'not-lifecycle' }
  | { readonly kind: 'invalid'; readonly reason: string }
  /** Valid in itself, but for no task this caller retains (yet: see TaskTracker). */
  | { readonly kind: 'unknown-task'; readonly reason: string }
  /** The same event ID, type and canonical payload at a known revision: ignored silently. */
  | { readonly kind: 'replay'; readonly taskId: string; readonly revision: number }
  /** Another event at a known revision: a protocol error, ignored and logged. */
  | { readonly kind: 'conflict'; readonly taskId: string; readonly revision: number; readonly reason: string }
  /** A revision below the known one that was never seen (state was recovered past it). */
  | { readonly kind: 'stale'; readonly taskId: string; readonly revision: number }
  /** A revision beyond the next one: the caller recovers state first (#events). */
  | { readonly kind: 'gap'; readonly accepted: AcceptedEvent }
  | { readonly kind: 'next'; readonly accepted: AcceptedEvent };

function describe(error: unknown): string {
  if (error instanceof JsonRejection) return `JSON rejected (${error.rule})`;
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The state an event moves its task to, or undefined when it cannot follow `from`. */
function stateAfter(from: TaskState, event: TaskEvent, payload: EventPayload): TaskState | undefined {
  switch (event.type) {
    case 'progress':
      return progressAllowed(from) ? from : undefined;
    case 'status': {
      const to = (payload as EventPayload<'status'>).state;
      return findTransition(from, to)?.event === 'status' ? to : undefined;
    }
    default:
      return findTransition(from, event.type)?.event === event.type ? event.type : undefined;
  }
}

export function intakeMessage(message: Element, lookup: (taskId: string) => TaskRecord | undefined): Intake {
  if (!isLifecycleMessage(message)) return { kind: 'not-lifecycle' };
  let event: TaskEvent;
  let sender: string;
  try {
    const parsed = parseLifecycleMessage(message);
    event = parsed.event;
    sender = bareJidOf(parsed.message.from ?? '');
  } catch (error) {
    return { kind: 'invalid', reason: `malformed lifecycle message: ${describe(error)}` };
  }
  const where = `task ${event.taskId} revision ${String(event.revision)}`;
  let value: JsonValue;
  try {
    value = parseStrictJson(event.json, EVENT_JSON_LIMITS);
  } catch (error) {
    return { kind: 'invalid', reason: `${where}: ${describe(error)}` };
  }
  const validation = validateEventPayload(event.type, value);
  if (!validation.ok) {
    const [first] = validation.violations;
    return {
      kind: 'invalid',
      reason: `${where}: ${event.type} payload breaks the event schema (${String(validation.violations.length)} violation(s), first at ${first?.path ?? '/'})`,
    };
  }
  const record = lookup(event.taskId);
  if (record === undefined)
    return { kind: 'unknown-task', reason: `${where}: not a task this caller retains` };
  if (record.target !== sender)
    return { kind: 'invalid', reason: `${where}: sent by another entity than the task's target` };
  const seen: SeenEvent = {
    eventId: event.eventId,
    type: event.type,
    canonicalPayload: canonicalJson(value),
  };
  const known = record.seen(event.revision);
  if (known !== undefined) {
    const identical =
      known.eventId === seen.eventId &&
      known.type === seen.type &&
      known.canonicalPayload === seen.canonicalPayload;
    if (identical) return { kind: 'replay', taskId: event.taskId, revision: event.revision };
    const differs = known.eventId === seen.eventId ? 'type or payload' : 'event ID';
    return {
      kind: 'conflict',
      taskId: event.taskId,
      revision: event.revision,
      reason: `another ${differs} at a known revision`,
    };
  }
  if (event.revision === 0)
    return { kind: 'invalid', reason: `${where}: revision 0 is the admission, never an event` };
  if (event.revision <= record.revision)
    return { kind: 'stale', taskId: event.taskId, revision: event.revision };
  if (isTerminal(record.state)) return { kind: 'invalid', reason: `${where}: the task already settled` };
  const payload = validation.payload;
  if (event.revision > record.revision + 1) {
    return { kind: 'gap', accepted: { record, event, payload, seen, nextState: record.state } };
  }
  const nextState = stateAfter(record.state, event, payload);
  if (nextState === undefined) {
    return { kind: 'invalid', reason: `${where}: a ${event.type} event cannot follow state ${record.state}` };
  }
  return { kind: 'next', accepted: { record, event, payload, seen, nextState } };
}
