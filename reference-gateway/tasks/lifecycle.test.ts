import { describe, expect, it } from 'vitest';
import { isIdentifier } from '../../protocol/identifiers.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { validateEventPayload } from '../../protocol/events/index.ts';
import { parseAccepted } from '../../protocol/stanza/task-invoke.ts';
import { parseTaskResult, parseTaskState } from '../../protocol/stanza/task-recovery.ts';
import { NS } from '../../protocol/namespaces.ts';
import { FAULT } from '../iq/faults.ts';
import type { Outcome } from '../iq/outcome.ts';
import { ALICE, BOB, BOB_PHONE, VAULT, WEATHER, invokeRequest } from './test-support/engine-kit.ts';
import { useEngineKit } from './test-support/use-engine-kit.ts';

const kit = useEngineKit();

async function admit(options: Parameters<typeof invokeRequest>[1] = {}): Promise<string> {
  const outcome = await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, options));
  if (!outcome.ok) throw new Error(`not admitted: ${outcome.fault.condition}`);
  return parseAccepted(outcome.payload).taskId;
}

function ok(outcome: Outcome) {
  if (!outcome.ok) throw new Error(`expected a result, got ${outcome.fault.condition}`);
  return outcome.payload;
}

describe('lifecycle events (#events, #task-message-routing)', () => {
  it('emits one event per committed revision, gap-free, each with a fresh event ID', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(run.invocation).toMatchObject({
      tool: 'forecast.get',
      apiVersion: '1.0.0',
      arguments: { city: 'Riga' },
    });
    expect(run.invocation.taskHandle).not.toContain(taskId);
    expect(await run.actions.progress({ percent: 50, stage: 'fetch' })).toEqual({ ok: true });
    expect(
      await run.actions.complete(
        { content: [{ type: 'text', text: 'Light rain' }], structuredContent: { summary: 'Light rain' } },
        'Forecast ready',
      ),
    ).toEqual({ ok: true });
    const events = kit.delivered.eventsOf(taskId);
    expect(events.map((e) => [e.revision, e.type])).toEqual([
      [1, 'status'],
      [2, 'progress'],
      [3, 'completed'],
    ]);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);
    for (const event of events) {
      expect(isIdentifier(event.eventId)).toBe(true);
      expect(validateEventPayload(event.type, parseStrictJson(event.json)).ok).toBe(true);
    }
    expect(parseStrictJson(events[0]?.json ?? '')).toEqual({
      state: 'running',
      updatedAt: '2026-07-27T19:00:00.000Z',
    });
    expect(kit.store.tasks.task(taskId)?.revision).toBe(3);
  });

  it('sends normal messages from the endpoint to the invoking full JID, without processing hints', async () => {
    const taskId = await admit();
    await kit.runtime.execution(0);
    const { element, lifecycle } = await kit.delivered.waitFor((m) => m.lifecycle.event.taskId === taskId);
    expect(element.attrs).toMatchObject({
      from: WEATHER,
      to: BOB.fullJid,
      type: 'normal',
      id: lifecycle.event.eventId,
    });
    expect(element.getChildren('no-copy', NS.hints)).toHaveLength(0);
    expect(element.children).toHaveLength(1);
  });

  it('falls back to the bare JID once the invoking route is reported lost', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(kit.engine.routeLost(BOB.fullJid)).toBe(1);
    await run.actions.progress({ percent: 10 });
    const progress = await kit.delivered.event(taskId, 2);
    const message = kit.delivered.messages.find((m) => m.lifecycle.event.eventId === progress.eventId);
    expect(message?.element.attrs['to']).toBe('bob@server.example');
  });

  it('re-sends stored events with the same event ID, revision and payload', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    await run.actions.progress({ message: 'working' });
    const before = kit.delivered.messages.map((m) => m.element.toString());
    expect(kit.engine.resendEvents(taskId)).toBe(2);
    const after = kit.delivered.messages.slice(before.length).map((m) => m.element.toString());
    expect(after).toEqual(before);
  });

  it('refuses progress the tool does not declare, and invalid progress payloads', async () => {
    await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' }));
    const plain = await kit.runtime.execution(0);
    expect(await plain.actions.progress({ percent: 1 })).toEqual({ ok: false, refusal: 'invalid' });
    await admit();
    const forecast = await kit.runtime.execution(1);
    expect(await forecast.actions.progress({ percent: 101 })).toEqual({ ok: false, refusal: 'invalid' });
    expect(await forecast.actions.progress({})).toEqual({ ok: false, refusal: 'invalid' });
  });
});

