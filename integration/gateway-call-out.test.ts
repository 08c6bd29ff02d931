/**
 * docs/caller.md, "A gateway whose own agents call out": the reference gateway with call-out
 * enabled (gateway config `callOut`) calls the harness's fake target on target.example as a
 * caller. A local account invokes `conformance.call-out` at caller@agents.example; the gateway
 * invokes the fake target's tool from caller@agents.example, and the conformance task completes
 * with `{state, taskId, result}` once the remote task settled. Cancelling the conformance task
 * sends <cancel/> to the remote task; a remote input request becomes the conformance task's, and
 * its answer goes back; a target the gateway cannot reach fails the conformance task
 * `unavailable`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTarget, type FakeTarget } from '../harness/fake-target/index.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/json/json-value.ts';
import {
  CALL_OUT_TOOL,
  CALL_OUT_VERSION,
  callOutManifest,
} from '../reference-gateway/runtime/call-out/index.ts';
import { generateIdentifier } from '../protocol/identifiers.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import { parseProvideInput } from '../protocol/stanza/index.ts';
import { BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  checkedEvent,
  eventsUntilTerminal,
  invokeAccepted,
  invokeOf,
  sendCancel,
  sendInput,
  taskState,
} from './test-support/tasks.ts';
import { FORECAST, WEATHER, WEATHER_WORLD } from './test-support/weather-target.ts';

const CALLER_ENDPOINT = 'caller@agents.example';
const CALL_OUT_HASH = canonicalDocument(callOutManifest(CALLER_ENDPOINT)).hash;
const EVENT_WAIT_MS = 15_000;

const gateway = useGatewayFederation({
  config: { callOut: { endpoint: CALLER_ENDPOINT, iqTimeoutSeconds: 2, pollSeconds: 1 } },
});
let target: FakeTarget;

beforeAll(async () => {
  const link = gateway().federation.targetComponent;
  if (link === undefined) throw new Error('this federation serves no target component');
  target = await startFakeTarget({ link, world: WEATHER_WORLD });
}, 60_000);

afterAll(async () => {
  await target.stop();
});

/** Bob invokes conformance.call-out with `input`; returns the conformance task's ID. */
async function callOut(input: JsonObject): Promise<string> {
  const bob = await gateway().caller(BOB);
  const invoke = invokeOf({
    tool: CALL_OUT_TOOL,
    apiVersion: CALL_OUT_VERSION,
    manifestHash: CALL_OUT_HASH,
    arguments: input,
  });
  return (await invokeAccepted(bob, invoke, CALLER_ENDPOINT)).taskId;
}

/** The conformance task's terminal event payload, checked on the way (revisions, schemas). */
async function terminalOf(taskId: string): Promise<{ type: string; payload: JsonObject }> {
  const bob = await gateway().caller(BOB);
  const history = await eventsUntilTerminal(bob, taskId, 1, EVENT_WAIT_MS, CALLER_ENDPOINT);
  const last = history.events.at(-1);
  if (last === undefined) throw new Error('no terminal event');
  return { type: last.event.type, payload: last.payload };
}

function structuredContentOf(payload: JsonObject): JsonValue | undefined {
  const result = payload['result'];
  return isJsonObject(result) ? result['structuredContent'] : undefined;
}

