// #events, #task-recovery, results and retention over the wire (issue 5, items 2, 3, 7 and 8):
// lifecycle messages at the invoking full JID, each valid against the normative event schema,
// revisions rising by exactly one; task state with every required attribute and the result of
// a terminal task only; results checked against outputSchema, isError as a completion, failure
// codes; recovery from another resource of the same bare JID; one byte-identical item-not-found
// for unauthorized, cross-tenant, cross-endpoint and nonexistent task IDs; and a version pinned
// by a retained task that cannot be removed.
import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller, IqExchange } from '../harness/driver/index.ts';
import { compareInstants } from '../protocol/datetime.ts';
import { generateIdentifier, isIdentifier } from '../protocol/identifiers.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import {
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseCancelAccepted,
  type Accepted,
} from '../protocol/stanza/index.ts';
import { provisioningOf, statusOf } from './test-support/admin.ts';
import { JID } from './test-support/fixtures.ts';
import { ALICE, BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  CONFORMANCE_HASH,
  CONFORMANCE_NEXT_HASH,
  CONFORMANCE_NEXT_VERSION,
  CONFORMANCE_VERSION,
  EVENT_TIMEOUT_MS,
  eventsUntilTerminal,
  expectResultMatches,
  invokeAccepted,
  invokeOf,
  nextEvents,
  sendCancel,
  sendInput,
  taskResult,
  taskState,
  withConformanceEndpoint,
  type InvokeOptions,
} from './test-support/tasks.ts';
import { expectIdenticalErrors, expectStanzaError, outcomeOf, resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint, connect: [BOB, ALICE] });

/** Cancels a task the test left running (expected revision = its current one) and waits for cancelled. */
async function cancelAndSettle(caller: Caller, accepted: Accepted, revision: number): Promise<void> {
  const reply = parseCancelAccepted(
    resultPayload(await sendCancel(caller, { taskId: accepted.taskId, expectedRevision: revision })),
  );
  expect(reply.revision).toBe(revision + 1);
  const history = await eventsUntilTerminal(caller, accepted.taskId, revision + 1);
  expect(history.kinds).toEqual(['status:cancelling', 'cancelled']);
}

/** Runs a script to its end and returns its history and the task's result. */
async function runToEnd(caller: Caller, options: InvokeOptions) {
  const invoke = invokeOf(options);
  const accepted = await invokeAccepted(caller, invoke);
  const history = await eventsUntilTerminal(caller, accepted.taskId);
  const terminal = history.events.at(-1);
  if (terminal === undefined) throw new Error('no terminal event');
  const result = await taskResult(caller, accepted.taskId);
  expectResultMatches(result, terminal);
  return { invoke, accepted, history, terminal, result };
}

