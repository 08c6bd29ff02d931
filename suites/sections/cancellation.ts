/**
 * #cancellation: an accepted cancellation moves the task to cancelling at the revision it
 * returns and stays advisory (the tool confirms, or completes anyway); identical replays return
 * the original acceptance, also after settlement; another tuple or a cancel after settlement
 * gets conflict. Deadlines: expiry settles
 * failed with deadline-expired, a mutation at or after the deadline is not applied, and instants
 * are compared with their offsets and every fractional digit.
 */
import { dateTimeFromMillis, parseDateTime } from '../../protocol/datetime.ts';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import { defineSuite } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { expectStanzaError, expectThat } from '../framework/expect.ts';
import {
  awaitEvent,
  awaitSettled,
  conformanceTarget,
  expectCancelAccepted,
  requireToolFeatures,
  sendCancel,
  startTask,
  statusState,
  terminalPayload,
} from './support/tasks.ts';

const REPLAY = 'cancellation.identical-replay';
const CONFLICT = 'cancellation.different-tuple-conflict';
const RETENTION = 'cancellation.acceptance-retention';

/** The failure code of a failed terminal payload. */
function failureCode(payload: unknown): unknown {
  if (!isJsonObject(payload as never)) return undefined;
  const error = (payload as Record<string, unknown>)['error'];
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['code'] : undefined;
}

/** A deadline `offsetMs` ahead written in +05:30 with seven fractional digits (interp-31). */
function oddlyWrittenDeadline(offsetMs: number): { text: string; millis: number } {
  const millis = Date.now() + offsetMs;
  const shifted = new Date(millis + 330 * 60_000).toISOString(); // local time at +05:30
  const text = `${shifted.slice(0, 19)}.${shifted.slice(20, 23)}0001+05:30`;
  return { text, millis };
}

async function deadlineOutcome(
  context: CaseContext,
  wakeOffsetMs: number,
): Promise<{ state: string; code: unknown; xml: string }> {
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const deadline = oddlyWrittenDeadline(400);
  const until = dateTimeFromMillis(deadline.millis + wakeOffsetMs).text;
  const { accepted } = await startTask(
    context,
    caller,
    target,
    'script',
    {
      steps: [
        { wait: { until, onCancel: 'ignore' } },
        { complete: { structuredContent: { value: 'late?' } } },
      ],
    },
    { deadline: parseDateTime(deadline.text) },
  );
  const history = await awaitSettled(context, caller, accepted.taskId);
  const { state, payload } = terminalPayload(history);
  return {
    state,
    code: failureCode(payload),
    xml: history.map((received) => received.stanza.xml).join('\n'),
  };
}

