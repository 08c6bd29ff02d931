import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { parseCancelAccepted } from '../../protocol/stanza/task-cancel.ts';
import { parseInputAccepted, type ProvideInput } from '../../protocol/stanza/task-input.ts';
import { parseAccepted } from '../../protocol/stanza/task-invoke.ts';
import { parseTaskState } from '../../protocol/stanza/task-recovery.ts';
import type { InputOutcome } from '../runtime/tool-runtime.ts';
import { FAULT } from '../iq/faults.ts';
import type { Outcome } from '../iq/outcome.ts';
import { BOB, BOB_PHONE, WEATHER, invokeRequest } from './test-support/engine-kit.ts';
import { useEngineKit } from './test-support/use-engine-kit.ts';
import type { Execution } from './test-support/controlled-runtime.ts';

const kit = useEngineKit();

async function running(tool = 'forecast.get'): Promise<{ taskId: string; run: Execution }> {
  const argumentsJson = tool === 'forecast.get' ? '{"city":"Riga"}' : '{}';
  const outcome = await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { tool, argumentsJson }));
  if (!outcome.ok) throw new Error(outcome.fault.condition);
  const taskId = parseAccepted(outcome.payload).taskId;
  const run = await kit.runtime.execution(kit.runtime.executions.length);
  return { taskId, run };
}

const faultOf = (outcome: Outcome): unknown => (outcome.ok ? 'result' : outcome.fault);

function payload(outcome: Outcome) {
  if (!outcome.ok) throw new Error(`expected a result, got ${outcome.fault.condition}`);
  return outcome.payload;
}

const UNIT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { unit: { enum: ['C', 'F'] } },
  required: ['unit'],
};

describe('cancellation (#cancellation, interp-33, interp-38)', () => {
  it('moves to cancelling at revision N with its status event at N, and aborts the signal', async () => {
    const { taskId, run } = await running();
    const accepted = parseCancelAccepted(
      payload(kit.engine.cancel(BOB_PHONE, WEATHER, { taskId, expectedRevision: 1 })),
    );
    expect(accepted).toEqual({ taskId, revision: 2 });
    const status = await kit.delivered.event(taskId, 2);
    expect(parseStrictJson(status.json)).toMatchObject({ state: 'cancelling' });
    expect(run.actions.cancellation.aborted).toBe(true);
    // The tool honours it by returning: the engine confirms cancelled.
    run.end();
    expect((await kit.delivered.event(taskId, 3)).type).toBe('cancelled');
  });

  it('lets the tool confirm the cancellation with a reason (TaskActions.confirmCancellation)', async () => {
    const { taskId, run } = await running();
    payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }));
    expect(await run.actions.confirmCancellation?.('x'.repeat(4097))).toEqual({
      ok: false,
      refusal: 'invalid',
    });
    expect(await run.actions.confirmCancellation?.('stopped at the caller’s request')).toEqual({ ok: true });
    expect(parseStrictJson((await kit.delivered.event(taskId, 3)).json)).toEqual({
      reason: 'stopped at the caller’s request',
    });
    expect(run.actions.settled.aborted).toBe(true);
    run.end();
    expect(kit.store.tasks.task(taskId)).toMatchObject({ state: 'cancelled', revision: 3 });
  });

  it('is advisory: the tool may still complete after cancelling', async () => {
    const { taskId, run } = await running();
    payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }));
    expect(
      await run.actions.complete({ content: [], structuredContent: { summary: 'done anyway' } }),
    ).toEqual({
      ok: true,
    });
    expect(kit.store.tasks.task(taskId)?.state).toBe('completed');
  });

  it('discards output after terminal cancelled', async () => {
    const { taskId, run } = await running();
    payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }));
    run.end();
    await kit.delivered.event(taskId, 3);
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'late' } })).toEqual({
      ok: false,
      refusal: 'settled',
    });
    expect(await run.actions.progress({ percent: 99 })).toEqual({ ok: false, refusal: 'settled' });
    expect(kit.store.tasks.task(taskId)).toMatchObject({ state: 'cancelled', revision: 3 });
  });

  it('recognizes an identical replay before every other check, also after settlement', async () => {
    const { taskId, run } = await running();
    const request = { taskId, expectedRevision: 1, reason: 'Trip\ncancelled' };
    const first = payload(kit.engine.cancel(BOB, WEATHER, request)).toString();
    run.end();
    await kit.delivered.event(taskId, 3);
    expect(payload(kit.engine.cancel(BOB_PHONE, WEATHER, request)).toString()).toBe(first);
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { ...request, reason: 'Trip cancelled' }))).toBe(
      FAULT.conflict,
    );
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }))).toBe(FAULT.conflict);
    expect(kit.delivered.eventsOf(taskId)).toHaveLength(3);
  });

  it('distinguishes an absent reason from an empty one', async () => {
    const { taskId } = await running();
    payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }));
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1, reason: '' }))).toBe(
      FAULT.conflict,
    );
  });

  it('answers conflict for a stale expected revision and after terminal settlement without acceptance', async () => {
    const { taskId, run } = await running();
    await run.actions.progress({ percent: 5 });
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }))).toBe(FAULT.conflict);
    await run.actions.complete({ content: [], structuredContent: { summary: 'x' } });
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 3 }))).toBe(FAULT.conflict);
  });

  it('answers service-unavailable for a tool without declared cancellation support', async () => {
    const { taskId } = await running('plain');
    expect(faultOf(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 1 }))).toBe(
      FAULT.serviceUnavailable,
    );
  });

  it('settles a task cancelled before dispatch without ever running it', async () => {
    const outcome = await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store));
    const taskId = parseAccepted(payload(outcome)).taskId;
    // Dispatch runs on a later turn: the cancellation commits first.
    expect(
      parseCancelAccepted(payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 0 }))),
    ).toEqual({
      taskId,
      revision: 1,
    });
    expect((await kit.delivered.event(taskId, 2)).type).toBe('cancelled');
    expect(kit.runtime.executions).toHaveLength(0);
  });
});

