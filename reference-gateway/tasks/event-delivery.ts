/**
 * Lifecycle messages (#events, #task-message-routing): from the endpoint's bare JID (the only
 * sender the component may use for the task, #security), to the route stored with the task —
 * the invoking full JID, or its bare JID once that route was reported lost. Type "normal" and
 * no processing hints: no-copy is forbidden, and store hints are no correctness mechanism.
 * The stanza id is the event ID, so distinct events never share a stanza id (interp-41) and a
 * re-sent event is byte-identical to the first send.
 *
 * security.no-sender-spoofing: from the task's own endpoint JID, for that task only.
 * task-message-routing.no-no-copy-hint: no processing hints at all.
 * events.replay-identical: a re-send repeats the stored event ID, revision, type and payload.
 * security.model-output-not-routing: the route is the stored invoking JID, never tool output.
 */
import type { Element } from '@xmpp/xml';
import { buildLifecycleMessage } from '../../protocol/stanza/task-event.ts';
import type { StoredEvent, StoredTask } from '../store/task-records.ts';

export function eventMessage(
  task: Pick<StoredTask, 'endpointJid' | 'notifyJid'>,
  event: StoredEvent,
): Element {
  return buildLifecycleMessage(
    { from: task.endpointJid, to: task.notifyJid, id: event.eventId },
    {
      taskId: event.taskId,
      eventId: event.eventId,
      revision: event.revision,
      type: event.type,
      json: event.payloadJson,
    },
  );
}
