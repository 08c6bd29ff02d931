import { describe, expect, it } from 'vitest';

import { buildLifecycleMessage, type TaskEvent } from '../../protocol/stanza/index.ts';
import type { SentStanza } from './call-out-session.ts';
import { checkedTargetEvents, isEventProblem, terminalOf } from './target-events.ts';

const TASK = 'task-0123456789abcdefghijkl';
const CALLER = 'caller@agents.example.com';

function eventId(revision: number): string {
  return `event-${String(revision).padStart(4, '0')}-0123456789abcdef`;
}

function sent(
  revision: number,
  type: TaskEvent['type'],
  json: string,
  to = CALLER,
  id = eventId(revision),
): SentStanza {
  const stanza = buildLifecycleMessage(
    { from: 'conformance@agents.example', to },
    { taskId: TASK, eventId: id, revision, type, json },
  );
  return { stanza, atMs: revision };
}

const RUNNING = '{"state":"running","updatedAt":"2026-07-27T19:14:02Z"}';
const PROGRESS = '{"percent":25,"stage":"interop"}';
const COMPLETED = '{"result":{"content":[],"structuredContent":{"nonce":"n"}}}';

describe("the target's lifecycle messages, read on its component link", () => {
  it('PASSES one valid event per revision from the one after <accepted/>, to the invoking JID', () => {
    const checked = checkedTargetEvents(
      [sent(1, 'status', RUNNING), sent(2, 'progress', PROGRESS), sent(3, 'completed', COMPLETED)],
      TASK,
      CALLER,
      0,
    );
    if (isEventProblem(checked)) throw new Error(checked.message);
    expect(checked.events.map((received) => received.event.revision)).toEqual([1, 2, 3]);
    expect(terminalOf(checked.events)?.event.type).toBe('completed');
  });

  it('PASSES an identical repeat of a revision and events to a resource of the invoking bare JID', () => {
    const checked = checkedTargetEvents(
      [
        sent(1, 'status', RUNNING, `${CALLER}/r1`),
        sent(1, 'status', RUNNING),
        sent(2, 'completed', COMPLETED),
      ],
      TASK,
      CALLER,
      0,
    );
    expect(isEventProblem(checked) ? checked.message : checked.warnings).toEqual([]);
  });

  it.each([
    ['a gap', [sent(1, 'status', RUNNING), sent(3, 'completed', COMPLETED)], 'events.revision-increments'],
    [
      'a different event at a known revision',
      [sent(1, 'status', RUNNING), sent(1, 'progress', PROGRESS, CALLER, eventId(9))],
      'events.replay-identical',
    ],
    [
      'a payload the schema forbids',
      [sent(1, 'progress', '{"percent":150}')],
      'events.progress-percent-range',
    ],
    [
      'a forbidden transition',
      [
        sent(1, 'status', '{"state":"cancelling","updatedAt":"2026-07-27T19:14:02Z"}'),
        sent(2, 'status', RUNNING),
      ],
      'task-states.permitted-transitions',
    ],
  ])('FAILS %s, naming the requirement', (_what, stanzas, requirement) => {
    const checked = checkedTargetEvents(stanzas, TASK, CALLER, 0);
    expect(isEventProblem(checked) ? checked.requirement : 'none').toBe(requirement);
  });

  it('WARNS, never fails, when an event goes to another principal: the invoking JID is a recommendation', () => {
    const checked = checkedTargetEvents(
      [sent(1, 'status', RUNNING, 'someone@example.com'), sent(2, 'completed', COMPLETED)],
      TASK,
      CALLER,
      0,
    );
    if (isEventProblem(checked)) throw new Error(checked.message);
    expect(checked.events).toHaveLength(2);
    expect(checked.warnings).toEqual([
      expect.stringMatching(
        /^task-message-routing\.events-to-full-jid \(SHOULD\): the event at revision 1 went to 'someone@example\.com'/,
      ),
    ]);
  });

  it('counts only events of the task it is asked about', () => {
    const other = buildLifecycleMessage(
      { from: 'conformance@agents.example', to: CALLER },
      {
        taskId: 'task-other-0123456789abcdef',
        eventId: eventId(5),
        revision: 5,
        type: 'status',
        json: RUNNING,
      },
    );
    const checked = checkedTargetEvents(
      [{ stanza: other, atMs: 0 }, sent(1, 'status', RUNNING)],
      TASK,
      CALLER,
      0,
    );
    expect(isEventProblem(checked) ? checked.message : checked.events.length).toBe(1);
  });
});
