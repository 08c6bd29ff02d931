// #events, #event-json-schemas, #json-encoding: every way a lifecycle message is judged by the
// caller engine: replays ignored, conflicting revisions refused, invalid messages of each
// kind dropped with a reason that never quotes the payload, gaps recognized, history enforced.
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { buildMessage } from '../../protocol/stanza/index.ts';
import { COMPLETED, RUNNING, TARGET, eventMessage, twoEventMessage } from '../test-support/stanzas.ts';
import { intakeMessage, type Intake } from './event-intake.ts';
import { TaskRecord } from './task-record.ts';

const TASK = generateIdentifier('task-');

function freshRecord(): TaskRecord {
  return new TaskRecord(TASK, TARGET, generateIdentifier('req-'), 0);
}

function judge(
  record: TaskRecord,
  message = eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING }),
): Intake {
  return intakeMessage(message, (taskId) => (taskId === record.taskId ? record : undefined));
}

/** Applies an accepted next event to the record, as the tracker does. */
function commit(record: TaskRecord, intake: Intake): void {
  if (intake.kind !== 'next') throw new Error(`expected next, got ${intake.kind}`);
  record.applyEvent(intake.accepted.event.revision, intake.accepted.seen, intake.accepted.nextState);
}

describe('intakeMessage (#events)', () => {
  it('accepts the next revision and moves the state as the transition table says', () => {
    const record = freshRecord();
    const intake = judge(record);
    expect(intake.kind).toBe('next');
    commit(record, intake);
    expect(record.state).toBe('running');
    expect(record.revision).toBe(1);
  });

  it('ignores an identical replay: same event ID, type and canonical payload, whitespace aside', () => {
    const record = freshRecord();
    const eventId = generateIdentifier('evt-');
    commit(
      record,
      judge(record, eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING, eventId })),
    );
    const spaced = RUNNING.replace(',', ' ,\n ');
    const replay = judge(
      record,
      eventMessage({ taskId: TASK, revision: 1, type: 'status', json: spaced, eventId }),
    );
    expect(replay).toEqual({ kind: 'replay', taskId: TASK, revision: 1 });
  });

  it('refuses another event ID or payload at a known revision as a conflict', () => {
    const record = freshRecord();
    const eventId = generateIdentifier('evt-');
    commit(
      record,
      judge(record, eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING, eventId })),
    );
    expect(
      judge(record, eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING })).kind,
    ).toBe('conflict');
    const otherPayload = '{"state":"running","updatedAt":"2026-07-27T19:14:09Z"}';
    const conflict = judge(
      record,
      eventMessage({ taskId: TASK, revision: 1, type: 'status', json: otherPayload, eventId }),
    );
    expect(conflict).toMatchObject({
      kind: 'conflict',
      reason: 'another type or payload at a known revision',
    });
    expect(record.state).toBe('running');
  });

  it.each([
    [
      'two events in one message',
      () =>
        twoEventMessage(
          { taskId: TASK, revision: 1, type: 'status', json: RUNNING },
          { taskId: TASK, revision: 2, type: 'progress', json: '{"percent":5}' },
        ),
    ],
    [
      'type chat',
      () => {
        const message = eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING });
        message.attrs['type'] = 'chat';
        return message;
      },
    ],
    [
      'JSON that does not parse',
      () => eventMessage({ taskId: TASK, revision: 1, type: 'status', json: '{"state":' }),
    ],
    [
      'a payload against the event schema',
      () =>
        eventMessage({
          taskId: TASK,
          revision: 1,
          type: 'status',
          json: '{"state":"paused","updatedAt":"2026-07-27T19:14:02Z"}',
        }),
    ],
    [
      "a payload over the caller's JSON limits",
      () =>
        eventMessage({
          taskId: TASK,
          revision: 1,
          type: 'progress',
          json: `{"message":"${'x'.repeat(300_000)}"}`,
        }),
    ],
    [
      'a sender other than the target',
      () =>
        eventMessage({
          taskId: TASK,
          revision: 1,
          type: 'status',
          json: RUNNING,
          from: 'mallory@agents.example',
        }),
    ],
    ['revision 0', () => eventMessage({ taskId: TASK, revision: 0, type: 'status', json: RUNNING })],
    [
      'a status the transition table forbids after accepted',
      () =>
        eventMessage({
          taskId: TASK,
          revision: 1,
          type: 'status',
          json: '{"state":"input_required","updatedAt":"2026-07-27T19:14:02Z"}',
        }),
    ],
  ])('drops %s as invalid, without quoting the payload', (_label, message) => {
    const record = freshRecord();
    const intake = judge(record, message());
    expect(intake.kind).toBe('invalid');
    if (intake.kind === 'invalid') expect(intake.reason).not.toMatch(/running|paused|xxxx/);
    expect(record.revision).toBe(0);
  });

  it('calls an event for a task it does not retain unknown (held while an admission is open)', () => {
    const intake = intakeMessage(
      eventMessage({ taskId: TASK, revision: 1, type: 'status', json: RUNNING }),
      () => undefined,
    );
    expect(intake.kind).toBe('unknown-task');
  });

  it('drops any event after terminal settlement', () => {
    const record = freshRecord();
    commit(
      record,
      judge(record, eventMessage({ taskId: TASK, revision: 1, type: 'completed', json: COMPLETED })),
    );
    const late = judge(
      record,
      eventMessage({ taskId: TASK, revision: 2, type: 'progress', json: '{"percent":5}' }),
    );
    expect(late).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('already settled') as unknown,
    });
  });

  it('recognizes a revision gap and an older, unseen revision', () => {
    const record = freshRecord();
    expect(
      judge(record, eventMessage({ taskId: TASK, revision: 3, type: 'progress', json: '{"percent":5}' }))
        .kind,
    ).toBe('gap');
    record.recover(4, 'running');
    expect(
      judge(record, eventMessage({ taskId: TASK, revision: 2, type: 'progress', json: '{"percent":5}' }))
        .kind,
    ).toBe('stale');
  });

  it('calls a message without a task event not a lifecycle message (no chat is shown)', () => {
    const chat = buildMessage(
      { from: TARGET, to: 'bob@server.example', type: 'chat' },
      xml('body', {}, 'hello'),
    );
    expect(judge(freshRecord(), chat).kind).toBe('not-lifecycle');
    const foreign = buildMessage({ from: TARGET }, xml('event', { xmlns: 'urn:example:other' }));
    expect(judge(freshRecord(), foreign).kind).toBe('not-lifecycle');
  });
});
