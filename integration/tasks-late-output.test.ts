// #cancellation over the wire (issue 5, item 4): tool output arriving after terminal
// `cancelled` is discarded and changes neither state nor result. The conformance script confirms
// the caller's cancellation with a reason, then reports progress, asks for input, completes,
// fails and confirms again as late output (docs/conformance-tools.md, "Late output after
// cancelled"), and counts a ledger key last. Once `counter` reads 1 the attempts were made, and
// since the counter's own events left the endpoint after them on the same route, a late event
// would already have arrived: none may have, and task-state and task-result keep the cancelled
// settlement — for a local caller and for a remote one across s2s.
//
// The black-box suite case for the same requirement (suites/sections/cancellation/index.ts) runs here
// too, against this gateway (it must pass) and against the same gateway made to emit late output
// (it must fail): a gateway that sends a progress event after each cancelled event it sends.
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { generateIdentifier } from '../protocol/identifiers.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import {
  buildLifecycleMessage,
  parseLifecycleMessage,
  parseCancelAccepted,
} from '../protocol/stanza/index.ts';
import type { CaseContext } from '../suites/framework/context.ts';
import { freshSeed } from '../suites/framework/seeded-random.ts';
import { RequirementViolation } from '../suites/framework/verdicts.ts';
import { cancellationSuite } from '../suites/sections/cancellation/index.ts';
import { ALICE, BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import { localCaseContext } from './test-support/suite-case-context.ts';
import {
  EVENT_TIMEOUT_MS,
  eventsUntilTerminal,
  expectResultMatches,
  invokeAccepted,
  invokeOf,
  ledgerKey,
  nextEvents,
  readCounter,
  sendCancel,
  taskResult,
  taskState,
  withConformanceEndpoint,
} from './test-support/tasks.ts';
import { resultPayload } from './test-support/wire.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint, connect: [BOB, ALICE] });

/** Reads the counter until it shows `count`, within the event timeout (each read is a task). */
async function counterReaches(caller: Caller, key: string, count: number): Promise<void> {
  const deadline = Date.now() + EVENT_TIMEOUT_MS;
  for (;;) {
    const read = await readCounter(caller, key);
    if (read === count) return;
    expect(read, `the ledger of ${key} never goes past ${String(count)}`).toBeLessThan(count);
    if (Date.now() > deadline) throw new Error(`${key} stayed at ${String(read)}, expected ${String(count)}`);
  }
}

describe('output after cancelled (#cancellation)', () => {
  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`discards the tool's late output for ${who}: no event after cancelled, state and result unchanged`, async () => {
      const caller = await world().caller(jid);
      const key = ledgerKey('late-output');
      const accepted = await invokeAccepted(
        caller,
        invokeOf({
          steps: [
            { wait: { onCancel: 'proceed' } },
            { cancel: { reason: 'stopped as asked' } },
            { progress: { percent: 99, message: 'late' } },
            { input: { question: 'Still there?', inputSchema: { type: 'object' } } },
            { complete: { content: [{ type: 'text', text: 'late' }], structuredContent: { value: 'late' } } },
            { fail: { code: 'org.example.late:fail', message: 'late', retryable: false } },
            { cancel: { reason: 'a second reason' } },
            { increment: { key } },
          ],
        }),
      );
      expect((await nextEvents(caller, accepted.taskId, 1, 1)).kinds).toEqual(['status:running']);
      const cancel = { taskId: accepted.taskId, expectedRevision: 1 };
      expect(parseCancelAccepted(resultPayload(await sendCancel(caller, cancel))).revision).toBe(2);
      const history = await eventsUntilTerminal(caller, accepted.taskId, 2);
      expect(history.kinds).toEqual(['status:cancelling', 'cancelled']);
      const cancelled = history.events.at(-1);
      if (cancelled === undefined) throw new Error('no terminal event');
      expect(cancelled.payload).toEqual({ reason: 'stopped as asked' });

      await counterReaches(caller, key, 1);
      expect(
        caller.events.all(accepted.taskId).map((received) => (received.valid ? received.event.revision : -1)),
        'no event after cancelled',
      ).toEqual([1, 2, 3]);
      const state = await taskState(caller, accepted.taskId);
      expect({
        state: state.state,
        revision: state.revision,
        pending: state.pendingInputJson,
        available: state.resultAvailable,
      }).toEqual({
        state: 'cancelled',
        revision: 3,
        pending: undefined,
        available: true,
      });
      const result = await taskResult(caller, accepted.taskId);
      expectResultMatches(result, cancelled);
      expect(parseStrictJson(Buffer.from(result.json, 'utf8'))).toEqual({ reason: 'stopped as asked' });
    });
  }
});

const LATE_OUTPUT = 'cancellation.output-after-cancelled-discarded';

function caseContext(seed: number): CaseContext {
  return localCaseContext({
    world,
    name: 'reference gateway (integration)',
    profile: 'interactive-tasks',
    seed,
  });
}

function lateOutputCase(): (context: CaseContext) => Promise<void> {
  const found = cancellationSuite.cases.find(
    (testCase) => testCase.id === `cancellation.output-after-cancelled-discarded`,
  );
  if (found === undefined) throw new Error('the suite case is missing');
  return (context) => found.run(context);
}

/**
 * Turns the running gateway into one that does not discard late output: after each cancelled
 * event it sends, it sends a progress event at the next revision, as a gateway that committed
 * the tool's late progress would. Returns the undo.
 */
function emitLateProgress(): () => void {
  const gateway = world().gateway;
  const send = gateway.send.bind(gateway);
  gateway.send = async (stanza: Element): Promise<boolean> => {
    const sent = await send(stanza);
    if (stanza.name === 'message' && stanza.getChild('event') !== undefined) {
      const { message, event } = parseLifecycleMessage(stanza);
      if (event.type === 'cancelled' && message.from !== undefined && message.to !== undefined) {
        const eventId = generateIdentifier('evt-');
        await send(
          buildLifecycleMessage(
            { from: message.from, to: message.to, id: eventId },
            {
              taskId: event.taskId,
              eventId,
              revision: event.revision + 1,
              type: 'progress',
              json: '{"percent":99}',
            },
          ),
        );
      }
    }
    return sent;
  };
  return () => {
    gateway.send = send;
  };
}

describe('the suite case cancellation.output-after-cancelled-discarded', () => {
  it('passes against the reference gateway', async () => {
    const seed = freshSeed();
    console.log(`suite case seed ${String(seed)}`);
    await expect(lateOutputCase()(caseContext(seed))).resolves.toBeUndefined();
  });

  it('fails against a gateway that emits late output after cancelled', async () => {
    const seed = freshSeed();
    console.log(`suite case seed ${String(seed)}`);
    const undo = emitLateProgress();
    try {
      const verdict = await lateOutputCase()(caseContext(seed)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(verdict).toBeInstanceOf(RequirementViolation);
      expect((verdict as RequirementViolation).requirement).toBe(LATE_OUTPUT);
    } finally {
      undo();
    }
  });
});
