/**
 * The conformance runtime behind the real task engine, as the gateway wires it: the manifest
 * provisioned through a fixture world naming `"runtime": "conformance"`, the runtime map from
 * resolveEndpointRuntimes, the store's ledger, and one fake clock shared by the engine and the
 * tools. The events asserted are the ones docs/conformance-tools.md promises.
 */
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dateTimeFromMillis } from '../../../protocol/datetime.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { parseCancelAccepted } from '../../../protocol/stanza/task-cancel.ts';
import { parseInputAccepted } from '../../../protocol/stanza/task-input.ts';
import { parseAccepted } from '../../../protocol/stanza/task-invoke.ts';
import { parseTaskResult } from '../../../protocol/stanza/task-recovery.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import { parseFixtureWorld, resolveEndpointRuntimes } from '../../config/fixture-world.ts';
import { DEFAULT_LIMITS } from '../../config/limits.ts';
import { compileAccessPolicy } from '../../policy/access-policy.ts';
import { provisionWorld } from '../../registration/world-provisioning.ts';
import type { GatewayStore } from '../../store/gateway-store.ts';
import { FIXED_NOW, tempStoreDir, type TempStoreDir } from '../../store/test-support/temp-store.ts';
import type { Outcome } from '../../iq/outcome.ts';
import { TaskEngine } from '../../tasks/task-engine.ts';
import {
  BOB,
  DeliveryLog,
  closeKitValidator,
  engineOptions,
  invokeRequest,
} from '../../tasks/test-support/engine-kit.ts';
import { FakeClock } from '../../tasks/test-support/fake-clock.ts';
import { clockFromTimers } from '../../../protocol/conformance-script/clock.ts';
import { ConformanceRuntime } from './conformance-runtime.ts';
import { DEFAULT_EXPIRY_FAILURE, REFUSAL_FAILURE } from '../../../protocol/conformance-script/failures.ts';

const CONFORMANCE = 'conformance@agents.example';

interface Gateway {
  readonly dir: TempStoreDir;
  readonly store: GatewayStore;
  readonly clock: FakeClock;
  readonly delivered: DeliveryLog;
  readonly engine: TaskEngine;
}

let gateway: Gateway;

beforeEach(async () => {
  const dir = tempStoreDir();
  const clock = new FakeClock(FIXED_NOW);
  const store = dir.open(() => clock.now());
  const world = parseFixtureWorld(
    {
      endpoints: [
        {
          jid: CONFORMANCE,
          versions: [{ file: 'conformance.json' }],
          active: '1.0.0',
          runtime: 'conformance',
        },
      ],
      grants: [{ domain: 'server.example', see: ['*'], invoke: ['*'] }],
    },
    { source: 'test world', baseDir: resolve(REPO_ROOT, 'fixtures', 'manifests') },
  );
  await provisionWorld(store, world, DEFAULT_LIMITS);
  const runtime = new ConformanceRuntime({ ledger: store.ledger, clock: clockFromTimers(clock) });
  const policy = compileAccessPolicy({
    localDomains: ['server.example'],
    localDefaults: { see: false, invoke: false },
    ...store.policy.load(),
  });
  const delivered = new DeliveryLog();
  const engine = TaskEngine.start(
    engineOptions(store, clock, runtime, delivered, {
      runtimes: resolveEndpointRuntimes(world, [runtime]),
      policy: () => policy,
    }),
  );
  gateway = { dir, store, clock, delivered, engine };
});
afterEach(() => {
  gateway.engine.close();
  gateway.dir.remove();
});
afterAll(async () => {
  await closeKitValidator();
});

function payload(outcome: Outcome) {
  if (!outcome.ok) throw new Error(`expected a result, got ${outcome.fault.condition}`);
  return outcome.payload;
}

async function invoke(tool: string, args: JsonValue, deadline?: string): Promise<string> {
  const hash = gateway.store.registrations.version(CONFORMANCE, '1.0.0')?.hash;
  if (hash === undefined) throw new Error('conformance 1.0.0 is not registered');
  const request = invokeRequest(gateway.store, {
    tool,
    apiVersion: '1.0.0',
    hash,
    argumentsJson: JSON.stringify(args),
    ...(deadline === undefined ? {} : { deadline }),
  });
  return parseAccepted(payload(await gateway.engine.invoke(BOB, CONFORMANCE, request))).taskId;
}

/** The event at `revision`, once delivered: its type and parsed payload. */
async function event(taskId: string, revision: number): Promise<{ type: string; payload: JsonValue }> {
  const found = await gateway.delivered.event(taskId, revision);
  return { type: found.type, payload: parseStrictJson(found.json) };
}

