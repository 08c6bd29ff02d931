/**
 * The target's lifecycle messages for one task, as it sent them on its component link, checked
 * the way a caller may rely on them: each one valid lifecycle message
 * with a payload valid for its type (#events, #event-json-schemas), one event per revision from
 * the one after <accepted/> upwards without gaps (an identical repeat allowed: #events), each a
 * permitted transition or a progress update (#task-states). The first problem is returned with
 * the requirement it breaks; the events, one per revision in revision order, otherwise, with a
 * warning for each addressed neither to the JID that invoked nor its bare JID (#task-message-
 * routing recommends the invoking full JID and allows the bare JID; a call-out invokes from its
 * endpoint's bare JID, so both are the same there).
 */
import type { Element } from '@xmpp/xml';

import { validateEventPayload } from '../../protocol/events/index.ts';
import { bareJidOf } from '../../protocol/jid/index.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { isLifecycleMessage, parseLifecycleMessage, type TaskEvent } from '../../protocol/stanza/index.ts';
import { findTransition, isTaskState, isTerminal, type TaskState } from '../../protocol/task-states.ts';
import { requirementOfInvalidEvent } from '../../suites/framework/event-requirement.ts';
import type { SentStanza } from './call-out-session.ts';

export interface TargetEvent {
  readonly event: TaskEvent;
  readonly payload: JsonValue;
  readonly to: string;
  readonly atMs: number;
  readonly xml: string;
}

export interface EventProblem {
  readonly requirement: string;
  readonly message: string;
}

function taskIdOf(stanza: Element): string | undefined {
  const event = stanza.getChild('event', 'urn:xmpp:agent-task:0');
  const id = event?.attrs['task-id'];
  return typeof id === 'string' ? id : undefined;
}

function bareOrUndefined(jid: string): string | undefined {
  try {
    return bareJidOf(jid);
  } catch {
    return undefined;
  }
}

/** One parsed, schema-valid event, or the problem with it. */
function readEvent(sent: SentStanza): TargetEvent | EventProblem {
  const xml = sent.stanza.toString();
  let parsed;
  try {
    parsed = parseLifecycleMessage(sent.stanza);
  } catch (error) {
    return {
      requirement: 'event-json-schemas.payloads-valid',
      message: `a malformed lifecycle message (${error instanceof Error ? error.message : String(error)}): ${xml}`,
    };
  }
  const to = parsed.message.to ?? '';
  let payload: JsonValue;
  try {
    payload = parseStrictJson(parsed.event.json);
  } catch (error) {
    return {
      requirement: 'event-json-schemas.payloads-valid',
      message: `the ${parsed.event.type} event at revision ${String(parsed.event.revision)} is not one JSON text (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const validation = validateEventPayload(parsed.event.type, payload);
  if (!validation.ok) {
    const requirement = requirementOfInvalidEvent(parsed.event.type, validation.violations);
    return {
      requirement,
      message: `the ${parsed.event.type} event at revision ${String(parsed.event.revision)} breaks the event schema (${validation.violations.map((violation) => `${violation.path || '/'}: ${violation.message}`).join('; ')})`,
    };
  }
  return { event: parsed.event, payload, to, atMs: sent.atMs, xml };
}

function isProblem(value: TargetEvent | EventProblem): value is EventProblem {
  return 'requirement' in value;
}

function stateAfter(event: TargetEvent): string | undefined {
  if (event.event.type !== 'status') return event.event.type;
  return isJsonObject(event.payload) && typeof event.payload['state'] === 'string'
    ? event.payload['state']
    : undefined;
}

function transitionProblem(events: readonly TargetEvent[]): EventProblem | undefined {
  let state: TaskState = 'accepted';
  for (const received of events) {
    if (isTerminal(state)) return undefined;
    if (received.event.type === 'progress') continue;
    const to = stateAfter(received);
    const permitted =
      to !== undefined &&
      isTaskState(to) &&
      (findTransition(state, to)?.event === received.event.type ||
        (state === 'input_required' && to === 'input_required'));
    if (!permitted) {
      return {
        requirement: 'task-states.permitted-transitions',
        message: `at revision ${String(received.event.revision)}, ${received.event.type} ${canonicalJson(received.payload)} is no permitted transition from ${state}`,
      };
    }
    state = to;
  }
  return undefined;
}

/**
 * The task's events among `sent`, checked (see the module comment). `acceptedRevision` is the
 * revision its <accepted/> reported: the first event is the one after it.
 */
export function checkedTargetEvents(
  sent: readonly SentStanza[],
  taskId: string,
  invokerJid: string,
  acceptedRevision: number,
): { readonly events: readonly TargetEvent[]; readonly warnings: readonly string[] } | EventProblem {
  const byRevision = new Map<number, TargetEvent>();
  for (const item of sent) {
    if (item.stanza.name !== 'message' || !isLifecycleMessage(item.stanza)) continue;
    if (taskIdOf(item.stanza) !== taskId) continue;
    const read = readEvent(item);
    if (isProblem(read)) return read;
    const known = byRevision.get(read.event.revision);
    if (known === undefined) {
      byRevision.set(read.event.revision, read);
      continue;
    }
    const identical =
      known.event.eventId === read.event.eventId &&
      known.event.type === read.event.type &&
      canonicalJson(known.payload) === canonicalJson(read.payload);
    if (!identical) {
      return {
        requirement: 'events.replay-identical',
        message: `two different events at revision ${String(read.event.revision)}: ${known.xml} then ${read.xml}`,
      };
    }
  }
  const revisions = [...byRevision.keys()].sort((a, b) => a - b);
  for (const [index, revision] of revisions.entries()) {
    if (revision !== acceptedRevision + index + 1) {
      return {
        requirement: 'events.revision-increments',
        message: `events at revisions ${revisions.join(', ')}: not one per revision from ${String(acceptedRevision + 1)} upwards (<accepted/> said ${String(acceptedRevision)})`,
      };
    }
  }
  const events = revisions.flatMap((revision) => byRevision.get(revision) ?? []);
  if (new Set(events.map((received) => received.event.eventId)).size !== events.length) {
    return { requirement: 'events.revision-increments', message: 'two revisions share one event ID' };
  }
  return transitionProblem(events) ?? { events, warnings: misaddressed(events, invokerJid) };
}

/**
 * Events addressed neither to the JID that invoked nor to its bare JID: a recommendation not met
 * (#task-message-routing says events SHOULD go to the invoking full JID, MAY fall back to the
 * bare JID), so a warning, never a failure.
 */
function misaddressed(events: readonly TargetEvent[], invokerJid: string): string[] {
  return events
    .filter(
      (received) =>
        received.to !== invokerJid && bareOrUndefined(received.to) !== bareOrUndefined(invokerJid),
    )
    .map(
      (received) =>
        `task-message-routing.events-to-full-jid (SHOULD): the event at revision ${String(received.event.revision)} went to '${received.to}', neither the JID that invoked ('${invokerJid}') nor its bare JID`,
    );
}

export function isEventProblem(value: object): value is EventProblem {
  return 'requirement' in value && 'message' in value;
}

/** The terminal event among checked events, if the target sent one. */
export function terminalOf(events: readonly TargetEvent[]): TargetEvent | undefined {
  return events.find((received) => isTerminal(received.event.type as TaskState));
}
