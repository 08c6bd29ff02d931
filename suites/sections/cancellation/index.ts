/**
 * #cancellation: an accepted cancellation moves the task to cancelling at the revision it
 * returns and stays advisory (the tool confirms, or completes anyway); identical replays return
 * the original acceptance, also after settlement; another tuple, a stale expected revision or a
 * cancel after settlement gets conflict; output the tool reports after terminal `cancelled` is
 * discarded. Deadlines, placed on the gateway's clock as measured from the times it reports:
 * expiry settles failed with deadline-expired, a mutation at or after the deadline is not
 * applied, and instants are compared with their offsets and every fractional digit.
 */
import {
  dateTimeFromMillis,
  parseDateTime,
  toEpochMillis,
  type XmppDateTime,
} from '../../../protocol/datetime.ts';
import { isJsonObject } from '../../../protocol/json/json-value.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { type GatewayClock, measureGatewayClock } from '../support/gateway-clock.ts';
import { freshLedgerKey, untilCounted } from '../support/ledger.ts';
import { statusState, terminalPayload } from '../support/task-events.ts';
import { expectCancelAccepted, expectTaskState } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { requireToolFeatures } from '../support/tool-features.ts';
import { deadlineClassCases } from './deadline-classes.ts';
import { linkFaultCases } from './link-faults.ts';
import { modelCases } from './model-checks.ts';
import { raceCases } from './races.ts';
import { reasonIdentityCases } from './reason-identity.ts';

/** The tool's own reason: a cancelled payload carrying it was committed by the tool's cancel step. */
const TOOL_REASON = 'confirmed by the tool, late output follows';

/** The failure code of a failed terminal payload. */
function failureCode(payload: unknown): unknown {
  if (!isJsonObject(payload as never)) return undefined;
  const error = (payload as Record<string, unknown>)['error'];
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['code'] : undefined;
}

/** `instant` written in +05:30 with seven fractional digits (interp-31). */
function oddlyWritten(instant: XmppDateTime): { text: string; millis: number } {
  const millis = toEpochMillis(instant);
  const shifted = new Date(millis + 330 * 60_000).toISOString(); // local time at +05:30
  const text = `${shifted.slice(0, 19)}.${shifted.slice(20, 23)}0001+05:30`;
  return { text, millis };
}

/**
 * A task whose completion is placed `wakeOffsetMs` from its deadline, both on the gateway's
 * clock: the deadline 400 ms ahead of the gateway's time as measured (never in its past, whatever
 * its offset from ours), the tool waking at an instant the gateway compares with it.
 */
async function deadlineOutcome(
  context: CaseContext,
  clock: GatewayClock,
  wakeOffsetMs: number,
): Promise<{ state: string; code: unknown; xml: string }> {
  const target = conformanceTarget(context);
  const caller = await context.callers.local();
  const tasks = new TaskSession(context, caller, target);
  const deadline = oddlyWritten(clock.ahead(400));
  const until = dateTimeFromMillis(deadline.millis + wakeOffsetMs).text;
  const { accepted } = await tasks.start(
    'script',
    {
      steps: [
        { wait: { until, onCancel: 'ignore' } },
        { complete: { structuredContent: { value: 'late?' } } },
      ],
    },
    { deadline: parseDateTime(deadline.text) },
  );
  const history = await tasks.awaitSettled(accepted.taskId, {
    requirement: 'cancellation.deadline-expiry',
    expected:
      'the task settles once its deadline passes: completed before it, failed with deadline-expired after',
  });
  const { state, payload } = terminalPayload(history);
  return {
    state,
    code: failureCode(payload),
    xml: history.map((received) => received.stanza.xml).join('\n'),
  };
}