describe('results (#events, #errors, interp-40)', () => {
  it('validates structuredContent against outputSchema before completing', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(await run.actions.complete({ content: [], structuredContent: { wrong: 1 } })).toEqual({
      ok: false,
      refusal: 'invalid',
    });
    expect(await run.actions.complete({ content: [] })).toEqual({ ok: false, refusal: 'invalid' });
    expect(kit.store.tasks.task(taskId)?.state).toBe('running');
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'ok' } })).toEqual({
      ok: true,
    });
  });

  it('completes an isError result (no structuredContent needed): it is not a failure', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(
      await run.actions.complete({ content: [{ type: 'text', text: 'no such city' }], isError: true }),
    ).toEqual({
      ok: true,
    });
    expect(kit.store.tasks.task(taskId)?.state).toBe('completed');
  });

  it('accepts reserved and namespace-qualified failure codes only', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(await run.actions.fail({ code: 'quota', message: 'x', retryable: false })).toEqual({
      ok: false,
      refusal: 'invalid',
    });
    expect(
      await run.actions.fail({ code: 'com.example.weather:quota', message: 'Over quota', retryable: true }),
    ).toEqual({
      ok: true,
    });
    expect(kit.store.tasks.task(taskId)?.state).toBe('failed');
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'late' } })).toEqual({
      ok: false,
      refusal: 'settled',
    });
  });

  it('turns a runtime exception into a fixed retryable failure without its message', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    expect(run.actions.settled.aborted).toBe(false);
    run.throw(new Error('secret-token-123 at Object.<anonymous> (/srv/tool.js:1:1)'));
    const failed = await kit.delivered.event(taskId, 2);
    expect(failed.type).toBe('failed');
    expect(failed.json).not.toContain('secret-token-123');
    expect(parseStrictJson(failed.json)).toEqual({
      error: {
        code: 'internal-error',
        message: 'The tool stopped without producing a result.',
        retryable: true,
      },
    });
    expect(run.actions.settled.aborted).toBe(true);
  });

  it('settles a runtime that returns without a result as failed', async () => {
    const taskId = await admit();
    (await kit.runtime.execution(0)).end();
    expect((await kit.delivered.event(taskId, 2)).type).toBe('failed');
  });
});

describe('recovery (#task-recovery, interp-04, interp-39)', () => {
  it('returns every required attribute, the effective deadline and the manifest hash', async () => {
    const taskId = await admit({ deadline: '2026-07-27T21:15:00.123456+02:00' });
    await kit.runtime.execution(0);
    const state = parseTaskState(ok(kit.engine.taskState(BOB_PHONE, WEATHER, { taskId })));
    expect(state).toMatchObject({
      taskId,
      endpoint: WEATHER,
      state: 'running',
      revision: 1,
      apiVersion: '1.0.0',
      resultAvailable: false,
      manifestHash: kit.store.registrations.version(WEATHER, '1.0.0')?.hash,
    });
    expect(state.deadline?.text).toBe('2026-07-27T21:15:00.123456+02:00');
    expect(state.created.text).toBe('2026-07-27T19:00:00.000Z');
    expect(state.pendingInputJson).toBeUndefined();
  });

  it('shows the enforced default deadline, clamped by the tool maximum', async () => {
    // Looked up by task ID: a quick task may already have settled, and it keeps its deadline.
    const defaulted = await admit({ tool: 'quick', argumentsJson: '{}' });
    const clamped = await admit({ tool: 'quick', argumentsJson: '{}', deadline: '2026-07-28T00:00:00Z' });
    const promised = [defaulted, clamped].map((taskId) => {
      const task = kit.store.tasks.task(taskId);
      return [task?.deadline, task?.retainUntil];
    });
    expect(promised).toEqual([
      ['2026-07-27T19:00:10.000Z', '2026-07-28T19:00:10.000Z'],
      ['2026-07-27T19:01:00.000Z', '2026-07-28T19:01:00.000Z'],
    ]);
  });

  it('answers task-result only for terminal tasks, with the terminal event payload', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    const result = kit.engine.taskResult(BOB, WEATHER, { taskId });
    expect(result.ok ? 'result' : result.fault).toBe(FAULT.unexpectedRequest);
    await run.actions.complete({ content: [], structuredContent: { summary: 'ok' } }, 'done');
    const completed = await kit.delivered.event(taskId, 2);
    const retained = parseTaskResult(ok(kit.engine.taskResult(BOB_PHONE, WEATHER, { taskId })));
    expect(retained).toMatchObject({ taskId, state: 'completed', revision: 2 });
    expect(retained.json).toBe(completed.json);
    expect(parseTaskState(ok(kit.engine.taskState(BOB, WEATHER, { taskId }))).resultAvailable).toBe(true);
  });

  it('keeps failure details recoverable through task-result', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    await run.actions.fail({ code: 'unavailable', message: 'Provider down', retryable: true });
    const retained = parseTaskResult(ok(kit.engine.taskResult(BOB, WEATHER, { taskId })));
    expect(parseStrictJson(retained.json)).toEqual({
      error: { code: 'unavailable', message: 'Provider down', retryable: true },
    });
  });

  it('answers one identical item-not-found for nonexistent, other-caller, other-endpoint and expired tasks', async () => {
    const taskId = await admit();
    const run = await kit.runtime.execution(0);
    const faults = [
      kit.engine.taskState(BOB, WEATHER, { taskId: 'task-doesnotexist00000000000' }),
      kit.engine.taskState(ALICE, WEATHER, { taskId }),
      kit.engine.taskState(BOB, VAULT, { taskId }),
      kit.engine.taskResult(ALICE, WEATHER, { taskId }),
      kit.engine.cancel(ALICE, WEATHER, { taskId, expectedRevision: 1 }),
    ];
    await run.actions.complete({ content: [], structuredContent: { summary: 'ok' } });
    kit.clock.jump(60 * 60 * 1000 + 86_400_000);
    faults.push(
      kit.engine.taskState(BOB, WEATHER, { taskId }),
      kit.engine.taskResult(BOB, WEATHER, { taskId }),
    );
    for (const fault of faults) expect(fault.ok ? 'result' : fault.fault).toBe(FAULT.itemNotFound);
  });

  it('keeps answering after the caller loses visibility and invocation permission', async () => {
    const taskId = await admit();
    await kit.runtime.execution(0);
    kit.engine.close();
    const denied = kit.restart({
      policy: () => ({ canSee: () => false, canInvoke: () => false, isLocal: () => false }),
    });
    // The restart settled the interrupted task; it is still Bob's to read.
    expect(parseTaskState(ok(denied.taskState(BOB, WEATHER, { taskId }))).state).toBe('failed');
    denied.close();
  });
});
