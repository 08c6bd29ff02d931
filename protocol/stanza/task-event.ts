/**
 * Lifecycle events (#events, #schema-agent-task): <event task-id event-id revision type>JSON</event>,
 * and the message-level dispatch rule: a message with at least one direct agent-task <event/>
 * child is a lifecycle message, valid only with exactly one such child and type "normal"
 * (explicit or by the RFC 6121 default).
 */
import type { Element } from '@xmpp/xml';
import { NS_AGENT_TASK } from '../namespaces.ts';
import { childrenNamed } from './element-access.ts';
import {
  checkAttributes,
  enumAttribute,
  expectElement,
  lexAttribute,
  parseFailure,
} from './element-reader.ts';
import { integerText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildMessage, parseMessage } from './envelope.ts';
import type { MessageEnvelope, StanzaAddressing } from './envelope.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexEnum, lexIdentifier, lexNonNegativeInteger } from './lexical.ts';
import { EVENT_TYPES, type EventType } from '../task-states.ts';

export interface TaskEvent {
  readonly taskId: string;
  readonly eventId: string;
  readonly revision: number;
  readonly type: EventType;
  /** The JSON payload text as carried, surrounding whitespace included. */
  readonly json: string;
}

export interface LifecycleMessage {
  readonly message: MessageEnvelope;
  readonly event: TaskEvent;
}

const EVENT: BuildTarget = { local: 'event', ns: NS_AGENT_TASK };

export function parseEvent(element: Element): TaskEvent {
  expectElement(element, 'event', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'event-id', 'revision', 'type']);
  return {
    taskId: lexAttribute(element, 'task-id', lexIdentifier),
    eventId: lexAttribute(element, 'event-id', lexIdentifier),
    revision: lexAttribute(element, 'revision', lexNonNegativeInteger),
    type: enumAttribute(element, 'type', EVENT_TYPES),
    json: readJsonText(element),
  };
}

export function buildEvent(event: TaskEvent): Element {
  return buildJsonElement(
    EVENT,
    {
      xmlns: NS_AGENT_TASK,
      'task-id': lexForBuild(EVENT, 'task-id', event.taskId, lexIdentifier),
      'event-id': lexForBuild(EVENT, 'event-id', event.eventId, lexIdentifier),
      revision: integerText(EVENT, 'revision', event.revision),
      type: lexForBuild(EVENT, 'type', event.type, lexEnum(EVENT_TYPES)),
    },
    event.json,
  );
}

/** The message's direct children that are task events; an <event/> in another namespace is not one. */
export function taskEventChildren(message: Element): Element[] {
  return childrenNamed(message, 'event', NS_AGENT_TASK);
}

export function isLifecycleMessage(message: Element): boolean {
  return taskEventChildren(message).length > 0;
}

/** Applies the #events validity rules that concern XML; JSON and task history are checked elsewhere. */
export function parseLifecycleMessage(message: Element): LifecycleMessage {
  const { children: _children, error: _error, ...envelope } = parseMessage(message);
  const [event, extra] = taskEventChildren(message);
  if (event === undefined) {
    throw parseFailure(message, 'missing-child', 'a lifecycle message carries a task <event/>');
  }
  if (extra !== undefined) {
    throw parseFailure(message, 'duplicate-child', 'a lifecycle message carries exactly one task <event/>');
  }
  if (envelope.typeAttribute !== undefined && envelope.typeAttribute !== 'normal') {
    throw parseFailure(
      message,
      'invalid-attribute',
      `lifecycle messages have type normal, not ${envelope.typeAttribute}`,
      'type',
    );
  }
  return { message: envelope, event: parseEvent(event) };
}

export interface LifecycleMessageToBuild extends StanzaAddressing {
  readonly id?: string;
}

/** A lifecycle message with an explicit type="normal" (#events) and no processing hints. */
export function buildLifecycleMessage(envelope: LifecycleMessageToBuild, event: TaskEvent): Element {
  return buildMessage({ ...envelope, type: 'normal' }, buildEvent(event));
}