describe('lifecycle events (#events, #task-message-routing)', () => {
  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`sends ${who} one valid event per revision at the invoking full JID, with the complete result`, async () => {
      const caller = await world().caller(jid);
      const { history, accepted } = await runToEnd(caller, {
        tool: 'script.typed',
        steps: [
          { progress: { percent: 25, stage: 'fetch' } },
          { progress: { percent: 75, message: 'almost' } },
          {
            complete: {
              content: [{ type: 'text', text: 'done' }],
              structuredContent: { value: 'done' },
              summary: 'ok',
            },
          },
        ],
      });
      expect(history.kinds).toEqual(['status:running', 'progress', 'progress', 'completed']);
      for (const event of history.events) {
        expect(event.stanza.to).toBe(caller.jid);
        expect(event.taskId).toBe(accepted.taskId);
        expect(isIdentifier(event.event.eventId) && event.event.eventId.length >= 22).toBe(true);
      }
      expect(history.events.map((event) => event.payload)).toEqual([
        { state: 'running', updatedAt: expect.any(String) as unknown },
        { percent: 25, stage: 'fetch' },
        { percent: 75, message: 'almost' },
        {
          result: { content: [{ type: 'text', text: 'done' }], structuredContent: { value: 'done' } },
          summary: 'ok',
        },
      ]);
      // Nothing else arrived for the task: no duplicate, no hidden revision.
      expect(caller.events.all(accepted.taskId)).toHaveLength(4);
    });
  }

  it('reports state while running with every required attribute, and no result yet (#task-recovery, interp-04, interp-39)', async () => {
    const bob = await world().caller(BOB);
    const deadline = new Date(Date.now() + 120_000).toISOString();
    const accepted = await invokeAccepted(
      bob,
      invokeOf({ steps: [{ progress: { percent: 10 } }, { wait: {} }], deadline }),
    );
    await nextEvents(bob, accepted.taskId, 2, 1);
    const state = await taskState(bob, accepted.taskId);
    expect({
      taskId: state.taskId,
      endpoint: state.endpoint,
      state: state.state,
      revision: state.revision,
      apiVersion: state.apiVersion,
      resultAvailable: state.resultAvailable,
      manifestHash: state.manifestHash,
      pendingInput: state.pendingInputJson,
    }).toEqual({
      taskId: accepted.taskId,
      endpoint: CONFORMANCE,
      state: 'running',
      revision: 2,
      apiVersion: CONFORMANCE_VERSION,
      resultAvailable: false,
      manifestHash: CONFORMANCE_HASH,
      pendingInput: undefined,
    });
    expect(state.created.text).toBe(accepted.created.text);
    expect(state.retainUntil.text).toBe(accepted.retainUntil.text);
    expect(state.deadline?.text).toBe(deadline);
    expect(compareInstants(state.updated, state.created)).toBeGreaterThanOrEqual(0);
    const early = await bob.exchangeIq(
      CONFORMANCE,
      'get',
      buildTaskResultRequest({ taskId: accepted.taskId }),
    );
    expectStanzaError(early, 'unexpected-request', 'wait');
    await cancelAndSettle(bob, accepted, 2);
    const settled = await taskState(bob, accepted.taskId);
    expect({
      state: settled.state,
      revision: settled.revision,
      resultAvailable: settled.resultAvailable,
    }).toEqual({
      state: 'cancelled',
      revision: 4,
      resultAvailable: true,
    });
    expect(settled.retainUntil.text).toBe(accepted.retainUntil.text);
  });

  it('shows the default timeout as the deadline of a task invoked without one (interp-32)', async () => {
    const alice = await world().caller(ALICE);
    const accepted = await invokeAccepted(alice, invokeOf({ steps: [{ wait: {} }] }));
    await nextEvents(alice, accepted.taskId, 1, 1);
    const state = await taskState(alice, accepted.taskId);
    // script declares defaultTimeoutSeconds 300.
    const expected = Date.parse(accepted.created.text) + 300_000;
    expect(state.deadline === undefined ? undefined : Date.parse(state.deadline.text)).toBe(expected);
    await cancelAndSettle(alice, accepted, 1);
  });
});

