import { describe, expect, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import {
  buildEvent,
  buildLifecycleMessage,
  isLifecycleMessage,
  parseEvent,
  parseLifecycleMessage,
} from './task-event.ts';
import type { TaskEvent } from './task-event.ts';
import {
  EVENT_ID,
  TASK_ID,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { serialize } from './xml-serialize.ts';

const task = (local: string): string => `{${NS_AGENT_TASK}}${local}`;
const EVENT: TaskEvent = {
  taskId: TASK_ID,
  eventId: EVENT_ID,
  revision: 2,
  type: 'progress',
  json: '{"percent":50,"stage":"fetch","message":"Forecast received"}',
};
const eventXml = (attributes: string, json = '{}'): string =>
  `<event xmlns='${NS_AGENT_TASK}' ${attributes}>${json}</event>`;
const ATTRIBUTES = `event-id='${EVENT_ID}' revision='2' task-id='${TASK_ID}' type='progress'`;
const message = (type: string, body: string): string =>
  `<message from='weather@agents.example' to='planner@agents.example/worker' ${type}>${body}</message>`;

describe('event', () => {
  it('round-trips every event type, JSON whitespace kept', () => {
    for (const type of [
      'status',
      'progress',
      'input_required',
      'completed',
      'failed',
      'cancelled',
    ] as const) {
      expectRoundTrip(buildEvent, parseEvent, { ...EVENT, type, json: `\n    ${EVENT.json}\n  ` });
    }
  });

  it.each(
    titled([
      [
        parseEvent,
        eventXml(ATTRIBUTES.replace("'progress'", "'heartbeat'")),
        { rule: 'invalid-attribute', element: task('event'), attribute: 'type' },
      ],
      [
        parseEvent,
        eventXml(ATTRIBUTES.replace(`event-id='${EVENT_ID}'`, '')),
        { rule: 'missing-attribute', element: task('event'), attribute: 'event-id' },
      ],
      [parseEvent, eventXml(ATTRIBUTES, '{"a":<b/>1}'), { rule: 'unexpected-child', element: task('event') }],
      [
        parseEvent,
        eventXml(`${ATTRIBUTES} media-type='application/json'`),
        { rule: 'unexpected-attribute', element: task('event'), attribute: 'media-type' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });
});

describe('lifecycle messages (#events)', () => {
  it('builds type normal explicitly and parses back', () => {
    const element = buildLifecycleMessage(
      { id: 'progress-1', from: 'weather@agents.example', to: 'planner@agents.example/worker' },
      EVENT,
    );
    const text = serialize(element);
    expect(text).toContain("type='normal'");
    expect(parseLifecycleMessage(parseXml(text))).toEqual({
      message: {
        id: 'progress-1',
        type: 'normal',
        typeAttribute: 'normal',
        from: 'weather@agents.example',
        to: 'planner@agents.example/worker',
      },
      event: EVENT,
    });
  });

  it('accepts type normal by the RFC 6121 default', () => {
    const parsed = parseLifecycleMessage(parseXml(message('', eventXml(ATTRIBUTES))));
    expect(parsed.message.type).toBe('normal');
    expect(parsed.message.typeAttribute).toBeUndefined();
  });

  it('recognizes only agent-task <event/> children as task events', () => {
    expect(isLifecycleMessage(parseXml(message('', eventXml(ATTRIBUTES))))).toBe(true);
    expect(
      isLifecycleMessage(parseXml(message('', "<event xmlns='http://jabber.org/protocol/pubsub#event'/>"))),
    ).toBe(false);
    expect(isLifecycleMessage(parseXml(message('', `<x><event xmlns='${NS_AGENT_TASK}'/></x>`)))).toBe(false);
  });

  it.each(
    titled([
      [
        parseLifecycleMessage,
        message("type='chat'", eventXml(ATTRIBUTES)),
        { rule: 'invalid-attribute', element: 'message', attribute: 'type' },
      ],
      [
        parseLifecycleMessage,
        message("type='nonsense'", eventXml(ATTRIBUTES)),
        { rule: 'invalid-attribute', element: 'message', attribute: 'type' },
      ],
      [
        parseLifecycleMessage,
        message('', eventXml(ATTRIBUTES) + eventXml(ATTRIBUTES)),
        { rule: 'duplicate-child', element: 'message' },
      ],
      [parseLifecycleMessage, message('', '<body>hi</body>'), { rule: 'missing-child', element: 'message' }],
      [
        parseLifecycleMessage,
        message('', eventXml(ATTRIBUTES.replace("revision='2'", "revision='2.0'"))),
        { rule: 'invalid-integer', element: task('event'), attribute: 'revision' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });
});