describe('interactive input (#interactive-input, interp-33–interp-37)', () => {
  async function pending(expiresAt?: string) {
    const { taskId, run } = await running();
    const outcome = run.actions.requestInput({
      question: 'Which unit?',
      inputSchema: UNIT_SCHEMA,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
    const event = await kit.delivered.event(taskId, 2);
    const requestId = (parseStrictJson(event.json) as { requestId: string }).requestId;
    return { taskId, run, outcome, requestId, eventJson: event.json };
  }

  const answer = (
    taskId: string,
    requestId: string,
    inputJson: string,
    expectedRevision = 2,
  ): ProvideInput => ({
    taskId,
    requestId,
    expectedRevision,
    inputJson,
  });

  it('commits input_required with the complete request, which task-state repeats', async () => {
    const { taskId, eventJson, requestId } = await pending('2026-07-27T19:05:00Z');
    expect(parseStrictJson(eventJson)).toEqual({
      requestId,
      question: 'Which unit?',
      inputSchema: UNIT_SCHEMA,
      createdAt: '2026-07-27T19:00:00.000Z',
      expiresAt: '2026-07-27T19:05:00Z',
    });
    const state = parseTaskState(payload(kit.engine.taskState(BOB, WEATHER, { taskId })));
    expect(state.state).toBe('input_required');
    expect(state.pendingInputJson).toBe(eventJson);
  });

  it('accepts valid input at revision N (status running at N) and hands it to the tool once', async () => {
    const { taskId, outcome, requestId } = await pending();
    const reply = await kit.engine.provideInput(
      BOB_PHONE,
      WEATHER,
      answer(taskId, requestId, ' {"unit" : "C"} '),
    );
    expect(parseInputAccepted(payload(reply))).toEqual({ taskId, revision: 3 });
    expect(await outcome).toEqual({ kind: 'answered', input: { unit: 'C' } });
    expect(parseStrictJson((await kit.delivered.event(taskId, 3)).json)).toMatchObject({ state: 'running' });
    // Identical replay (other spelling, other resource), also after settlement.
    const run = kit.runtime.executions[0];
    await run?.actions.complete({ content: [], structuredContent: { summary: 'ok' } });
    const replay = await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"C"}'));
    expect(payload(replay).toString()).toBe(payload(reply).toString());
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"F"}'))),
    ).toBe(FAULT.conflict);
    expect(kit.delivered.eventsOf(taskId)).toHaveLength(4);
  });

  it('answers not-acceptable for schema-invalid input, conflict for a stale revision, item-not-found for unknown IDs', async () => {
    const { taskId, requestId } = await pending();
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"K"}'))),
    ).toBe(FAULT.notAcceptable);
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"C"}', 1))),
    ).toBe(FAULT.conflict);
    expect(
      faultOf(
        await kit.engine.provideInput(BOB, WEATHER, answer(taskId, 'input-unknown000000000000000', '{}')),
      ),
    ).toBe(FAULT.itemNotFound);
    expect(kit.store.tasks.task(taskId)?.state).toBe('input_required');
  });

  it('allows one pending request at a time', async () => {
    const { run } = await pending();
    expect(await run.actions.requestInput({ question: 'Again?', inputSchema: UNIT_SCHEMA })).toBe(
      'input-pending',
    );
  });

  it('expires at expiresAt: the task returns to running, the tool hears it, a late answer gets conflict', async () => {
    const { taskId, outcome, requestId } = await pending('2026-07-27T19:00:30Z');
    kit.clock.advance(29_999);
    expect(kit.store.tasks.task(taskId)?.state).toBe('input_required');
    kit.clock.advance(1);
    expect(await outcome).toEqual({ kind: 'expired' });
    expect(kit.store.tasks.task(taskId)).toMatchObject({ state: 'running', revision: 3 });
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"C"}', 3))),
    ).toBe(FAULT.conflict);
    // The tool may ask again with a fresh request ID.
    const run = kit.runtime.executions[0];
    void run?.actions.requestInput({ question: 'Unit, please?', inputSchema: UNIT_SCHEMA });
    const reissued = parseStrictJson((await kit.delivered.event(taskId, 4)).json) as { requestId: string };
    expect(reissued.requestId).not.toBe(requestId);
  });

  it('compares expiry at the commit boundary even when the timer is late', async () => {
    const { taskId, outcome, requestId } = await pending('2026-07-27T19:00:30.0005Z');
    kit.clock.jump(30_001);
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"C"}'))),
    ).toBe(FAULT.conflict);
    expect(await outcome).toEqual({ kind: 'expired' });
    expect(kit.store.tasks.inputRequest(taskId, requestId)?.status).toBe('expired');
  });

  it('supersedes the pending request when a cancellation commits first', async () => {
    const { taskId, outcome, requestId } = await pending();
    payload(kit.engine.cancel(BOB, WEATHER, { taskId, expectedRevision: 2 }));
    const ended: InputOutcome | string = await outcome;
    expect(ended).toEqual({ kind: 'settled' });
    expect(
      faultOf(await kit.engine.provideInput(BOB, WEATHER, answer(taskId, requestId, '{"unit":"C"}', 3))),
    ).toBe(FAULT.conflict);
    expect(
      parseTaskState(payload(kit.engine.taskState(BOB, WEATHER, { taskId }))).pendingInputJson,
    ).toBeUndefined();
  });

  it('refuses input requests from a tool that does not declare input support', async () => {
    const { run } = await running('plain');
    expect(await run.actions.requestInput({ question: 'x', inputSchema: UNIT_SCHEMA })).toBe('invalid');
  });
});

