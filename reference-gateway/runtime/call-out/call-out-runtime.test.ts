// docs/caller.md "A gateway whose own agents call out", #invocation, #cancellation,
// #interactive-input: the call-out runtime against a scripted target. It pins the target, invokes
// from its own identity, completes with { state, taskId, result } once the remote task settled,
// reports "unknown" after a local wait without cancelling anything, relays cancellation and
// input, and fails `unavailable` only when no remote task could be started.
import { readFileSync } from 'node:fs';
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../../protocol/datetime.ts';
import type { ProgressPayload, TaskFailure, ToolResult } from '../../../protocol/events/payload-types.ts';
import { validateEventPayload } from '../../../protocol/events/index.ts';
import { generateIdentifier } from '../../../protocol/identifiers.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { localNameOf } from '../../../protocol/stanza/element-access.ts';
import {
  buildAccepted,
  buildCancelAccepted,
  buildInputAccepted,
  buildTaskState,
  parseInvoke,
  parseProvideInput,
} from '../../../protocol/stanza/index.ts';
import type { InputOutcome, InputRequest, TaskActions } from '../../../protocol/tool-actions.ts';
import { REPO_ROOT_FOR_TESTS } from '../../../reference-caller/test-support/repo-root.ts';
import {
  scriptedQuerier,
  type ScriptedAnswer,
  type SentIq,
} from '../../../reference-caller/test-support/scripted-querier.ts';
import { scriptedWorld } from '../../../reference-caller/test-support/scripted-world.ts';
import { COMPLETED, eventMessage } from '../../../reference-caller/test-support/stanzas.ts';
import { CallOutRuntime } from './call-out-runtime.ts';
import { CALL_OUT_TOOL } from './call-out-manifest.ts';

const IDENTITY = 'caller@agents.example';
const TARGET = 'conformance@agents.example';
const AT = parseDateTime('2026-07-27T19:14:01Z');
const LATER = parseDateTime('2026-07-28T19:14:01Z');
const manifest = parseStrictJson(readFileSync(`${REPO_ROOT_FOR_TESTS}/fixtures/manifests/conformance.json`));
if (!isJsonObject(manifest)) throw new Error('fixture manifest is not an object');
const metadata = scriptedWorld(manifest);

/**
 * What the conformance task's engine was told, and the switches a test pulls. Terminal payloads
 * are checked against the event schemas as the engine checks them: an invalid one is refused.
 */
class RecordingActions implements TaskActions {
  readonly completed: ToolResult[] = [];
  readonly failed: TaskFailure[] = [];
  readonly progressed: ProgressPayload[] = [];
  readonly asked: InputRequest[] = [];
  readonly cancelling = new AbortController();
  readonly ended = new AbortController();
  readonly cancellation = this.cancelling.signal;
  readonly settled = this.ended.signal;
  answer: (request: InputRequest) => InputOutcome = () => ({ kind: 'settled' });

  progress(update: ProgressPayload) {
    this.progressed.push(update);
    return Promise.resolve({ ok: true } as const);
  }
  requestInput(request: InputRequest) {
    this.asked.push(request);
    return Promise.resolve(this.answer(request));
  }
  complete(result: ToolResult) {
    if (!validateEventPayload('completed', { result } as unknown as JsonValue).ok)
      return Promise.resolve({ ok: false, refusal: 'invalid' } as const);
    this.completed.push(result);
    this.ended.abort();
    return Promise.resolve({ ok: true } as const);
  }
  fail(failure: TaskFailure) {
    if (!validateEventPayload('failed', { error: failure } as unknown as JsonValue).ok)
      return Promise.resolve({ ok: false, refusal: 'invalid' } as const);
    this.failed.push(failure);
    this.ended.abort();
    return Promise.resolve({ ok: true } as const);
  }
}

type TaskScript = (sent: SentIq, taskId: string, runtime: CallOutRuntime) => ScriptedAnswer | undefined;

function accepted(sent: SentIq, taskId: string): Element {
  const { requestId } = parseInvoke(sent.payload);
  return buildAccepted({ requestId, taskId, revision: 0, created: AT, retainUntil: LATER });
}

