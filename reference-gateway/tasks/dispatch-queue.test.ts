// Dispatch batching (execution.ts DispatchQueue): tasks ready in the same turn get their
// execution records and running events in one transaction (one fsync), each in a savepoint
// of its own, and the runtimes start only after that COMMIT.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { GatewayStore } from '../store/gateway-store.ts';
import { FIXED_NOW, tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import { TaskEngine } from './task-engine.ts';
import { ControlledRuntime } from './test-support/controlled-runtime.ts';
import {
  BOB,
  DeliveryLog,
  WEATHER,
  closeKitValidator,
  engineOptions,
  invokeRequest,
  seedWorld,
  weatherHash,
} from './test-support/engine-kit.ts';
import { FakeClock } from './test-support/fake-clock.ts';

let dir: TempStoreDir | undefined;
let engine: TaskEngine | undefined;

afterEach(() => {
  engine?.close();
  engine = undefined;
  dir?.remove();
  dir = undefined;
});
afterAll(async () => {
  await closeKitValidator();
});

/** Admitted tasks without an execution record, written as admission writes them. */
function admitted(store: GatewayStore, count: number): string[] {
  const at = new Date(FIXED_NOW).toISOString();
  const deadline = new Date(FIXED_NOW + 600_000).toISOString();
  return Array.from({ length: count }, (_, index) => {
    const taskId = `task-dispatch-${String(index).padStart(12, '0')}`;
    store.transaction(() => {
      store.tasks.insertTask({
        taskId,
        handle: `handle-${taskId}`,
        callerJid: BOB.bareJid,
        notifyJid: BOB.fullJid,
        endpointJid: WEATHER,
        tool: 'plain',
        apiVersion: '1.0.0',
        manifestHash: weatherHash(store),
        argumentsJson: '{}',
        deadline,
        state: 'accepted',
        revision: 0,
        created: at,
        updated: at,
        retainUntil: deadline,
        retainUntilMs: FIXED_NOW + 600_000,
      });
      store.registrations.retain(WEATHER, '1.0.0', `task:${taskId}`);
    });
    return taskId;
  });
}

/** Counts the store's outermost transactions (durable or deferred) from now on. */
function countTransactions(store: GatewayStore): { readonly count: () => number } {
  let depth = 0;
  let count = 0;
  const counted =
    <T>(original: (work: () => T) => T) =>
    (work: () => T): T => {
      if (depth === 0) count += 1;
      depth += 1;
      try {
        return original(work);
      } finally {
        depth -= 1;
      }
    };
  Object.assign(store, {
    transaction: counted(store.transaction.bind(store)),
    transactionDeferred: counted(store.transactionDeferred.bind(store)),
  });
  return { count: () => count };
}

describe('DispatchQueue (#invocation: an execution record before the runtime runs)', () => {
  it('dispatches the tasks ready in one turn in one transaction, then starts every runtime', async () => {
    dir = tempStoreDir();
    const clock = new FakeClock(FIXED_NOW);
    const store = dir.open(() => clock.now());
    seedWorld(store);
    const taskIds = admitted(store, 12);
    const transactions = countTransactions(store);
    const runtime = new ControlledRuntime();
    const delivered = new DeliveryLog();
    // Crash recovery resumes all twelve in the same turn.
    engine = TaskEngine.start(engineOptions(store, clock, runtime, delivered));
    expect(engine.recovery).toEqual({ settled: 0, resumed: 12 });
    expect(runtime.executions).toHaveLength(0);
    await runtime.execution(11);
    expect(transactions.count()).toBe(1);
    for (const taskId of taskIds) {
      expect(store.tasks.task(taskId)).toMatchObject({ state: 'running', revision: 1 });
      expect(store.tasks.task(taskId)?.dispatchedAt).toBeDefined();
      expect(delivered.eventsOf(taskId).map((event) => `${event.type}@${String(event.revision)}`)).toEqual([
        'status@1',
      ]);
    }
  });

  it('lets one task whose dispatch fails roll back alone; the others run', async () => {
    dir = tempStoreDir();
    const clock = new FakeClock(FIXED_NOW);
    const store = dir.open(() => clock.now());
    seedWorld(store);
    const [broken, ...others] = admitted(store, 4);
    if (broken === undefined) throw new Error('no task');
    // A store fault for one task only: its execution record cannot be written.
    const markDispatched = store.tasks.markDispatched.bind(store.tasks);
    Object.assign(store.tasks, {
      markDispatched(taskId: string, at: string): void {
        if (taskId === broken) throw new Error('disk says no');
        markDispatched(taskId, at);
      },
    });
    const runtime = new ControlledRuntime();
    const log: string[] = [];
    engine = TaskEngine.start(
      engineOptions(store, clock, runtime, new DeliveryLog(), { log: (line) => log.push(line) }),
    );
    await runtime.execution(2);
    expect(runtime.executions).toHaveLength(3);
    expect(store.tasks.task(broken)).toMatchObject({
      state: 'accepted',
      revision: 0,
      dispatchedAt: undefined,
    });
    for (const taskId of others) expect(store.tasks.task(taskId)?.state).toBe('running');
    expect(log).toEqual(['task dispatch failed (Error)']);
  });

  it('counts the resumed tasks against the capacity from the start (ActiveTasks)', async () => {
    dir = tempStoreDir();
    const clock = new FakeClock(FIXED_NOW);
    const store = dir.open(() => clock.now());
    seedWorld(store);
    admitted(store, 3);
    const runtime = new ControlledRuntime();
    engine = TaskEngine.start(
      engineOptions(store, clock, runtime, new DeliveryLog(), { limits: { maxActiveTasksPerCaller: 3 } }),
    );
    await runtime.execution(2);
    const refused = await engine.invoke(
      BOB,
      WEATHER,
      invokeRequest(store, { tool: 'plain', argumentsJson: '{}' }),
    );
    expect(refused.ok ? 'accepted' : refused.fault.condition).toBe('resource-constraint');
    await runtime.executions[0]?.actions.complete({ content: [] });
    const accepted = await engine.invoke(
      BOB,
      WEATHER,
      invokeRequest(store, { tool: 'plain', argumentsJson: '{}' }),
    );
    expect(accepted.ok).toBe(true);
  });
});