export const cancellationSuite = defineSuite('cancellation', 'Cancellation and Deadlines', [
  {
    id: 'cancellation.advisory-cancelled-with-replays',
    requirements: [
      'cancellation.identical-replay',
      'cancellation.different-tuple-conflict',
      'cancellation.acceptance-retention',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-33', 'interp-38'],
    statement:
      'A cancellation is accepted at the revision of the cancelling status event, the tool confirms and the task settles cancelled; the identical cancel repeated before and after settlement returns the original acceptance, and a cancel with another reason gets conflict.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const { accepted } = await tasks.start('script', { steps: [{ wait: {} }] });
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      const first = await tasks.cancel(accepted.taskId, running.event.revision, 'stop, please');
      const cancelAccepted = expectCancelAccepted(first, 'cancellation.acceptance-retention');
      const cancelling = await tasks.awaitEvent(
        accepted.taskId,
        'status',
        (payload) => isJsonObject(payload) && payload['state'] === 'cancelling',
      );
      expectThat(
        cancelling.stanza.xml,
        'cancellation.acceptance-retention',
        `the cancelling status event at the revision cancel-accepted returned (${String(cancelAccepted.revision)})`,
        cancelling.event.revision === cancelAccepted.revision && cancelAccepted.taskId === accepted.taskId,
      );
      const check = async (when: string): Promise<void> => {
        const replay = await tasks.cancel(accepted.taskId, running.event.revision, 'stop, please');
        const again = expectCancelAccepted(replay, 'cancellation.identical-replay');
        expectThat(
          replay.reply.xml,
          'cancellation.identical-replay',
          `${when}: the original <cancel-accepted revision='${String(cancelAccepted.revision)}'/>`,
          again.taskId === cancelAccepted.taskId && again.revision === cancelAccepted.revision,
        );
        const other = await tasks.cancel(accepted.taskId, running.event.revision, 'another reason');
        expectStanzaError(other, 'cancellation.different-tuple-conflict', 'conflict', context);
      };
      await check('while cancelling');
      const history = await tasks.awaitSettled(accepted.taskId);
      expectThat(
        history.at(-1)?.stanza.xml ?? '',
        'cancellation.acceptance-retention',
        'settled cancelled',
        terminalPayload(history).state === 'cancelled',
      );
      await check('after settlement');
    },
  },
  {
    id: 'cancellation.cancelling-then-completed',
    requirements: ['events.revision-increments', 'task-states.permitted-transitions'],
    interpretations: ['interp-33'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'Cancelling is not terminal: a tool that goes on after an accepted cancellation may still complete the task.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const { accepted } = await tasks.start('script', {
        steps: [
          { wait: { onCancel: 'proceed' } },
          { complete: { content: [{ type: 'text', text: 'finished anyway' }] } },
        ],
      });
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      expectCancelAccepted(
        await tasks.cancel(accepted.taskId, running.event.revision),
        'events.revision-increments',
      );
      const history = await tasks.awaitSettled(accepted.taskId);
      const states = history.map((received) => statusState(received) ?? received.event.type);
      expectThat(
        states.join(', '),
        'events.revision-increments',
        'status cancelling, then completed',
        states.includes('cancelling') && terminalPayload(history).state === 'completed',
      );
    },
  },
  {
    id: 'cancellation.output-after-cancelled-discarded',
    requirements: ['cancellation.output-after-cancelled-discarded'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    statement:
      'After the task settled cancelled, the tool reports progress, a completion and a failure: the gateway emits no further event, and task-state and task-result keep the cancelled state, revision and payload.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const key = freshLedgerKey(context, 'late-output');
      const { accepted } = await tasks.start('script', {
        steps: [
          { wait: { onCancel: 'proceed' } },
          { cancel: { reason: TOOL_REASON } },
          { progress: { percent: 99, message: 'late' } },
          { complete: { content: [{ type: 'text', text: 'late' }], structuredContent: { value: 'late' } } },
          { fail: { code: 'org.agentconf.suite:late', message: 'late', retryable: false } },
          { increment: { key } },
        ],
      });
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      expectCancelAccepted(
        await tasks.cancel(accepted.taskId, running.event.revision),
        'cancellation.output-after-cancelled-discarded',
      );
      // Not awaitSettled: a late event breaks this requirement, which the case names itself.
      const settled = await tasks.awaitFirstTerminal(accepted.taskId);
      expectThat(
        settled.xml,
        'cancellation.output-after-cancelled-discarded',
        'settled cancelled, as the tool confirmed',
        settled.state === 'cancelled',
      );
      if (!isJsonObject(settled.payload) || settled.payload['reason'] !== TOOL_REASON) {
        // The gateway settled the cancellation itself, which ends the script before its cancel
        // step (docs/conformance-tools.md, "wait"): the tool never gets to report late output.
        throw new MissingFixture(
          'the gateway settled the cancellation itself, so the conformance tools stopped before their late output (docs/conformance-tools.md, "wait"): nothing was reported to discard. A gateway that lets its runtime confirm cancellations (the tools\' cancel step) decides this case',
        );
      }
      await untilCounted(tasks, key, 'cancellation.output-after-cancelled-discarded');
      await tasks.expectSettlementKept(
        accepted.taskId,
        settled,
        'cancellation.output-after-cancelled-discarded',
      );
    },
  },
  {
    id: 'cancellation.conflict-after-terminal',
    requirements: ['cancellation.settled-first-conflict', 'task-states.terminal-immutable'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-38'],
    statement:
      'A cancellation of a task that settled before any cancellation was accepted gets conflict, and the task stays as it settled.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const { accepted } = await tasks.start('script', { steps: [{ complete: {} }] });
      const history = await tasks.awaitSettled(accepted.taskId);
      const revision = history.at(-1)?.event.revision ?? 0;
      expectStanzaError(
        await tasks.cancel(accepted.taskId, revision),
        'cancellation.settled-first-conflict',
        'conflict',
        context,
      );
      const exchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(exchange, 'task-states.terminal-immutable');
      expectThat(
        exchange.reply.xml,
        'task-states.terminal-immutable',
        `still completed at revision ${String(revision)}`,
        state.state === 'completed' && state.revision === revision,
      );
    },
  },
  {
    id: 'cancellation.stale-revision-refused',
    requirements: ['cancellation.stale-revision-conflict'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-36', 'interp-42'],
    statement:
      'A cancellation naming revision 0 after the task moved to running (a state transition later) gets conflict and leaves the task running; one naming a revision the task has not reached gets conflict or bad-request; the same cancellation at the current revision is then accepted.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      await requireToolFeatures(tasks, 'script', ['cancel']);
      const { accepted } = await tasks.start('script', { steps: [{ wait: {} }] });
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      const current = running.event.revision;
      expectStanzaError(
        await tasks.cancel(accepted.taskId, current - 1),
        'cancellation.stale-revision-conflict',
        'conflict',
        context,
      );
      expectStanzaError(
        await tasks.cancel(accepted.taskId, current + 5),
        'cancellation.stale-revision-conflict',
        ['conflict', 'bad-request'],
        context,
      );
      const exchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(exchange, 'cancellation.stale-revision-conflict');
      expectThat(
        exchange.reply.xml,
        'cancellation.stale-revision-conflict',
        `still running at revision ${String(current)}: the refused cancellations changed nothing`,
        state.state === 'running' && state.revision === current,
      );
      // The positive control: the refusals were about the revision, not about cancelling.
      expectCancelAccepted(
        await tasks.cancel(accepted.taskId, current),
        'cancellation.stale-revision-conflict',
      );
      await tasks.awaitSettled(accepted.taskId);
    },
  },
  {
    id: 'cancellation.revision-behind-by-progress',
    requirements: ['cancellation.stale-revision-conflict', 'events.revision-increments'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-36'],
    statement:
      'A cancellation naming the revision of the running status after two progress updates (behind by progress only) is either accepted — then at the revision of the cancelling status event that follows, and the task settles — or refused with conflict, leaving the task running at its revision, after which the cancellation at the current revision is accepted.',
    run: async (context) => {
      const tasks = new TaskSession(context, await context.callers.local(), conformanceTarget(context));
      await requireToolFeatures(tasks, 'script', ['cancel', 'progress']);
      const key = freshLedgerKey(context, 'behind-by-progress');
      const { accepted } = await tasks.start('script', {
        steps: [
          { progress: { percent: 10 } },
          { progress: { percent: 20 } },
          { increment: { key } },
          { wait: {} },
        ],
      });
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      // Once the ledger counted, the tool has reported both updates; task-state says how many the
      // gateway committed (it may coalesce or drop them, #security).
      await untilCounted(tasks, key, 'cancellation.stale-revision-conflict');
      const latest = expectTaskState(
        await tasks.state(accepted.taskId),
        'cancellation.stale-revision-conflict',
      );
      if (latest.revision === running.event.revision) {
        await tasks.cancel(accepted.taskId, latest.revision);
        await tasks.awaitSettled(accepted.taskId);
        throw new CannotTell(
          'the gateway committed neither progress update: the revision is not behind by progress',
        );
      }
      const stale = await tasks.cancel(accepted.taskId, running.event.revision);
      if (stale.parsed.type === 'error') {
        expectStanzaError(stale, 'cancellation.stale-revision-conflict', 'conflict', context);
        const exchange = await tasks.state(accepted.taskId);
        const state = expectTaskState(exchange, 'cancellation.stale-revision-conflict');
        expectThat(
          exchange.reply.xml,
          'cancellation.stale-revision-conflict',
          `still running at revision ${String(latest.revision)}: the refused cancellation changed nothing`,
          state.state === 'running' && state.revision === latest.revision,
        );
      }
      const cancelAccepted = expectCancelAccepted(
        stale.parsed.type === 'result' ? stale : await tasks.cancel(accepted.taskId, latest.revision),
        'cancellation.stale-revision-conflict',
      );
      const cancelling = await tasks.awaitEvent(
        accepted.taskId,
        'status',
        (payload) => isJsonObject(payload) && payload['state'] === 'cancelling',
      );
      expectThat(
        cancelling.stanza.xml,
        'events.revision-increments',
        `the cancelling status event at the revision cancel-accepted returned (${String(cancelAccepted.revision)}), one above the last progress update`,
        cancelling.event.revision === cancelAccepted.revision &&
          cancelling.event.revision === latest.revision + 1,
      );
      await tasks.awaitSettled(accepted.taskId);
    },
  },
  {
    id: 'cancellation.deadline-expiry',
    requirements: ['cancellation.deadline-expiry'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-32'],
    statement:
      "A task still running when its deadline arrives settles failed with code deadline-expired (the deadline placed 300 ms ahead on the gateway's clock as measured from the times it reports).",
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const clock = await measureGatewayClock(tasks);
      const { accepted } = await tasks.start(
        'script',
        { steps: [{ wait: { onCancel: 'ignore' } }] },
        { deadline: clock.ahead(300) },
        'cancellation.deadline-expiry',
      );
      const history = await tasks.awaitSettled(accepted.taskId, {
        requirement: 'cancellation.deadline-expiry',
        expected: 'failed with code deadline-expired once the deadline, 300 ms ahead, has passed',
      });
      const { state, payload } = terminalPayload(history);
      expectThat(
        history.at(-1)?.stanza.xml ?? '',
        'cancellation.deadline-expiry',
        'failed with code deadline-expired',
        state === 'failed' && failureCode(payload) === 'deadline-expired',
      );
    },
  },
  {
    id: 'cancellation.deadline-instants',
    requirements: [
      'cancellation.exact-instant-comparison',
      'cancellation.deadline-at-commit',
      'cancellation.deadline-expiry',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-31'],
    statement:
      "A deadline written with a +05:30 offset and seven fractional digits is compared as the instant it names: a completion 150 ms before it commits, one 150 ms after it is not applied and the task fails with deadline-expired (deadline and completion both on the gateway's clock, as measured from the times it reports).",
    run: async (context) => {
      const caller = await context.callers.local();
      const clock = await measureGatewayClock(new TaskSession(context, caller, conformanceTarget(context)));
      // Independent tasks: both run at once.
      const [before, after] = await Promise.all([
        deadlineOutcome(context, clock, -150),
        deadlineOutcome(context, clock, 150),
      ]);
      expectThat(
        before.xml,
        'cancellation.exact-instant-comparison',
        'completed before the deadline',
        before.state === 'completed',
      );
      // Applied 150 ms late, the completion was compared to something coarser than the instant
      // named (cancellation.deadline-expiry cases show whether deadlines are checked at all).
      expectThat(
        after.xml,
        after.state === 'completed'
          ? 'cancellation.exact-instant-comparison'
          : 'cancellation.deadline-at-commit',
        'failed with deadline-expired, the late completion not applied',
        after.state === 'failed' && after.code === 'deadline-expired',
      );
    },
  },
  ...deadlineClassCases,
  ...linkFaultCases,
  ...raceCases,
  ...modelCases,
  ...reasonIdentityCases,
]);
