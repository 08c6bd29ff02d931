// #events, #task-recovery, #cancellation, #interactive-input: one call's task loop with a
// scripted target: lost events recovered by task-state polling, <cancel-accepted/> advisory
// until the task settles (completion may still win), a local timeout that asserts nothing
// remote and sends nothing, input answered with the current revision, refused input → cancel.
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../protocol/datetime.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { localNameOf } from '../../protocol/stanza/element-access.ts';
import {
  buildAccepted,
  buildCancelAccepted,
  buildInputAccepted,
  buildTaskResult,
  buildTaskState,
  parseCancel,
  parseInvoke,
  parseProvideInput,
} from '../../protocol/stanza/index.ts';
import type { TaskState } from '../../protocol/task-states.ts';
import { scriptedQuerier, type ScriptedAnswer, type SentIq } from '../test-support/scripted-querier.ts';
import { COMPLETED, TARGET, eventMessage } from '../test-support/stanzas.ts';
import { TaskTracker } from './task-tracker.ts';
import { runToolCall, type CallSink, type InputAnswer } from './tool-call.ts';

const HASH = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' };
const TOOL = { jid: TARGET, tool: 'script', version: '1.0.0', manifestHash: HASH, replaySeconds: 60 };
const AT = parseDateTime('2026-07-27T19:14:01Z');
const LATER = parseDateTime('2026-07-28T19:14:01Z');

function accepted(sent: SentIq, taskId: string): Element {
  return buildAccepted({
    requestId: parseInvoke(sent.payload).requestId,
    taskId,
    revision: 0,
    created: AT,
    retainUntil: LATER,
  });
}

function stateAnswer(taskId: string, state: TaskState, revision: number, pendingInputJson?: string): Element {
  return buildTaskState({
    ...(pendingInputJson === undefined ? {} : { pendingInputJson }),
    taskId,
    endpoint: TARGET,
    state,
    revision,
    apiVersion: '1.0.0',
    created: AT,
    updated: AT,
    retainUntil: LATER,
    resultAvailable: state === 'completed',
    manifestHash: HASH,
  });
}

const SILENT_SINK: CallSink = {
  progress: () => Promise.resolve(),
  requestInput: () => Promise.resolve({ kind: 'no-input', reason: 'test' }),
};

function setUp(
  answer: (sent: SentIq, taskId: string, tracker: TaskTracker) => ScriptedAnswer,
  options: { callTimeoutMs?: number } = {},
) {
  const taskId = generateIdentifier('task-');
  const log: string[] = [];
  const tracker = new TaskTracker((line) => log.push(line));
  const { querier, sent } = scriptedQuerier((iq) => answer(iq, taskId, tracker));
  const deps = {
    querier,
    tracker,
    now: () => performance.now(),
    pollMs: 20,
    log: (line: string) => log.push(line),
    ...options,
  };
  return { taskId, tracker, sent, log, deps };
}

const kinds = (sent: SentIq[]): string[] => sent.map((iq) => localNameOf(iq.payload));

