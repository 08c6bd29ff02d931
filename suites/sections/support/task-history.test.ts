// untilRevisionsArrived waits on every process's event queue; a process whose connection ended
// rejects each wait at once, and a loop over settled promises never yields to the timers and
// sockets it is waiting for, so it must stop listening there instead of spinning to its deadline.
import { describe, expect, it } from 'vitest';

import { CallerDisconnected, TaskEventQueue, type Caller } from '../../../harness/driver/index.ts';
import { untilRevisionsArrived, type RaceProcess } from './task-history.ts';

function processWith(events: TaskEventQueue, name: string): RaceProcess {
  return { name, caller: { events } as unknown as Caller };
}

describe('untilRevisionsArrived', () => {
  it('gives up at once when every process has lost its connection, without spinning to the deadline', async () => {
    const ended = new TaskEventQueue(() => 'gone@example.com', 1_000);
    ended.end(new CallerDisconnected('gone@example.com', 'the stream closed'));
    // A timer must still fire while it waits: a loop that never yields would starve it.
    let timerFired = false;
    setTimeout(() => (timerFired = true), 0);
    const started = performance.now();
    await untilRevisionsArrived('task-x', [processWith(ended, 'gone')], 3, 5_000);
    // Without the fix it spins until the 5 s deadline.
    expect(performance.now() - started).toBeLessThan(4_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(timerFired).toBe(true);
  });

  it('keeps waiting on a live process when another has ended, until its deadline', async () => {
    const ended = new TaskEventQueue(() => 'gone@example.com', 1_000);
    ended.end(new CallerDisconnected('gone@example.com', 'the stream closed'));
    const live = new TaskEventQueue(() => 'live@example.com', 1_000);
    const started = performance.now();
    await untilRevisionsArrived('task-x', [processWith(ended, 'gone'), processWith(live, 'live')], 1, 200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