async function events(taskId: string, last: number): Promise<string[]> {
  await event(taskId, last);
  return gateway.delivered.eventsOf(taskId).map((e) => `${String(e.revision)} ${e.type}`);
}

describe('the conformance tools behind the task engine', () => {
  it('progress steps, then the scripted completion; the ledger counted once; counter reads it', async () => {
    const taskId = await invoke('script', {
      ledgerKey: 'e2e:once',
      steps: [
        { progress: { percent: 25, stage: 'fetch' } },
        { progress: { percent: 75, message: 'almost' } },
        { complete: { content: [{ type: 'text', text: 'done' }], structuredContent: { value: 'done' } } },
      ],
    });
    expect(await events(taskId, 4)).toEqual(['1 status', '2 progress', '3 progress', '4 completed']);
    expect((await event(taskId, 2)).payload).toEqual({ percent: 25, stage: 'fetch' });
    const completed = {
      result: { content: [{ type: 'text', text: 'done' }], structuredContent: { value: 'done' } },
    };
    expect((await event(taskId, 4)).payload).toEqual(completed);
    const result = parseTaskResult(payload(gateway.engine.taskResult(BOB, CONFORMANCE, { taskId })));
    expect(parseStrictJson(result.json)).toEqual(completed);

    const counted = await invoke('counter', { key: 'e2e:once' });
    expect((await event(counted, 2)).payload).toEqual({
      result: { content: [{ type: 'text', text: '1' }], structuredContent: { key: 'e2e:once', count: 1 } },
    });
  });

  it('script.typed: an invalid structuredContent ends failed, never completed', async () => {
    const taskId = await invoke('script.typed', {
      steps: [{ complete: { structuredContent: { value: 1 } } }],
    });
    expect(await events(taskId, 2)).toEqual(['1 status', '2 failed']);
    expect((await event(taskId, 2)).payload).toEqual({ error: REFUSAL_FAILURE });
  });

  it('an unbounded wait ends cancelled when the caller cancels', async () => {
    const taskId = await invoke('script', { steps: [{ wait: {} }] });
    await event(taskId, 1);
    const accepted = parseCancelAccepted(
      payload(gateway.engine.cancel(BOB, CONFORMANCE, { taskId, expectedRevision: 1 })),
    );
    expect(accepted.revision).toBe(2);
    expect(await events(taskId, 3)).toEqual(['1 status', '2 status', '3 cancelled']);
    expect((await event(taskId, 3)).payload).toEqual({});
  });

  it('proceed, then cancel with a reason: the reason is the cancelled payload', async () => {
    const taskId = await invoke('script', {
      steps: [{ wait: { onCancel: 'proceed' } }, { cancel: { reason: 'stopped as asked' } }],
    });
    await event(taskId, 1);
    payload(gateway.engine.cancel(BOB, CONFORMANCE, { taskId, expectedRevision: 1 }));
    expect((await event(taskId, 3)).payload).toEqual({ reason: 'stopped as asked' });
  });

  it('output after cancelled reaches the engine and is discarded: no event, same revision and result', async () => {
    const key = 'e2e:late-output';
    const taskId = await invoke('script', {
      steps: [
        { wait: { onCancel: 'proceed' } },
        { cancel: { reason: 'stopped as asked' } },
        { progress: { percent: 99, message: 'late' } },
        { input: { question: 'late?', inputSchema: { type: 'object' } } },
        { complete: { structuredContent: { value: 'late' } } },
        { fail: { code: 'org.example:late', message: 'late', retryable: false } },
        { cancel: { reason: 'again' } },
        { increment: { key } },
      ],
    });
    await event(taskId, 1);
    payload(gateway.engine.cancel(BOB, CONFORMANCE, { taskId, expectedRevision: 1 }));
    expect(await events(taskId, 3)).toEqual(['1 status', '2 status', '3 cancelled']);
    // The increment is the script's last step: once it counted, every late attempt was made.
    await vi.waitFor(() => {
      expect(gateway.store.ledger.read(key)).toBe(1);
    });
    expect(gateway.delivered.eventsOf(taskId).map((e) => `${String(e.revision)} ${e.type}`)).toEqual([
      '1 status',
      '2 status',
      '3 cancelled',
    ]);
    expect(gateway.store.tasks.events(taskId, 1)).toHaveLength(3);
    const state = gateway.store.tasks.task(taskId);
    expect({ state: state?.state, revision: state?.revision, pending: state?.pendingInputId }).toEqual({
      state: 'cancelled',
      revision: 3,
      pending: undefined,
    });
    const result = parseTaskResult(payload(gateway.engine.taskResult(BOB, CONFORMANCE, { taskId })));
    expect({ state: result.state, revision: result.revision, payload: parseStrictJson(result.json) }).toEqual(
      {
        state: 'cancelled',
        revision: 3,
        payload: { reason: 'stopped as asked' },
      },
    );
  });

  it('input with expiry on the shared clock: re-issued once, then the expiry failure', async () => {
    const taskId = await invoke('script', {
      steps: [
        {
          input: { question: 'Still there?', inputSchema: { type: 'object' }, expiresInMs: 1000, reissue: 1 },
        },
        { complete: {} },
      ],
    });
    const first = await event(taskId, 2);
    expect(first.type).toBe('input_required');
    expect(first.payload).toMatchObject({
      question: 'Still there?',
      inputSchema: { type: 'object' },
      expiresAt: dateTimeFromMillis(FIXED_NOW + 1000).text,
    });
    gateway.clock.advance(1000);
    const second = await event(taskId, 4);
    expect(second.type).toBe('input_required');
    expect(second.payload).toMatchObject({ expiresAt: dateTimeFromMillis(FIXED_NOW + 2000).text });
    gateway.clock.advance(1000);
    expect(await events(taskId, 6)).toEqual([
      '1 status',
      '2 input_required',
      '3 status',
      '4 input_required',
      '5 status',
      '6 failed',
    ]);
    expect((await event(taskId, 6)).payload).toEqual({ error: DEFAULT_EXPIRY_FAILURE });
  });

  it('two inputs in sequence, echoed back', async () => {
    const taskId = await invoke('script', {
      steps: [
        { input: { question: 'first', inputSchema: { type: 'object' } } },
        { input: { question: 'second', inputSchema: { type: 'integer' } } },
        { complete: { echoInputs: true } },
      ],
    });
    for (const [revision, inputJson] of [
      [2, '{"unit":"C"}'],
      [4, '5'],
    ] as const) {
      const request = (await event(taskId, revision)).payload as { requestId: string };
      const accepted = parseInputAccepted(
        payload(
          await gateway.engine.provideInput(BOB, CONFORMANCE, {
            taskId,
            requestId: request.requestId,
            expectedRevision: revision,
            inputJson,
          }),
        ),
      );
      expect(accepted.revision).toBe(revision + 1);
    }
    expect((await event(taskId, 6)).payload).toEqual({
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }, 5] } },
    });
  });

  it('script.plain: no input without declared support, so the fallback failure', async () => {
    const taskId = await invoke('script.plain', {
      steps: [{ input: { question: 'q', inputSchema: { type: 'object' } } }],
    });
    expect(await events(taskId, 2)).toEqual(['1 status', '2 failed']);
    expect((await event(taskId, 2)).payload).toEqual({ error: REFUSAL_FAILURE });
  });

  it('a wait that ignores cancellation ends at the deadline, failed deadline-expired', async () => {
    const taskId = await invoke(
      'script',
      { ledgerKey: 'e2e:deadline', steps: [{ wait: { onCancel: 'ignore' } }, { complete: {} }] },
      dateTimeFromMillis(FIXED_NOW + 2000).text,
    );
    await event(taskId, 1);
    gateway.clock.advance(2000);
    const failed = await event(taskId, 2);
    expect(failed).toMatchObject({ type: 'failed', payload: { error: { code: 'deadline-expired' } } });
    expect(gateway.store.ledger.read('e2e:deadline')).toBe(1);
  });

  it('script.approval never runs: its ledger key stays at 0', async () => {
    const hash = gateway.store.registrations.version(CONFORMANCE, '1.0.0')?.hash;
    if (hash === undefined) expect.fail('not registered');
    const outcome = await gateway.engine.invoke(
      BOB,
      CONFORMANCE,
      invokeRequest(gateway.store, {
        tool: 'script.approval',
        apiVersion: '1.0.0',
        hash,
        argumentsJson: JSON.stringify({ ledgerKey: 'e2e:approval', steps: [{ complete: {} }] }),
      }),
    );
    if (outcome.ok) {
      const taskId = parseAccepted(outcome.payload).taskId;
      const settled = await gateway.delivered.waitFor(
        (m) => m.lifecycle.event.taskId === taskId && m.lifecycle.event.type === 'failed',
      );
      expect(settled.lifecycle.event.type).toBe('failed');
    }
    expect(gateway.store.ledger.read('e2e:approval')).toBe(0);
  });
});