function stateAnswer(
  taskId: string,
  state: 'running' | 'input_required',
  revision: number,
  pending?: string,
) {
  return buildTaskState({
    ...(pending === undefined ? {} : { pendingInputJson: pending }),
    taskId,
    endpoint: TARGET,
    state,
    revision,
    apiVersion: '1.0.0',
    created: AT,
    updated: AT,
    retainUntil: LATER,
    resultAvailable: false,
    manifestHash: { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' },
  });
}

/** A runtime on a scripted link: task IQs go to `script`, metadata queries to the scripted world. */
function setUp(script: TaskScript) {
  const taskId = generateIdentifier('task-');
  const froms: string[] = [];
  const runtime = new CallOutRuntime({ identity: IDENTITY, iqTimeoutMs: 1000, pollMs: 20 });
  const { querier, sent } = scriptedQuerier((iq) => script(iq, taskId, runtime) ?? metadata(iq));
  runtime.attach({
    iq: ({ to, type, payload, from }) => {
      froms.push(from);
      return querier(to, type, payload);
    },
  });
  return { runtime, sent, froms, taskId, actions: new RecordingActions() };
}

function call(runtime: CallOutRuntime, actions: TaskActions, args: JsonObject) {
  return runtime.execute(
    { taskHandle: 'h1', tool: CALL_OUT_TOOL, apiVersion: '1.0.0', arguments: args },
    actions,
  );
}

const later = (send: () => void): void => {
  setImmediate(send);
};
const kinds = (sent: SentIq[]): string[] => sent.map((iq) => localNameOf(iq.payload));

describe('CallOutRuntime', () => {
  it('invokes from its own identity and completes with the remote state, task ID and payload', async () => {
    const { runtime, sent, froms, taskId, actions } = setUp((iq, id, rt) => {
      if (localNameOf(iq.payload) !== 'invoke') return undefined;
      later(() => {
        rt.receive(
          eventMessage({ taskId: id, revision: 1, type: 'completed', json: COMPLETED, from: TARGET }),
        );
      });
      return { result: accepted(iq, id) };
    });
    await call(runtime, actions, { target: TARGET, tool: 'script', arguments: { steps: [] } });
    expect(actions.failed).toEqual([]);
    expect(actions.completed[0]?.structuredContent).toEqual({
      state: 'completed',
      taskId,
      result: JSON.parse(COMPLETED) as JsonValue,
    });
    const invoke = sent.find((iq) => localNameOf(iq.payload) === 'invoke');
    expect(invoke?.to).toBe(TARGET);
    expect(invoke === undefined ? undefined : parseInvoke(invoke.payload)).toMatchObject({
      tool: 'script',
      apiVersion: '1.0.0',
      argumentsJson: '{"steps":[]}',
    });
    expect(new Set(froms)).toEqual(new Set([IDENTITY]));
  });

  it('reports state unknown after the local wait, keeps the task ID, and sends no cancel', async () => {
    const { runtime, sent, taskId, actions } = setUp((iq, id) => {
      if (localNameOf(iq.payload) === 'invoke') return { result: accepted(iq, id) };
      if (localNameOf(iq.payload) === 'task-state-request') return { result: stateAnswer(id, 'running', 0) };
      return undefined;
    });
    await call(runtime, actions, { target: TARGET, tool: 'script', arguments: {}, timeoutSeconds: 0.1 });
    expect(actions.completed[0]?.structuredContent).toEqual({ state: 'unknown', taskId, result: null });
    expect(kinds(sent)).not.toContain('cancel');
  });

  it('asks the remote task to cancel when the conformance task is cancelled, and reports how it settled', async () => {
    const { runtime, sent, taskId, actions } = setUp((iq, id, rt) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          later(() => {
            actions.cancelling.abort();
          });
          return { result: accepted(iq, id) };
        case 'cancel':
          later(() => {
            rt.receive(
              eventMessage({ taskId: id, revision: 1, type: 'cancelled', json: '{}', from: TARGET }),
            );
          });
          return { result: buildCancelAccepted({ taskId: id, revision: 1 }) };
        case 'task-state-request':
          return { result: stateAnswer(id, 'running', 0) };
        default:
          return undefined;
      }
    });
    await call(runtime, actions, { target: TARGET, tool: 'script', arguments: {} });
    expect(sent.filter((iq) => localNameOf(iq.payload) === 'cancel').map((iq) => iq.to)).toEqual([TARGET]);
    expect(actions.completed[0]?.structuredContent).toEqual({ state: 'cancelled', taskId, result: {} });
  });

  it("relays a remote input request to the conformance task's caller and sends the answer back", async () => {
    const requestId = generateIdentifier('input-');
    const pending = JSON.stringify({
      requestId,
      question: 'Unit?',
      inputSchema: { type: 'object' },
      createdAt: '2026-07-27T19:14:04Z',
    });
    const { runtime, sent, actions } = setUp((iq, id, rt) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          later(() => {
            rt.receive(
              eventMessage({ taskId: id, revision: 1, type: 'input_required', json: pending, from: TARGET }),
            );
          });
          return { result: accepted(iq, id) };
        case 'provide-input':
          later(() => {
            rt.receive(
              eventMessage({ taskId: id, revision: 2, type: 'completed', json: COMPLETED, from: TARGET }),
            );
          });
          return { result: buildInputAccepted({ taskId: id, revision: 2 }) };
        case 'task-state-request':
          return { result: stateAnswer(id, 'input_required', 1, pending) };
        default:
          return undefined;
      }
    });
    actions.answer = () => ({ kind: 'answered', input: { unit: 'C' } });
    await call(runtime, actions, { target: TARGET, tool: 'script', arguments: {} });
    expect(actions.asked).toEqual([{ question: 'Unit?', inputSchema: { type: 'object' } }]);
    const provide = sent.find((iq) => localNameOf(iq.payload) === 'provide-input');
    expect(provide === undefined ? undefined : parseProvideInput(provide.payload)).toMatchObject({
      requestId,
      inputJson: '{"unit":"C"}',
    });
    expect(actions.completed[0]?.structuredContent).toMatchObject({ state: 'completed' });
  });

  it('fails unavailable only when no remote task could be started', async () => {
    const unreachable = setUp(() => ({ error: 'remote-server-not-found' }));
    await call(unreachable.runtime, unreachable.actions, { target: TARGET, tool: 'script', arguments: {} });
    expect(unreachable.actions.failed).toMatchObject([{ code: 'unavailable' }]);
    expect(kinds(unreachable.sent)).not.toContain('invoke');

    const noSuchTool = setUp(() => undefined);
    await call(noSuchTool.runtime, noSuchTool.actions, {
      target: TARGET,
      tool: 'no.such.tool',
      arguments: {},
    });
    expect(noSuchTool.actions.failed).toMatchObject([{ code: 'unavailable' }]);

    const refused = setUp((iq) =>
      localNameOf(iq.payload) === 'invoke' ? { error: 'forbidden' } : undefined,
    );
    await call(refused.runtime, refused.actions, { target: TARGET, tool: 'script', arguments: {} });
    expect(refused.actions.failed).toMatchObject([
      { code: 'unavailable', message: expect.stringContaining('forbidden') as string },
    ]);
    expect(refused.actions.completed).toEqual([]);
  });

  it('refuses arguments the contract does not describe, calling nobody', async () => {
    const { runtime, sent, actions } = setUp(() => undefined);
    await call(runtime, actions, { target: 'not a jid', tool: 'script', arguments: {} });
    expect(actions.failed).toMatchObject([{ code: 'internal-error' }]);
    expect(sent).toEqual([]);
  });

  it('takes the messages addressed to its identity, whatever the resource, and no others', () => {
    const { runtime } = setUp(() => undefined);
    const to = (jid: string): Element => {
      const message = eventMessage({
        taskId: generateIdentifier('task-'),
        revision: 1,
        type: 'completed',
        json: '{}',
      });
      message.attrs['to'] = jid;
      return message;
    };
    expect(runtime.addressedTo(to('caller@agents.example'))).toBe(true);
    expect(runtime.addressedTo(to('Caller@agents.example/x'))).toBe(true);
    expect(runtime.addressedTo(to('conformance@agents.example'))).toBe(false);
  });
});
