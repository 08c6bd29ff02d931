// #interactive-input over the wire (issue 5, item 5; interp-33–#37): the complete
// input_required event and the same object in task-state's <pending-input/>, input-accepted at
// revision N with status{running} at N, the replay identity (also after settlement),
// not-acceptable for schema-invalid input, and conflict for stale, answered, expired and
// superseded requests — a late answer after expiry is awaited through the expiry's own event,
// with expiries of a few hundred milliseconds.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { generateIdentifier } from '../protocol/identifiers.ts';
import { isJsonObject, type JsonObject } from '../protocol/json/json-value.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { parseCancelAccepted, parseInputAccepted, type Accepted } from '../protocol/stanza/index.ts';
import { ALICE, BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  eventsUntilTerminal,
  invokeAccepted,
  invokeOf,
  ledgerKey,
  nextEvents,
  readCounter,
  sendCancel,
  sendInput,
  taskResult,
  taskState,
  withConformanceEndpoint,
  type ScriptStep,
} from './test-support/tasks.ts';
import { expectStanzaError, resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint, connect: [BOB, ALICE] });

const UNIT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { unit: { enum: ['C', 'F'] } },
  required: ['unit'],
};

/** An input step asking for the unit. */
function askUnit(extra: JsonObject = {}): ScriptStep {
  return { input: { question: 'Which unit?', inputSchema: UNIT_SCHEMA, ...extra } };
}

interface Pending {
  readonly accepted: Accepted;
  readonly requestId: string;
  /** The revision of the input_required event. */
  readonly revision: number;
  readonly payload: JsonObject;
}

/** Invokes and waits for running@1 and input_required@2. */
async function pendingInput(caller: Caller, steps: readonly ScriptStep[], key?: string): Promise<Pending> {
  const accepted = await invokeAccepted(
    caller,
    invokeOf({ steps, ...(key === undefined ? {} : { ledgerKey: key }) }),
  );
  const history = await nextEvents(caller, accepted.taskId, 2, 1);
  expect(history.kinds).toEqual(['status:running', 'input_required']);
  const payload = history.events[1]?.payload ?? {};
  const requestId = payload['requestId'];
  if (typeof requestId !== 'string') throw new Error('input_required without a requestId');
  return { accepted, requestId, revision: 2, payload };
}

function answer(pending: Pending, inputJson: string, expectedRevision = pending.revision) {
  return { taskId: pending.accepted.taskId, requestId: pending.requestId, expectedRevision, inputJson };
}

function acceptedRevision(exchange: Awaited<ReturnType<typeof sendInput>>): number {
  return parseInputAccepted(resultPayload(exchange)).revision;
}