describe('deadlines (#cancellation, interp-30)', () => {
  it('settles failed/deadline-expired when the timer fires', async () => {
    const outcome = await kit.engine.invoke(
      BOB,
      WEATHER,
      invokeRequest(kit.store, { deadline: '2026-07-27T19:00:05Z' }),
    );
    const taskId = parseAccepted(payload(outcome)).taskId;
    const run = await kit.runtime.execution(0);
    kit.clock.advance(5_000);
    const failed = await kit.delivered.event(taskId, 2);
    expect(parseStrictJson(failed.json)).toMatchObject({
      error: { code: 'deadline-expired', retryable: false },
    });
    expect(run.actions.settled.aborted).toBe(true);
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'x' } })).toEqual({
      ok: false,
      refusal: 'settled',
    });
  });

  it('settles at the commit boundary when the timer is late, instead of the mutation', async () => {
    const outcome = await kit.engine.invoke(
      BOB,
      WEATHER,
      invokeRequest(kit.store, { deadline: '2026-07-27T19:00:05.000000001Z' }),
    );
    const taskId = parseAccepted(payload(outcome)).taskId;
    const run = await kit.runtime.execution(0);
    kit.clock.jump(5_000);
    // 19:00:05.000 is still before the deadline's last digit.
    expect(await run.actions.progress({ percent: 10 })).toEqual({ ok: true });
    kit.clock.jump(1);
    expect(await run.actions.complete({ content: [], structuredContent: { summary: 'x' } })).toEqual({
      ok: false,
      refusal: 'deadline-expired',
    });
    expect(kit.store.tasks.task(taskId)).toMatchObject({ state: 'failed', revision: 3 });
  });

  it('checks the deadline before initial dispatch: no running state, the tool never runs', async () => {
    const outcome = await kit.engine.invoke(
      BOB,
      WEATHER,
      invokeRequest(kit.store, { deadline: '2026-07-27T19:00:00.001Z' }),
    );
    const taskId = parseAccepted(payload(outcome)).taskId;
    kit.clock.jump(1);
    const failed = await kit.delivered.event(taskId, 1);
    expect(failed.type).toBe('failed');
    expect(kit.runtime.executions).toHaveLength(0);
  });
});
