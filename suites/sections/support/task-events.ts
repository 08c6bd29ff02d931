/**
 * A task's lifecycle events checked as they are read (#events, #event-json-schemas,
 * #task-states): payloads valid for their type, one event per revision without gaps, each a
 * permitted transition; and the values cases read from them.
 */
import type { Caller, ReceivedTaskEvent, ValidTaskEvent } from '../../../harness/driver/index.ts';
import { validateEventPayload } from '../../../protocol/events/index.ts';
import { isIdentifier } from '../../../protocol/identifiers.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  findTransition,
  isTaskState,
  isTerminal,
  TERMINAL_STATES,
  type TaskState as TaskStateName,
} from '../../../protocol/task-states.ts';
import { requirementOfInvalidEvent } from '../../framework/event-requirement.ts';
import { expectThat } from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';

/** The event's JSON payload, which must parse strictly and validate for its type (#event-json-schemas). */
export function eventPayload(received: ValidTaskEvent): JsonValue {
  let payload: JsonValue;
  try {
    payload = parseStrictJson(received.event.json);
  } catch (error) {
    throw new RequirementViolation(
      'event-json-schemas.payloads-valid',
      `a ${received.event.type} event whose character data is one JSON text`,
      received.stanza.xml,
      `event-json-schemas.payloads-valid: the ${received.event.type} event at revision ${String(received.event.revision)} is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const validation = validateEventPayload(received.event.type, payload);
  if (!validation.ok) {
    const problems = validation.violations.map(
      (violation) => `${violation.path || '/'}: ${violation.message}`,
    );
    const requirement = requirementOfInvalidEvent(received.event.type, validation.violations);
    throw new RequirementViolation(
      requirement,
      `a ${received.event.type} payload valid against the event schema for its type`,
      received.stanza.xml,
      `${requirement}: the ${received.event.type} event at revision ${String(received.event.revision)} breaks the schema (${problems.join('; ')})`,
    );
  }
  return payload;
}

export function describeEvent(event: ReceivedTaskEvent): string {
  return event.valid
    ? `${event.event.type}@${String(event.event.revision)}`
    : `malformed: ${event.problem.message}`;
}

/**
 * The states the events walk through from `accepted` (revision 0), up to the first terminal
 * event: each event must be the notification of a permitted transition from the state before it
 * (#task-states: status for running and cancelling, input_required, the terminal event), or a
 * progress update of a non-terminal task. An input request straight after an expired one is
 * allowed (interp-35); input announced by a status event is not (interp-34). What follows a
 * terminal event is left to the caller, which knows the requirement it breaks.
 */
function expectPermittedTransitions(events: readonly ValidTaskEvent[], summary: string): void {
  let state: TaskStateName = 'accepted';
  for (const received of events) {
    const { type, revision } = received.event;
    if (isTerminal(state)) return;
    if (type === 'progress') continue;
    const to = type === 'status' ? statusState(received) : type;
    const permitted =
      to !== undefined &&
      isTaskState(to) &&
      (findTransition(state, to)?.event === type ||
        (state === 'input_required' && to === 'input_required' && type === 'input_required'));
    expectThat(
      summary,
      'task-states.permitted-transitions',
      `at revision ${String(revision)}, a permitted transition from ${state} announced by its own event (status for running or cancelling, input_required, or the terminal event)`,
      permitted,
    );
    state = to as TaskStateName;
  }
}

/**
 * Every event of the task received so far, checked: well-formed, valid payloads, one event per
 * revision (an identical repeat allowed, interp-41), revisions 1, 2, 3, … without gaps up to the
 * highest one seen, each a permitted transition or a progress update (#task-states). Returns
 * one event per revision, in revision order.
 */
export function checkedHistory(caller: Caller, taskId: string): ValidTaskEvent[] {
  const all = caller.events.all(taskId);
  const summary = all.map(describeEvent).join(', ');
  const byRevision = new Map<number, ValidTaskEvent>();
  for (const received of all) {
    if (!received.valid) {
      throw new RequirementViolation(
        'event-json-schemas.payloads-valid',
        'lifecycle messages with exactly one valid <event/>',
        received.stanza.xml,
        `event-json-schemas.payloads-valid: a malformed lifecycle message for task ${taskId} (${received.problem.message})`,
      );
    }
    eventPayload(received);
    const known = byRevision.get(received.event.revision);
    if (known === undefined) {
      byRevision.set(received.event.revision, received);
      continue;
    }
    const same =
      known.event.eventId === received.event.eventId &&
      known.event.type === received.event.type &&
      canonicalJson(parseStrictJson(known.event.json)) ===
        canonicalJson(parseStrictJson(received.event.json));
    expectThat(
      received.stanza.xml,
      'events.replay-identical',
      `a repeat of revision ${String(received.event.revision)} identical to the first (event ID, type, payload):\n${known.stanza.xml}`,
      same,
    );
  }
  const revisions = [...byRevision.keys()].sort((a, b) => a - b);
  const highest = revisions.at(-1) ?? 0;
  revisions.forEach((revision, index) => {
    expectThat(
      summary,
      'events.revision-increments',
      `events at revisions 1 to ${String(highest)}, each exactly once (revision 0 is the accepted state)`,
      revision === index + 1,
    );
  });
  const events = revisions.flatMap((revision) => byRevision.get(revision) ?? []);
  const ids = new Set(events.map((received) => received.event.eventId));
  expectThat(
    summary,
    'events.revision-increments',
    'a distinct event ID for every revision',
    ids.size === events.length,
  );
  for (const received of events) {
    expectThat(
      received.stanza.xml,
      'invocation.identifier-grammar',
      'event IDs of 22 to 128 characters from [A-Za-z0-9._~-]',
      isIdentifier(received.event.eventId),
    );
  }
  expectPermittedTransitions(events, summary);
  return events;
}

export function isTerminalEvent(received: ReceivedTaskEvent): boolean {
  return received.valid && (TERMINAL_STATES as readonly string[]).includes(received.event.type);
}

/** The payload of a status event's `state`, or undefined for other events. */
export function statusState(received: ValidTaskEvent): string | undefined {
  if (received.event.type !== 'status') return undefined;
  const payload = eventPayload(received);
  return isJsonObject(payload) && typeof payload['state'] === 'string' ? payload['state'] : undefined;
}

/** The terminal event's payload as the terminal state's payload: what <task-result/> must hold. */
export function terminalPayload(history: readonly ValidTaskEvent[]): {
  state: TaskStateName;
  payload: JsonValue;
  revision: number;
} {
  const last = history.at(-1);
  if (last === undefined || !isTerminalEvent(last)) throw new Error('the history has no terminal event');
  return {
    state: last.event.type as TaskStateName,
    payload: eventPayload(last),
    revision: last.event.revision,
  };
}

export function isTerminalState(state: TaskStateName): boolean {
  return isTerminal(state);
}

/** The requestId of an input_required event; '' when its payload names none. */
export function inputRequestId(received: ValidTaskEvent): string {
  const payload = parseStrictJson(received.event.json);
  return isJsonObject(payload) && typeof payload['requestId'] === 'string' ? payload['requestId'] : '';
}