describe('interactive input (#interactive-input, #events)', () => {
  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`asks ${who}, shows the pending request in task-state, and accepts the answer at N with running at N`, async () => {
      const caller = await world().caller(jid);
      const key = ledgerKey('input');
      const pending = await pendingInput(
        caller,
        [askUnit({ expiresInMs: 60_000 }), { increment: { key } }, { complete: { echoInputs: true } }],
        key,
      );
      expect(pending.payload).toEqual({
        requestId: pending.requestId,
        question: 'Which unit?',
        inputSchema: UNIT_SCHEMA,
        createdAt: expect.any(String) as unknown,
        expiresAt: expect.any(String) as unknown,
      });
      const state = await taskState(caller, pending.accepted.taskId);
      expect({ state: state.state, revision: state.revision }).toEqual({
        state: 'input_required',
        revision: 2,
      });
      expect(
        state.pendingInputJson === undefined
          ? undefined
          : parseStrictJson(Buffer.from(state.pendingInputJson, 'utf8')),
      ).toEqual(pending.payload);
      const request = answer(pending, '{"unit":"C"}');
      expect(acceptedRevision(await sendInput(caller, request))).toBe(3);
      const history = await eventsUntilTerminal(caller, pending.accepted.taskId, 3);
      expect(history.kinds).toEqual(['status:running', 'completed']);
      expect(history.events.at(-1)?.payload).toEqual({
        result: { content: [], structuredContent: { inputs: [{ unit: 'C' }] } },
      });
      // The identical tuple replays the original acceptance after settlement, from any resource,
      // with whitespace and key order of no account (RFC 8785 bytes); the input ran once.
      const other = await world().caller(jid, 'other');
      expect(acceptedRevision(await sendInput(other, answer(pending, ' { "unit" : "C" } ')))).toBe(3);
      expect(await readCounter(caller, key)).toBe(2);
      // A different answer to the answered request conflicts.
      expectStanzaError(await sendInput(caller, answer(pending, '{"unit":"F"}')), 'conflict', 'cancel');
      expect((await taskState(caller, pending.accepted.taskId)).pendingInputJson).toBeUndefined();
    });
  }

  it('refuses schema-invalid input with not-acceptable and keeps the request pending', async () => {
    const bob = await world().caller(BOB);
    const pending = await pendingInput(bob, [askUnit(), { complete: { echoInputs: true } }]);
    for (const inputJson of ['{"unit":"K"}', '{}', '"C"']) {
      expectStanzaError(await sendInput(bob, answer(pending, inputJson)), 'not-acceptable', 'modify');
    }
    expectStanzaError(await sendInput(bob, answer(pending, '{"unit":')), 'bad-request', 'modify');
    expect((await taskState(bob, pending.accepted.taskId)).state).toBe('input_required');
    expect(acceptedRevision(await sendInput(bob, answer(pending, '{"unit":"F"}')))).toBe(3);
    expect((await eventsUntilTerminal(bob, pending.accepted.taskId, 3)).kinds).toEqual([
      'status:running',
      'completed',
    ]);
  });

  it('answers an unknown request ID with item-not-found and a stale expected revision with conflict', async () => {
    const alice = await world().caller(ALICE);
    const pending = await pendingInput(alice, [askUnit(), { complete: {} }]);
    expectStanzaError(
      await sendInput(alice, { ...answer(pending, '{"unit":"C"}'), requestId: generateIdentifier('input-') }),
      'item-not-found',
      'cancel',
    );
    expectStanzaError(await sendInput(alice, answer(pending, '{"unit":"C"}', 1)), 'conflict', 'cancel');
    expect(acceptedRevision(await sendInput(alice, answer(pending, '{"unit":"C"}')))).toBe(3);
    await eventsUntilTerminal(alice, pending.accepted.taskId, 3);
  });

  it('conflicts on a late answer after expiry, once the task has settled (interp-35, interp-37)', async () => {
    const bob = await world().caller(BOB);
    const pending = await pendingInput(bob, [
      askUnit({ expiresInMs: 300 }),
      { complete: { echoInputs: true } },
    ]);
    // Expiry: back to running in the same commit, then the tool fails with its expiry failure.
    const history = await eventsUntilTerminal(bob, pending.accepted.taskId, 3);
    expect(history.kinds).toEqual(['status:running', 'failed']);
    expect(history.events.at(-1)?.payload).toMatchObject({
      error: { code: 'org.agentconf.conformance:input-expired' },
    });
    expectStanzaError(await sendInput(bob, answer(pending, '{"unit":"C"}')), 'conflict', 'cancel');
    expectStanzaError(await sendInput(bob, answer(pending, '{"unit":"C"}', 4)), 'conflict', 'cancel');
  });

  it('conflicts on a late answer to an expired request that was re-issued, and accepts the new one', async () => {
    const alice = await world().caller(ALICE);
    const first = await pendingInput(alice, [
      askUnit({ expiresInMs: 300, reissue: 1 }),
      { complete: { echoInputs: true } },
    ]);
    // The reference gateway passes through running before the new request (interp-35).
    const reissued = await nextEvents(alice, first.accepted.taskId, 2, 3);
    expect(reissued.kinds).toEqual(['status:running', 'input_required']);
    const payload = reissued.events[1]?.payload;
    const requestId = isJsonObject(payload) ? payload['requestId'] : undefined;
    if (typeof requestId !== 'string') throw new Error('no new request');
    expect(requestId).not.toBe(first.requestId);
    expectStanzaError(await sendInput(alice, answer(first, '{"unit":"C"}', 4)), 'conflict', 'cancel');
    const second: Pending = { accepted: first.accepted, requestId, revision: 4, payload: payload ?? {} };
    expect(acceptedRevision(await sendInput(alice, answer(second, '{"unit":"F"}')))).toBe(5);
    const end = await eventsUntilTerminal(alice, first.accepted.taskId, 5);
    expect(end.events.at(-1)?.payload).toEqual({
      result: { content: [], structuredContent: { inputs: [{ unit: 'F' }] } },
    });
  });

  it('conflicts on an answer to a request a cancellation superseded', async () => {
    const bob = await world().caller(BOB);
    const pending = await pendingInput(bob, [askUnit(), { complete: { echoInputs: true } }]);
    const cancelled = parseCancelAccepted(
      resultPayload(await sendCancel(bob, { taskId: pending.accepted.taskId, expectedRevision: 2 })),
    );
    expect(cancelled.revision).toBe(3);
    expectStanzaError(await sendInput(bob, answer(pending, '{"unit":"C"}')), 'conflict', 'cancel');
    expectStanzaError(await sendInput(bob, answer(pending, '{"unit":"C"}', 3)), 'conflict', 'cancel');
    expect((await eventsUntilTerminal(bob, pending.accepted.taskId, 3)).kinds).toEqual([
      'status:cancelling',
      'cancelled',
    ]);
    expect((await taskResult(bob, pending.accepted.taskId)).state).toBe('cancelled');
  });

  it('never asks for input without effective #input support (script.plain, interp-05)', async () => {
    const alice = await world().caller(ALICE);
    const accepted = await invokeAccepted(
      alice,
      invokeOf({ tool: 'script.plain', steps: [askUnit(), { complete: {} }] }),
    );
    const history = await eventsUntilTerminal(alice, accepted.taskId);
    expect(history.kinds).toEqual(['status:running', 'failed']);
    expect(history.events.at(-1)?.payload).toMatchObject({ error: { code: 'internal-error' } });
  });
});
