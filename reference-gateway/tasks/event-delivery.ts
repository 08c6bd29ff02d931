/**
 * Lifecycle messages (#events, #task-message-routing): from the endpoint's bare JID (the only
 * sender the component may use for the task, #security), to the route stored with the task —
 * the invoking full JID, or its bare JID once that route was reported lost. Type "normal" and
 * no processing hints: no-copy is forbidden, and store hints are no correctness mechanism.
 * The stanza id is the event ID, so distinct events never share a stanza id (spec-positions
 * #41) and a re-sent event is byte-identical to the first send.
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