describe('runToolCall', () => {
  it('recovers a settlement whose events were all lost, by task-state and task-result to the bare JID', async () => {
    const { taskId, sent, deps } = setUp((iq, id) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          return { result: accepted(iq, id) };
        case 'task-state-request':
          return { result: stateAnswer(id, 'completed', 3) };
        default:
          return {
            result: buildTaskResult({ taskId: id, state: 'completed', revision: 3, json: COMPLETED }),
          };
      }
    });
    const outcome = await runToolCall(TOOL, '{}', new AbortController().signal, SILENT_SINK, deps);
    expect(outcome).toMatchObject({
      kind: 'settled',
      taskId,
      outcome: { state: 'completed' },
      cancelRequested: false,
    });
    expect(kinds(sent)).toEqual(['invoke', 'task-state-request', 'task-result-request']);
    expect(sent.every((iq) => iq.to === TARGET)).toBe(true);
  });

  it('treats <cancel-accepted/> as advisory: the task may still complete, and that is the outcome', async () => {
    const controller = new AbortController();
    const { sent, deps } = setUp((iq, id, tracker) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          setImmediate(() => {
            controller.abort();
          });
          return { result: accepted(iq, id) };
        case 'cancel':
          setImmediate(() => {
            tracker.receive(
              eventMessage({
                taskId: id,
                revision: 1,
                type: 'status',
                json: '{"state":"cancelling","updatedAt":"2026-07-27T19:14:02Z"}',
              }),
            );
            tracker.receive(eventMessage({ taskId: id, revision: 2, type: 'completed', json: COMPLETED }));
          });
          return { result: buildCancelAccepted({ taskId: id, revision: 1 }) };
        default:
          return { result: stateAnswer(id, 'cancelling', 1) };
      }
    });
    const outcome = await runToolCall(TOOL, '{}', controller.signal, SILENT_SINK, deps);
    expect(outcome).toMatchObject({
      kind: 'settled',
      outcome: { state: 'completed' },
      cancelRequested: true,
    });
    const cancel = sent.find((iq) => localNameOf(iq.payload) === 'cancel');
    expect(cancel === undefined ? undefined : parseCancel(cancel.payload).expectedRevision).toBe(0);
  });

  it('ends the wait at the local time limit without cancelling or claiming a terminal state', async () => {
    const { taskId, sent, deps } = setUp(
      (iq, id) =>
        localNameOf(iq.payload) === 'invoke'
          ? { result: accepted(iq, id) }
          : { result: stateAnswer(id, 'running', 1) },
      { callTimeoutMs: 60 },
    );
    const outcome = await runToolCall(TOOL, '{}', new AbortController().signal, SILENT_SINK, deps);
    expect(outcome).toMatchObject({ kind: 'timed-out', taskId, lastKnownState: 'running' });
    expect(kinds(sent)).not.toContain('cancel');
  });

  it('passes on progress heard in the same read as the settlement, before the answer', async () => {
    const relayed: number[] = [];
    const sink: CallSink = {
      progress: (_payload, revision) => {
        relayed.push(revision);
        return Promise.resolve();
      },
      requestInput: () => Promise.resolve({ kind: 'no-input', reason: 'test' }),
    };
    const progress = (percent: number): string => JSON.stringify({ percent });
    const { deps } = setUp((iq, id, tracker) => {
      if (localNameOf(iq.payload) !== 'invoke') return { result: stateAnswer(id, 'completed', 3) };
      // The target's events overtake the admission's answer (one TCP read under load): the
      // tracker holds them until the task is tracked, then the task is already settled.
      tracker.receive(eventMessage({ taskId: id, revision: 1, type: 'progress', json: progress(25) }));
      tracker.receive(eventMessage({ taskId: id, revision: 2, type: 'progress', json: progress(75) }));
      tracker.receive(eventMessage({ taskId: id, revision: 3, type: 'completed', json: COMPLETED }));
      return { result: accepted(iq, id) };
    });
    const outcome = await runToolCall(TOOL, '{}', new AbortController().signal, sink, deps);
    expect(outcome).toMatchObject({ kind: 'settled', outcome: { state: 'completed' } });
    expect(relayed).toEqual([1, 2]);
  });

  it('answers an input request through the sink, at the current revision', async () => {
    const asked: string[] = [];
    const sink: CallSink = {
      progress: () => Promise.resolve(),
      requestInput: (request): Promise<InputAnswer> => {
        asked.push(request.question);
        return Promise.resolve({ kind: 'input', value: { unit: 'C' } });
      },
    };
    const inputRequestId = generateIdentifier('input-');
    // A conformant target: the pending request is in every task-state answer too (#task-recovery),
    // so a poll that overtakes the input_required event still shows it.
    const pending = JSON.stringify({
      requestId: inputRequestId,
      question: 'Unit?',
      inputSchema: { type: 'object' },
      createdAt: '2026-07-27T19:14:04Z',
    });
    const { sent, deps } = setUp((iq, id, tracker) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          setImmediate(() => {
            tracker.receive(eventMessage({ taskId: id, revision: 1, type: 'input_required', json: pending }));
          });
          return { result: accepted(iq, id) };
        case 'provide-input':
          setImmediate(() => {
            tracker.receive(
              eventMessage({
                taskId: id,
                revision: 2,
                type: 'status',
                json: '{"state":"running","updatedAt":"2026-07-27T19:14:05Z"}',
              }),
            );
            tracker.receive(eventMessage({ taskId: id, revision: 3, type: 'completed', json: COMPLETED }));
          });
          return { result: buildInputAccepted({ taskId: id, revision: 2 }) };
        default:
          return { result: stateAnswer(id, 'input_required', 1, pending) };
      }
    });
    const outcome = await runToolCall(TOOL, '{}', new AbortController().signal, sink, deps);
    expect(outcome).toMatchObject({ kind: 'settled', outcome: { state: 'completed' } });
    expect(asked).toEqual(['Unit?']);
    const provide = sent.find((iq) => localNameOf(iq.payload) === 'provide-input');
    expect(provide === undefined ? undefined : parseProvideInput(provide.payload)).toMatchObject({
      requestId: inputRequestId,
      expectedRevision: 1,
      inputJson: '{"unit":"C"}',
    });
  });

  it('asks the target to cancel when the sink gives no input', async () => {
    const pending = JSON.stringify({
      requestId: generateIdentifier('input-'),
      question: 'Unit?',
      inputSchema: { type: 'object' },
      createdAt: '2026-07-27T19:14:04Z',
    });
    const { sent, deps } = setUp((iq, id, tracker) => {
      switch (localNameOf(iq.payload)) {
        case 'invoke':
          setImmediate(() => {
            tracker.receive(eventMessage({ taskId: id, revision: 1, type: 'input_required', json: pending }));
          });
          return { result: accepted(iq, id) };
        case 'cancel':
          setImmediate(() => {
            tracker.receive(eventMessage({ taskId: id, revision: 2, type: 'cancelled', json: '{}' }));
          });
          return { result: buildCancelAccepted({ taskId: id, revision: 2 }) };
        default:
          return { result: stateAnswer(id, 'input_required', 1, pending) };
      }
    });
    const outcome = await runToolCall(TOOL, '{}', new AbortController().signal, SILENT_SINK, deps);
    expect(outcome).toMatchObject({ kind: 'settled', outcome: { state: 'cancelled' } });
    expect(kinds(sent)).toContain('cancel');
  });
});