describe('results (#events, #mcp-mapping; interp-40)', () => {
  it('completes script.typed only with structuredContent valid against its outputSchema', async () => {
    const bob = await world().caller(BOB);
    const valid = await runToEnd(bob, {
      tool: 'script.typed',
      steps: [{ complete: { structuredContent: { value: 'x' } } }],
    });
    expect(valid.result.state).toBe('completed');
    for (const structuredContent of [{ value: 1 }, {}, { value: 'x', extra: 1 }]) {
      const invalid = await runToEnd(bob, {
        tool: 'script.typed',
        steps: [{ complete: { structuredContent } }],
      });
      expect(invalid.history.kinds).toEqual(['status:running', 'failed']);
      expect(invalid.terminal.payload).toEqual({
        error: {
          code: 'internal-error',
          message: 'The gateway refused what the tool reported.',
          retryable: false,
        },
      });
    }
    const missing = await runToEnd(bob, { tool: 'script.typed', steps: [{ complete: {} }] });
    expect(missing.result.state).toBe('failed');
  });

  it('records isError: true as a completed task, not a failure, also without structuredContent', async () => {
    const alice = await world().caller(ALICE);
    for (const tool of ['script', 'script.typed']) {
      const run = await runToEnd(alice, {
        tool,
        steps: [{ complete: { content: [{ type: 'text', text: 'quota exceeded' }], isError: true } }],
      });
      expect(run.result.state).toBe('completed');
      expect(run.terminal.payload).toEqual({
        result: { content: [{ type: 'text', text: 'quota exceeded' }], isError: true },
      });
    }
  });

  it('keeps failure codes reserved or namespace-qualified (#errors, #registrar-failure-codes)', async () => {
    const bob = await world().caller(BOB);
    const qualified = await runToEnd(bob, {
      steps: [
        {
          fail: {
            code: 'org.example.tool:quota',
            message: 'Quota exhausted.',
            retryable: true,
            details: { 'org.example.tool:limit': 10 },
          },
        },
      ],
    });
    expect(qualified.terminal.payload).toEqual({
      error: {
        code: 'org.example.tool:quota',
        message: 'Quota exhausted.',
        retryable: true,
        details: { 'org.example.tool:limit': 10 },
      },
    });
    const reserved = await runToEnd(bob, {
      steps: [{ fail: { code: 'unavailable', message: 'Down for maintenance.', retryable: true } }],
    });
    expect(reserved.terminal.payload).toMatchObject({ error: { code: 'unavailable' } });
    // An unqualified code is refused; the tool then fails with its documented internal-error.
    const unqualified = await runToEnd(bob, {
      steps: [{ fail: { code: 'oops', message: 'Something broke.', retryable: false } }],
    });
    expect(unqualified.terminal.payload).toEqual({
      error: {
        code: 'internal-error',
        message: 'The gateway refused what the tool reported.',
        retryable: false,
      },
    });
    expect(unqualified.terminal.event.json).not.toContain('oops');
  });
});

