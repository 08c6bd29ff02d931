/** Lifecycle messages and IQ answers for the caller engine's unit tests, built with protocol/'s codecs. */
import type { Element } from '@xmpp/xml';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { buildEvent, buildLifecycleMessage, buildMessage } from '../../protocol/stanza/index.ts';
import type { EventType } from '../../protocol/task-states.ts';

export const TARGET = 'weather@agents.example';
export const CALLER = 'bob@server.example/bridge';

export interface EventSpec {
  readonly taskId: string;
  readonly revision: number;
  readonly type: EventType;
  readonly json: string;
  readonly eventId?: string;
  readonly from?: string;
}

export function eventMessage(spec: EventSpec): Element {
  return buildLifecycleMessage(
    { from: spec.from ?? TARGET, to: CALLER },
    {
      taskId: spec.taskId,
      eventId: spec.eventId ?? generateIdentifier('evt-'),
      revision: spec.revision,
      type: spec.type,
      json: spec.json,
    },
  );
}

/** A message carrying two task events: invalid whatever they say (#events). */
export function twoEventMessage(first: EventSpec, second: EventSpec): Element {
  const event = (spec: EventSpec): Element =>
    buildEvent({
      taskId: spec.taskId,
      eventId: spec.eventId ?? generateIdentifier('evt-'),
      revision: spec.revision,
      type: spec.type,
      json: spec.json,
    });
  return buildMessage({ from: TARGET, to: CALLER, type: 'normal' }, event(first), event(second));
}

export const RUNNING = '{"state":"running","updatedAt":"2026-07-27T19:14:02Z"}';
export const COMPLETED = '{"result":{"content":[{"type":"text","text":"Light rain"}]}}';