describe('the reference gateway calling out (conformance.call-out)', () => {
  it("invokes the target from its call-out identity and completes with the remote task's result", async () => {
    const invokes = target.stream({ kind: 'invoke', from: CALLER_ENDPOINT });
    const taskId = await callOut({ target: WEATHER, tool: FORECAST, arguments: { city: 'Riga' } });
    const invoke = await invokes.next(EVENT_WAIT_MS);
    const task = target.taskOf(invoke);
    expect(invoke.to).toBe(WEATHER);
    expect(task.invoke.tool).toBe(FORECAST);
    expect(JSON.parse(task.invoke.argumentsJson) as unknown).toEqual({ city: 'Riga' });
    const result = { content: [{ type: 'text', text: 'sunny' }], structuredContent: { sky: 'clear' } };
    await target.sendEvent(task, { type: 'completed', payload: { result } });
    const terminal = await terminalOf(taskId);
    expect(terminal.type).toBe('completed');
    expect(structuredContentOf(terminal.payload)).toEqual({
      state: 'completed',
      taskId: task.taskId,
      result: { result },
    });
  }, 40_000);

  it('asks the remote task to cancel when the conformance task is cancelled, and reports how it settled', async () => {
    const invokes = target.stream({ kind: 'invoke', from: CALLER_ENDPOINT });
    const taskId = await callOut({ target: WEATHER, tool: FORECAST, arguments: { city: 'Oslo' } });
    const invoke = await invokes.next(EVENT_WAIT_MS);
    const task = target.taskOf(invoke);
    const cancels = target.stream({ kind: 'cancel', from: CALLER_ENDPOINT });
    const bob = await gateway().caller(BOB);
    const { revision } = await taskState(bob, taskId, CALLER_ENDPOINT);
    const answer = await sendCancel(bob, { taskId, expectedRevision: revision }, CALLER_ENDPOINT);
    expect(answer.parsed.type, answer.reply.xml).toBe('result');
    const cancel = await cancels.next(EVENT_WAIT_MS);
    expect(cancel.to).toBe(WEATHER);
    await target.sendEvent(task, { type: 'cancelled', payload: { reason: 'asked to' } });
    const terminal = await terminalOf(taskId);
    expect(terminal.type).toBe('completed');
    expect(structuredContentOf(terminal.payload)).toEqual({
      state: 'cancelled',
      taskId: task.taskId,
      result: { reason: 'asked to' },
    });
  }, 40_000);

  it("relays the remote input request to the conformance task's caller, and the answer back", async () => {
    const invokes = target.stream({ kind: 'invoke', from: CALLER_ENDPOINT });
    const provided = target.stream({ kind: 'provide-input', from: CALLER_ENDPOINT });
    const taskId = await callOut({ target: WEATHER, tool: FORECAST, arguments: { city: 'Kyiv' } });
    const task = target.taskOf(await invokes.next(EVENT_WAIT_MS));
    const remoteRequestId = generateIdentifier('input-');
    const inputSchema = { type: 'object', properties: { unit: { type: 'string' } }, required: ['unit'] };
    await target.sendEvent(task, {
      type: 'input_required',
      payload: {
        requestId: remoteRequestId,
        question: 'Which unit?',
        inputSchema,
        createdAt: new Date().toISOString(),
      },
    });
    const bob = await gateway().caller(BOB);
    let asked = checkedEvent(await bob.events.next(taskId, { timeoutMs: EVENT_WAIT_MS }), CALLER_ENDPOINT);
    while (asked.event.type !== 'input_required') {
      asked = checkedEvent(await bob.events.next(taskId, { timeoutMs: EVENT_WAIT_MS }), CALLER_ENDPOINT);
    }
    expect(asked.payload).toMatchObject({ question: 'Which unit?', inputSchema });
    const localRequestId = asked.payload['requestId'];
    if (typeof localRequestId !== 'string') throw new Error('an input request without requestId');
    const answer = await sendInput(
      bob,
      {
        taskId,
        requestId: localRequestId,
        expectedRevision: asked.event.revision,
        inputJson: '{"unit":"C"}',
      },
      CALLER_ENDPOINT,
    );
    expect(answer.parsed.type, answer.reply.xml).toBe('result');
    const relayed = await provided.next(EVENT_WAIT_MS);
    const provide = relayed.element.getChild('provide-input', NS_AGENT_TASK);
    expect(provide === undefined ? undefined : parseProvideInput(provide)).toMatchObject({
      taskId: task.taskId,
      requestId: remoteRequestId,
      inputJson: '{"unit":"C"}',
    });
    expect(relayed.to).toBe(WEATHER);
    const result = { content: [{ type: 'text', text: '21 C' }] };
    await target.sendEvent(task, { type: 'completed', payload: { result } });
    const history = await eventsUntilTerminal(
      bob,
      taskId,
      asked.event.revision + 1,
      EVENT_WAIT_MS,
      CALLER_ENDPOINT,
    );
    const last = history.events.at(-1);
    expect(last?.event.type).toBe('completed');
    expect(last === undefined ? undefined : structuredContentOf(last.payload)).toEqual({
      state: 'completed',
      taskId: task.taskId,
      result: { result },
    });
  }, 40_000);

  it('fails unavailable when the target cannot be reached, having invoked nothing', async () => {
    const invokesBefore = target.log.all({ kind: 'invoke' }).length;
    const taskId = await callOut({ target: 'ghost@unreachable.invalid', tool: FORECAST, arguments: {} });
    const terminal = await terminalOf(taskId);
    expect(terminal.type).toBe('failed');
    expect(terminal.payload['error']).toMatchObject({ code: 'unavailable' });
    expect(target.log.all({ kind: 'invoke' })).toHaveLength(invokesBefore);
  }, 40_000);
});
