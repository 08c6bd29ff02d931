import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.ts';
import type { NewTask } from './task-records.ts';
import { FIXED_NOW, tempStoreDir, type TempStoreDir } from './test-support/temp-store.ts';

const CREATED = new Date(FIXED_NOW).toISOString();

function newTask(taskId: string, overrides: Partial<NewTask> = {}): NewTask {
  return {
    taskId,
    handle: `handle-${taskId}`,
    callerJid: 'bob@server.example',
    notifyJid: 'bob@server.example/desk',
    endpointJid: 'weather@agents.example',
    tool: 'forecast.get',
    apiVersion: '1.0.0',
    manifestHash: { algo: 'sha-256', value: 'AAAA' },
    argumentsJson: '{}',
    deadline: undefined,
    state: 'accepted',
    revision: 0,
    created: CREATED,
    updated: CREATED,
    retainUntil: CREATED,
    retainUntilMs: FIXED_NOW,
    ...overrides,
  };
}

let dir: TempStoreDir;
beforeEach(() => {
  dir = tempStoreDir();
});
afterEach(() => {
  dir.remove();
});

describe('task tables (migration 2)', () => {
  it('is the second migration, and migration 1 is unchanged in number', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual([1, 2]);
  });

  it('round-trips a task and keeps a terminal state, revision and result immutable', () => {
    const store = dir.open();
    const tasks = store.tasks;
    tasks.insertTask(newTask('task-aaaaaaaaaaaaaaaaaaaaaaaa'));
    expect(tasks.task('task-aaaaaaaaaaaaaaaaaaaaaaaa')).toMatchObject({ state: 'accepted', revision: 0 });
    const update = { updated: CREATED, pendingInputId: undefined };
    tasks.updateTask('task-aaaaaaaaaaaaaaaaaaaaaaaa', {
      ...update,
      state: 'failed',
      revision: 1,
      resultJson: '{}',
    });
    expect(() => {
      tasks.updateTask('task-aaaaaaaaaaaaaaaaaaaaaaaa', {
        ...update,
        state: 'completed',
        revision: 2,
        resultJson: '{"result":{"content":[]}}',
      });
    }).toThrow(/immutable/);
    expect(tasks.task('task-aaaaaaaaaaaaaaaaaaaaaaaa')).toMatchObject({ state: 'failed', revision: 1 });
  });

  it('refuses a terminal state without a result, and a second pending input request', () => {
    const store = dir.open();
    const tasks = store.tasks;
    tasks.insertTask(newTask('task-bbbbbbbbbbbbbbbbbbbbbbbb'));
    expect(() => {
      tasks.updateTask('task-bbbbbbbbbbbbbbbbbbbbbbbb', {
        state: 'completed',
        revision: 1,
        updated: CREATED,
        pendingInputId: undefined,
        resultJson: undefined,
      });
    }).toThrow(/CHECK/);
    const request = {
      taskId: 'task-bbbbbbbbbbbbbbbbbbbbbbbb',
      payloadJson: '{}',
      expiresAt: undefined,
      issuedRevision: 1,
      acceptedFingerprint: undefined,
      acceptedRevision: undefined,
      acceptedInputJson: undefined,
    };
    tasks.insertInputRequest({ ...request, requestId: 'input-1111111111111111111111' });
    expect(() => {
      tasks.insertInputRequest({ ...request, requestId: 'input-2222222222222222222222' });
    }).toThrow(/UNIQUE/);
  });

  it('purges terminal tasks past retention with their events, and keeps the rest', () => {
    const store = dir.open();
    const tasks = store.tasks;
    tasks.insertTask(newTask('task-cccccccccccccccccccccccc'));
    tasks.insertTask(newTask('task-dddddddddddddddddddddddd'));
    tasks.insertEvent({
      taskId: 'task-cccccccccccccccccccccccc',
      revision: 1,
      eventId: 'evt-eeeeeeeeeeeeeeeeeeeeeeee',
      type: 'failed',
      payloadJson: '{}',
      created: CREATED,
    });
    tasks.updateTask('task-cccccccccccccccccccccccc', {
      state: 'failed',
      revision: 1,
      updated: CREATED,
      pendingInputId: undefined,
      resultJson: '{}',
    });
    expect(tasks.purgeTasks(FIXED_NOW - 1)).toEqual([]);
    expect(tasks.purgeTasks(FIXED_NOW).map((t) => t.taskId)).toEqual(['task-cccccccccccccccccccccccc']);
    expect(tasks.events('task-cccccccccccccccccccccccc')).toEqual([]);
    // Non-terminal: never purged, whatever its retention says.
    expect(tasks.task('task-dddddddddddddddddddddddd')).toBeDefined();
  });
});

describe('tool ledger', () => {
  it('counts durably: the count survives closing and reopening the file', () => {
    const store = dir.open();
    expect(store.ledger.read('side-effect')).toBe(0);
    expect(store.ledger.increment('side-effect')).toBe(1);
    expect(store.ledger.increment('side-effect')).toBe(2);
    expect(store.ledger.increment('other')).toBe(1);
    store.close();
    const reopened = dir.open();
    expect(reopened.ledger.read('side-effect')).toBe(2);
    expect(reopened.ledger.read('other')).toBe(1);
  });
});