export const cancellationSuite = defineSuite('cancellation', 'Cancellation and Deadlines', [
  {
    name: 'advisory-cancelled-with-replays',
    requirements: [REPLAY, CONFLICT, RETENTION],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-33', 'interp-38'],
    statement:
      'A cancellation is accepted at the revision of the cancelling status event, the tool confirms and the task settles cancelled; the identical cancel repeated before and after settlement returns the original acceptance, and a cancel with another reason gets conflict.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(caller, target, 'script', ['cancel']);
      const { accepted } = await startTask(context, caller, target, 'script', { steps: [{ wait: {} }] });
      const running = await awaitEvent(context, caller, accepted.taskId, 'status');
      const first = await sendCancel(caller, target, accepted.taskId, running.event.revision, 'stop, please');
      const cancelAccepted = expectCancelAccepted(first, RETENTION);
      const cancelling = await awaitEvent(
        context,
        caller,
        accepted.taskId,
        'status',
        (payload) => isJsonObject(payload) && payload['state'] === 'cancelling',
      );
      expectThat(
        cancelling.event.revision === cancelAccepted.revision && cancelAccepted.taskId === accepted.taskId,
        RETENTION,
        `the cancelling status event at the revision cancel-accepted returned (${String(cancelAccepted.revision)})`,
        cancelling.stanza.xml,
      );
      const check = async (when: string): Promise<void> => {
        const replay = await sendCancel(
          caller,
          target,
          accepted.taskId,
          running.event.revision,
          'stop, please',
        );
        const again = expectCancelAccepted(replay, REPLAY);
        expectThat(
          again.taskId === cancelAccepted.taskId && again.revision === cancelAccepted.revision,
          REPLAY,
          `${when}: the original <cancel-accepted revision='${String(cancelAccepted.revision)}'/>`,
          replay.reply.xml,
        );
        const other = await sendCancel(
          caller,
          target,
          accepted.taskId,
          running.event.revision,
          'another reason',
        );
        expectStanzaError(context, other, CONFLICT, 'conflict');
      };
      await check('while cancelling');
      const history = await awaitSettled(context, caller, accepted.taskId);
      expectThat(
        terminalPayload(history).state === 'cancelled',
        RETENTION,
        'settled cancelled',
        history.at(-1)?.stanza.xml ?? '',
      );
      await check('after settlement');
    },
  },
  {
    name: 'cancelling-then-completed',
    requirements: ['events.revision-increments'],
    interpretations: ['interp-33'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'Cancelling is not terminal: a tool that goes on after an accepted cancellation may still complete the task.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(caller, target, 'script', ['cancel']);
      const { accepted } = await startTask(context, caller, target, 'script', {
        steps: [
          { wait: { onCancel: 'proceed' } },
          { complete: { content: [{ type: 'text', text: 'finished anyway' }] } },
        ],
      });
      const running = await awaitEvent(context, caller, accepted.taskId, 'status');
      expectCancelAccepted(
        await sendCancel(caller, target, accepted.taskId, running.event.revision),
        'events.revision-increments',
      );
      const history = await awaitSettled(context, caller, accepted.taskId);
      const states = history.map((received) => statusState(received) ?? received.event.type);
      expectThat(
        states.includes('cancelling') && terminalPayload(history).state === 'completed',
        'events.revision-increments',
        'status cancelling, then completed',
        states.join(', '),
      );
    },
  },
  {
    name: 'conflict-after-terminal',
    requirements: [CONFLICT],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-38'],
    statement: 'A cancellation of a task that settled before any cancellation was accepted gets conflict.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      await requireToolFeatures(caller, target, 'script', ['cancel']);
      const { accepted } = await startTask(context, caller, target, 'script', { steps: [{ complete: {} }] });
      const history = await awaitSettled(context, caller, accepted.taskId);
      const revision = history.at(-1)?.event.revision ?? 0;
      expectStanzaError(
        context,
        await sendCancel(caller, target, accepted.taskId, revision),
        CONFLICT,
        'conflict',
      );
    },
  },
  {
    name: 'deadline-expiry',
    requirements: ['cancellation.deadline-expiry'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-32'],
    statement: 'A task still running when its deadline arrives settles failed with code deadline-expired.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const { accepted } = await startTask(
        context,
        caller,
        target,
        'script',
        { steps: [{ wait: { onCancel: 'ignore' } }] },
        {
          deadline: dateTimeFromMillis(Date.now() + 300),
        },
      );
      const history = await awaitSettled(context, caller, accepted.taskId);
      const { state, payload } = terminalPayload(history);
      expectThat(
        state === 'failed' && failureCode(payload) === 'deadline-expired',
        'cancellation.deadline-expiry',
        'failed with code deadline-expired',
        history.at(-1)?.stanza.xml ?? '',
      );
    },
  },
  {
    name: 'deadline-instants',
    requirements: ['cancellation.exact-instant-comparison', 'cancellation.deadline-at-commit'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-31'],
    statement:
      'A deadline written with a +05:30 offset and seven fractional digits is compared as the instant it names: a completion 150 ms before it commits, one 150 ms after it is not applied and the task fails with deadline-expired.',
    run: async (context) => {
      const before = await deadlineOutcome(context, -150);
      expectThat(
        before.state === 'completed',
        'cancellation.exact-instant-comparison',
        'completed before the deadline',
        before.xml,
      );
      const after = await deadlineOutcome(context, 150);
      expectThat(
        after.state === 'failed' && after.code === 'deadline-expired',
        'cancellation.deadline-at-commit',
        'failed with deadline-expired, the late completion not applied',
        after.xml,
      );
    },
  },
]);
