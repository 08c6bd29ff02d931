import { describe, expect, it } from 'vitest';

import { CallerDisconnected, WaitTimeout } from './errors.ts';
import { receivedStanza } from './received-stanza.ts';
import { TaskEventQueue, type ReceivedTaskEvent } from './task-event-queue.ts';

const TASK = 'task-AAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'task-BBBBBBBBBBBBBBBBBBBBBBBB';

function valid(
  taskId: string,
  revision: number,
  type: 'status' | 'progress' | 'completed',
): ReceivedTaskEvent {
  const xml = `<message><event xmlns='urn:xmpp:agent-task:0' task-id='${taskId}' revision='${revision}'/></message>`;
  return {
    valid: true,
    taskId,
    event: { taskId, eventId: `event-${String(revision).padStart(22, '0')}`, revision, type, json: '{}' },
    message: { type: 'normal' },
    stanza: receivedStanza(0, 'message', xml, new Map(), 0),
    from: 'echo@agents.example',
  };
}

function malformed(taskId: string | undefined): ReceivedTaskEvent {
  return {
    valid: false,
    taskId,
    problem: new Error('two events'),
    stanza: receivedStanza(0, 'message', '<message/>', new Map(), 0),
    from: 'echo@agents.example',
  };
}

function queue(): TaskEventQueue {
  return new TaskEventQueue(() => 'alice@example.com/laptop', 1000);
}

describe('TaskEventQueue', () => {
  it('hands out a task’s events in order, buffered or awaited, and keeps the others apart', async () => {
    const events = queue();
    events.push(valid(TASK, 1, 'status'));
    events.push(valid(OTHER, 1, 'status'));
    expect(await events.next(TASK)).toMatchObject({ taskId: TASK, event: { revision: 1 } });
    const awaited = events.next(TASK);
    events.push(valid(TASK, 2, 'progress'));
    expect(await awaited).toMatchObject({ taskId: TASK, event: { revision: 2 } });
    expect(events.all(TASK)).toHaveLength(2);
    expect(events.all()).toHaveLength(3);
  });

  it('waitFor skips to the first match; next() continues after it', async () => {
    const events = queue();
    events.push(valid(TASK, 1, 'status'));
    events.push(valid(TASK, 2, 'progress'));
    events.push(valid(TASK, 3, 'progress'));
    const progress = await events.waitFor(TASK, (event) => event.valid && event.event.type === 'progress');
    expect(progress.valid && progress.event.revision).toBe(2);
    const done = events.waitFor(TASK, (event) => event.valid && event.event.type === 'completed');
    events.push(valid(TASK, 4, 'completed'));
    expect(await done.then((event) => event.valid && event.event.revision)).toBe(4);
    expect(events.all(TASK)).toHaveLength(4);
  });

  it('keeps malformed events, under their task when they name one', async () => {
    const events = queue();
    events.push(malformed(TASK));
    events.push(malformed(undefined));
    expect((await events.next(TASK)).valid).toBe(false);
    expect(events.malformed()).toHaveLength(2);
    expect(events.all()).toHaveLength(2);
  });

  it('rejects at the deadline saying what the task did get, and at once after the end', async () => {
    const events = queue();
    events.push(valid(TASK, 1, 'status'));
    await events.next(TASK);
    const late = events.next(TASK, { timeoutMs: 20 });
    await expect(late).rejects.toBeInstanceOf(WaitTimeout);
    await expect(late).rejects.toThrow(
      /next event of task .* within 20 ms; received for this task: status r1/,
    );
    const open = events.next(OTHER);
    events.end(new CallerDisconnected('alice@example.com/laptop', 'connection lost'));
    await expect(open).rejects.toThrow(/connection lost/);
    await expect(events.next(OTHER)).rejects.toBeInstanceOf(CallerDisconnected);
  });
});
