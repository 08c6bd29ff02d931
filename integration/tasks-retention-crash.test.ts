import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { parseAccepted } from '../protocol/stanza/task-invoke.ts';
import { parseTaskResult, parseTaskState } from '../protocol/stanza/task-recovery.ts';
import { startTsProcess } from '../harness/federation/test-support/run-ts-process.ts';
import type { ManagedProcess } from '../harness/faults/managed-process.ts';
import { Registry } from '../reference-gateway/registration/registry.ts';
import { GatewayStore } from '../reference-gateway/store/gateway-store.ts';
import { tempStoreDir, type TempStoreDir } from '../reference-gateway/store/test-support/temp-store.ts';
import type { ToolRuntime } from '../reference-gateway/runtime/tool-runtime.ts';
import { TaskEngine } from '../reference-gateway/tasks/task-engine.ts';
import { FAULT } from '../reference-gateway/iq/faults.ts';
import type { Outcome } from '../reference-gateway/iq/outcome.ts';
import {
  BOB,
  DeliveryLog,
  POLICY,
  WEATHER,
  closeKitValidator,
  engineOptions,
  invokeRequest,
  kitValidator,
} from '../reference-gateway/tasks/test-support/engine-kit.ts';
import { useEngineKit } from '../reference-gateway/tasks/test-support/use-engine-kit.ts';
import { ControlledRuntime } from '../reference-gateway/tasks/test-support/controlled-runtime.ts';
import { FakeClock } from '../reference-gateway/tasks/test-support/fake-clock.ts';

function payload(outcome: Outcome) {
  if (!outcome.ok) throw new Error(`expected a result, got ${outcome.fault.condition}`);
  return outcome.payload;
}
const faultOf = (outcome: Outcome): unknown => (outcome.ok ? 'result' : outcome.fault);

afterAll(async () => {
  await closeKitValidator();
});

describe('retention and purge (#events, #invocation, #registration-flow)', () => {
  const kit = useEngineKit({ replayWindowSeconds: 3 * 86_400 });

  it('keeps state and result until retain-until, then purges them and releases the version', async () => {
    const request = invokeRequest(kit.store, { apiVersion: '1.0.0' });
    const accepted = parseAccepted(payload(await kit.engine.invoke(BOB, WEATHER, request)));
    const run = await kit.runtime.execution(0);
    await run.actions.complete({ content: [], structuredContent: { summary: 'ok' } });
    const registry = new Registry(kit.store);
    kit.store.registrations.setActiveVersion(WEATHER, '0.9.0');
    // A retained version cannot be removed while the task or its result holds it.
    expect(registry.removeVersion(WEATHER, '1.0.0')).toMatchObject({ ok: false });
    const status = registry.status(WEATHER);
    const versions = status.ok ? status.value.versions : [];
    expect(versions.find((v) => v.id === '1.0.0')?.removable).toBe(false);

    const retainUntilMs = Date.parse(accepted.retainUntil.text);
    kit.clock.jump(retainUntilMs - kit.clock.now() - 1);
    expect(kit.engine.purge()).toEqual({ tasks: 0, replays: 0 });
    expect(
      parseTaskResult(payload(kit.engine.taskResult(BOB, WEATHER, { taskId: accepted.taskId }))).state,
    ).toBe('completed');
    kit.clock.jump(1);
    expect(kit.engine.purge()).toEqual({ tasks: 1, replays: 0 });
    expect(faultOf(kit.engine.taskState(BOB, WEATHER, { taskId: accepted.taskId }))).toBe(FAULT.itemNotFound);
    expect(kit.store.tasks.events(accepted.taskId)).toEqual([]);
    expect(kit.store.registrations.isRetained(WEATHER, '1.0.0')).toBe(false);

    // The replay window (3 days) outlasts retention: the request ID still names the old task.
    expect(parseAccepted(payload(await kit.engine.invoke(BOB, WEATHER, request))).taskId).toBe(
      accepted.taskId,
    );
    // With the reference released, the administrator may now remove the version.
    expect(registry.removeVersion(WEATHER, '1.0.0')).toMatchObject({ ok: true });
    kit.clock.jump(3 * 86_400_000);
    expect(kit.engine.purge().replays).toBe(1);
  });

  it('never purges a non-terminal task or its replay record', async () => {
    const accepted = parseAccepted(payload(await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store))));
    await kit.runtime.execution(0);
    kit.clock.jump(10 * 86_400_000);
    expect(kit.engine.purge()).toEqual({ tasks: 0, replays: 0 });
    expect(payload(kit.engine.taskState(BOB, WEATHER, { taskId: accepted.taskId }))).toBeDefined();
  });
});