describe('recovery (#task-recovery)', () => {
  it('lets another resource of the same bare JID recover state and result, while events stay at the invoking resource', async () => {
    for (const jid of [BOB, ALICE]) {
      const invoker = await world().caller(jid);
      const other = await world().caller(jid, 'recovery');
      const accepted = await invokeAccepted(
        invoker,
        invokeOf({ steps: [{ complete: { content: [{ type: 'text', text: 'recovered' }] } }] }),
      );
      const history = await eventsUntilTerminal(invoker, accepted.taskId);
      const terminal = history.events.at(-1);
      if (terminal === undefined) throw new Error('no terminal event');
      const state = await taskState(other, accepted.taskId);
      expect({ state: state.state, revision: state.revision }).toEqual({ state: 'completed', revision: 2 });
      expectResultMatches(await taskResult(other, accepted.taskId), terminal);
      expect(other.events.all(accepted.taskId)).toEqual([]);
    }
  });

  it('answers unauthorized, cross-tenant, cross-endpoint and nonexistent task IDs with one byte-identical item-not-found', async () => {
    const bob = await world().caller(BOB);
    const alice = await world().caller(ALICE);
    const bobs = await invokeAccepted(bob, invokeOf({ steps: [{ complete: {} }] }));
    const alices = await invokeAccepted(alice, invokeOf({ steps: [{ complete: {} }] }));
    await eventsUntilTerminal(bob, bobs.taskId);
    await eventsUntilTerminal(alice, alices.taskId);
    const nobody = generateIdentifier('task-');
    const requests = {
      state: (taskId: string) => ({ type: 'get' as const, payload: buildTaskStateRequest({ taskId }) }),
      result: (taskId: string) => ({ type: 'get' as const, payload: buildTaskResultRequest({ taskId }) }),
    };
    const ask = async (
      caller: Caller,
      to: string,
      request: { type: 'get'; payload: ReturnType<typeof buildTaskStateRequest> },
    ): Promise<IqExchange> =>
      caller.exchangeIq(to, request.type, request.payload, { timeoutMs: EVENT_TIMEOUT_MS });
    for (const kind of ['state', 'result'] as const) {
      expectIdenticalErrors({
        "another caller's task": {
          exchange: await ask(bob, CONFORMANCE, requests[kind](alices.taskId)),
          to: CONFORMANCE,
        },
        'own task at another endpoint': {
          exchange: await ask(bob, JID.weather, requests[kind](bobs.taskId)),
          to: JID.weather,
        },
        'own task at a nonexistent endpoint': {
          exchange: await ask(bob, JID.nobody, requests[kind](bobs.taskId)),
          to: JID.nobody,
        },
        'nonexistent task': {
          exchange: await ask(bob, CONFORMANCE, requests[kind](nobody)),
          to: CONFORMANCE,
        },
      });
      expectIdenticalErrors({
        "another caller's task, across s2s": {
          exchange: await ask(alice, CONFORMANCE, requests[kind](bobs.taskId)),
          to: CONFORMANCE,
        },
        'nonexistent task': {
          exchange: await ask(alice, CONFORMANCE, requests[kind](nobody)),
          to: CONFORMANCE,
        },
      });
    }
    // Cancel and provide-input by anyone but the caller: the same answer as for no task at all.
    expectIdenticalErrors({
      cancel: {
        exchange: await sendCancel(alice, { taskId: bobs.taskId, expectedRevision: 2 }),
        to: CONFORMANCE,
      },
      'cancel, nonexistent': {
        exchange: await sendCancel(alice, { taskId: nobody, expectedRevision: 2 }),
        to: CONFORMANCE,
      },
      input: {
        exchange: await sendInput(alice, {
          taskId: bobs.taskId,
          requestId: generateIdentifier('input-'),
          expectedRevision: 2,
          inputJson: '{}',
        }),
        to: CONFORMANCE,
      },
    });
    expectStanzaError(await ask(bob, CONFORMANCE, requests.state(nobody)), 'item-not-found', 'cancel');
  });

  it('answers syntactically invalid task IDs with bad-request, whoever asks', async () => {
    const bob = await world().caller(BOB);
    const alice = await world().caller(ALICE);
    for (const taskId of ['short', 'has space in it and is long enough', 'x'.repeat(129)]) {
      for (const caller of [bob, alice]) {
        const exchange = await caller.exchangeIq(
          CONFORMANCE,
          'get',
          xml('task-state-request', { xmlns: NS_AGENT_TASK, 'task-id': taskId }),
        );
        expectStanzaError(exchange, 'bad-request', 'modify');
      }
    }
  });
});

describe('retention (#events, #registration-flow)', () => {
  it('refuses to remove a version a retained task pins, and keeps the task answerable after a version change', async () => {
    const bob = await world().caller(BOB);
    const admin = provisioningOf(bob);
    const run = await runToEnd(bob, { steps: [{ complete: {} }] });
    const next = resultPayload(
      await admin.activate(CONFORMANCE, CONFORMANCE_NEXT_VERSION, CONFORMANCE_NEXT_HASH),
    );
    expect(next.name).toBe('active');
    try {
      // interp-24: conflict or not-allowed, never success.
      const removal = await admin.removeVersion(CONFORMANCE, CONFORMANCE_VERSION);
      expect(['conflict/cancel', 'not-allowed/cancel']).toContain(outcomeOf(removal));
      const status = await statusOf(bob, CONFORMANCE);
      expect(status.versions.find((version) => version.id === CONFORMANCE_VERSION)?.removable).toBe(false);
      // The task still answers with its own pins and result.
      const state = await taskState(bob, run.accepted.taskId);
      expect({ apiVersion: state.apiVersion, manifestHash: state.manifestHash }).toEqual({
        apiVersion: CONFORMANCE_VERSION,
        manifestHash: CONFORMANCE_HASH,
      });
      expect((await taskResult(bob, run.accepted.taskId)).state).toBe('completed');
      // A replay of the admitted request still names it, though its version is no longer active.
      expect((await invokeAccepted(bob, run.invoke)).taskId).toBe(run.accepted.taskId);
    } finally {
      resultPayload(await admin.activate(CONFORMANCE, CONFORMANCE_VERSION, CONFORMANCE_HASH));
    }
  });
});