describe('crash safety with a real database file (#invocation, spec-positions I)', () => {
  let dir: TempStoreDir;
  beforeEach(() => {
    dir = tempStoreDir();
  });
  afterEach(() => {
    dir.remove();
  });

  function countingRuntime(store: GatewayStore): ControlledRuntime & ToolRuntime {
    const runtime = new ControlledRuntime();
    const execute = runtime.execute.bind(runtime);
    runtime.execute = (invocation, actions) => {
      store.ledger.increment('side-effect');
      return execute(invocation, actions);
    };
    return runtime;
  }

  it('settles a dispatched task after the store closed mid-run, and never runs it again', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 27, 19));
    const first = dir.open(() => clock.now());
    const { seedWorld } = await import('../reference-gateway/tasks/test-support/engine-kit.ts');
    seedWorld(first);
    const runtime = countingRuntime(first);
    const engine = TaskEngine.start(engineOptions(first, clock, runtime, new DeliveryLog()));
    const request = invokeRequest(first);
    const accepted = parseAccepted(payload(await engine.invoke(BOB, WEATHER, request)));
    const run = await runtime.execution(0);
    // Kill: no settlement, no orderly shutdown of the tool.
    engine.close();
    first.close();
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'x' } })).toEqual({
      ok: false,
      refusal: 'settled',
    });

    const second = dir.open(() => clock.now());
    const delivered = new DeliveryLog();
    const secondRuntime = countingRuntime(second);
    const restarted = TaskEngine.start(engineOptions(second, clock, secondRuntime, delivered));
    expect(restarted.recovery).toEqual({ settled: 1, resumed: 0 });
    const failed = await delivered.event(accepted.taskId, 2);
    expect(parseStrictJson(failed.json)).toEqual({
      error: {
        code: 'org.agentconf.gateway:execution-interrupted',
        message: 'The gateway restarted while the tool was running; the outcome is unknown.',
        retryable: true,
      },
    });
    expect(parseAccepted(payload(await restarted.invoke(BOB, WEATHER, request))).taskId).toBe(
      accepted.taskId,
    );
    expect(second.ledger.read('side-effect')).toBe(1);
    expect(secondRuntime.executions).toHaveLength(0);
    restarted.close();
  });

  it('resumes an admitted task that was never dispatched, exactly once', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 27, 19));
    const first = dir.open(() => clock.now());
    const { seedWorld } = await import('../reference-gateway/tasks/test-support/engine-kit.ts');
    seedWorld(first);
    const engine = TaskEngine.start(engineOptions(first, clock, countingRuntime(first), new DeliveryLog()));
    const accepted = parseAccepted(payload(await engine.invoke(BOB, WEATHER, invokeRequest(first))));
    // Closed before the dispatch turn: the task is admitted but has no execution record.
    engine.close();
    first.close();

    const second = dir.open(() => clock.now());
    expect(second.tasks.task(accepted.taskId)?.dispatchedAt).toBeUndefined();
    const runtime = countingRuntime(second);
    const delivered = new DeliveryLog();
    const restarted = TaskEngine.start(engineOptions(second, clock, runtime, delivered));
    expect(restarted.recovery).toEqual({ settled: 0, resumed: 1 });
    const run = await runtime.execution(0);
    await run.actions.complete({ content: [], structuredContent: { summary: 'resumed' } });
    expect(
      parseTaskState(payload(restarted.taskState(BOB, WEATHER, { taskId: accepted.taskId }))).state,
    ).toBe('completed');
    expect(second.ledger.read('side-effect')).toBe(1);
    restarted.close();
  });

  it('survives SIGKILL of the gateway process: the task is answerable, replays match, it ran once', async () => {
    const requestId = 'req-sigkill-0000000000000000000';
    let child: ManagedProcess | undefined;
    try {
      child = await startTsProcess(
        'crash-child',
        new URL('../reference-gateway/tasks/test-support/crash-child.ts', import.meta.url),
        [dir.path, requestId],
      );
      const admitted = await child.waitForOutput(/ADMITTED (\S+)/, 30_000);
      await child.waitForOutput('EXECUTING 1', 30_000);
      const status = await child.kill9();
      expect(status.signal).toBe('SIGKILL');
      const taskId = /ADMITTED (\S+)/.exec(admitted)?.[1] ?? '';

      const store = dir.open(() => Date.now());
      const runtime = countingRuntime(store);
      const delivered = new DeliveryLog();
      const engine = TaskEngine.start({
        store,
        policy: () => POLICY,
        runtimes: new Map([[WEATHER, runtime]]),
        deliver: delivered.deliver,
        replayWindowSeconds: 600,
        validator: kitValidator(),
      });
      expect(engine.recovery).toEqual({ settled: 1, resumed: 0 });
      const state = parseTaskState(payload(engine.taskState(BOB, WEATHER, { taskId })));
      expect(state).toMatchObject({ taskId, state: 'failed', revision: 2 });
      const replay = await engine.invoke(BOB, WEATHER, invokeRequest(store, { requestId }));
      expect(parseAccepted(payload(replay)).taskId).toBe(taskId);
      expect(store.ledger.read('crash-side-effect')).toBe(1);
      expect(runtime.executions).toHaveLength(0);
      engine.close();
    } finally {
      await child?.kill9();
    }
  }, 60_000);
});
