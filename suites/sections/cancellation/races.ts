/**
 * Cancellation races (issue 14, item 1): cancel vs completion; deadline vs completion, with
 * cancels and reads. The race machinery and the task model's verdict: ../support/races.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import fc from 'fast-check';
import { dateTimeFromMillis, parseDateTime, toEpochMillis } from '../../../protocol/datetime.ts';
import type { TerminalOutcome } from '../../../protocol/tasks/history.ts';
import { HistoryRecorder, checkRaces } from '../support/task-history.ts';
import { type GatewayClock, measureGatewayClock } from '../support/gateway-clock.ts';
import { freshLedgerKey } from '../support/ledger.ts';
import {
  requirements,
  type Owner,
  cast,
  type Step,
  owner,
  cancelStep,
  readStep,
  describeSteps,
  race,
  fireAll,
  finish,
  admit,
  accepted,
  COMPLETED,
  CANCELLED,
} from '../support/races.ts';

interface CancelSchedule {
  readonly invoker: Owner;
  readonly waitMs: number;
  readonly onCancel: 'confirm' | 'ignore' | 'proceed';
  readonly cancels: readonly Step[];
  readonly late: readonly Step[];
  readonly reads: readonly Step[];
}

const cancelSchedule: fc.Arbitrary<CancelSchedule> = fc.record({
  invoker: owner,
  waitMs: fc.integer({ min: 5, max: 50 }),
  onCancel: fc.constantFrom('confirm' as const, 'ignore' as const, 'proceed' as const),
  cancels: fc.array(cancelStep(80), { minLength: 1, maxLength: 4 }),
  // Sent once the settlement reached a caller: after a completion that won, each gets conflict.
  late: fc.array(cancelStep(20), { minLength: 1, maxLength: 2 }),
  reads: fc.array(readStep(80), { maxLength: 5 }),
});

const cancelVsCompletion: CaseDeclaration<'cancellation'> = {
  id: 'cancellation.race-cancel-vs-completion',
  requirements: [
    'cancellation.settled-first-conflict',
    'cancellation.identical-replay',
    'cancellation.different-tuple-conflict',
    'cancellation.acceptance-retention',
    'task-states.terminal-immutable',
    'task-recovery.caller-authorization',
  ],
  profiles: ['interactive-tasks'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-33', 'interp-36', 'interp-38', 'interp-39'],
  timeoutMs: 240_000,
  statement:
    'Cancellations from three resources of the caller (identical, with other reasons, stale) race the completion of a short wait, while other accounts send cancels and reads: either a cancellation is accepted first (cancelling at its revision, then cancelled or completed) and its identical replays return it, or the completion commits first and every cancellation gets conflict; the terminal state never changes and the tool runs once.',
  run: async (context) => {
    const raceCast = await cast(context, ['cancel']);
    await checkRaces(context, {
      arbitrary: cancelSchedule,
      iterations: [4, 60],
      describe: (s) =>
        `invoker ${s.invoker}, wait ${String(s.waitMs)} ms, onCancel ${s.onCancel}: ${describeSteps([...s.cancels, ...s.reads])}; after settlement ${describeSteps(s.late)}`,
      requirementOf: requirements({ 'terminal-outcome': 'cancellation.acceptance-retention' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-cancel');
        const taskId = await admit(context, raceCast, recorder, schedule.invoker, {
          ledgerKey: key,
          steps: [
            { wait: { ms: schedule.waitMs, onCancel: schedule.onCancel } },
            { complete: { content: [{ type: 'text', text: 'done' }] } },
          ],
        });
        const current = race(context, raceCast, recorder, taskId);
        await fireAll(current, [...schedule.cancels, ...schedule.reads]);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key], () =>
          fireAll(current, schedule.late),
        );
        return {
          history,
          // #cancellation: advisory; the target chooses the terminal state once one was accepted.
          expectations: {
            settled: true,
            terminals: accepted(current, 'cancel-accepted') ? [COMPLETED, CANCELLED] : [COMPLETED],
          },
        };
      },
    });
  },
};

interface DeadlineSchedule {
  readonly invoker: Owner;
  readonly aheadMs: number;
  /** When the tool completes, relative to the deadline (on the gateway's clock). */
  readonly completionMs: number;
  readonly steps: readonly Step[];
}

const deadlineSchedule: fc.Arbitrary<DeadlineSchedule> = fc.record({
  invoker: owner,
  aheadMs: fc.integer({ min: 50, max: 90 }),
  completionMs: fc.integer({ min: -30, max: 30 }),
  steps: fc.array(fc.oneof(readStep(120), cancelStep(120)), { minLength: 2, maxLength: 6 }),
});

const DEADLINE_EXPIRED: TerminalOutcome = { state: 'failed', code: 'deadline-expired' };

const deadlineVsCompletion: CaseDeclaration<'cancellation'> = {
  id: 'cancellation.race-deadline-vs-completion',
  requirements: [
    'cancellation.deadline-at-commit',
    'cancellation.deadline-expiry',
    'task-states.terminal-immutable',
    'task-recovery.state-contents',
  ],
  profiles: ['task-execution'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-30', 'interp-33', 'interp-39'],
  timeoutMs: 240_000,
  statement:
    "A tool completes at an instant drawn within 30 ms either side of the task's deadline (both on the gateway's clock) while several callers read state and result and cancel: a completion after the deadline is never committed (failed with deadline-expired), one before it may be, and whatever settles first stays.",
  run: async (context) => {
    const raceCast = await cast(context, []);
    const clock: GatewayClock = await measureGatewayClock(raceCast.ownerTasks);
    await checkRaces(context, {
      arbitrary: deadlineSchedule,
      iterations: [2, 50],
      describe: (s) =>
        `invoker ${s.invoker}, deadline +${String(s.aheadMs)} ms, completion ${s.completionMs >= 0 ? '+' : ''}${String(s.completionMs)} ms from it: ${describeSteps(s.steps)}`,
      requirementOf: requirements({ 'terminal-outcome': 'cancellation.deadline-at-commit' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-deadline');
        const deadline = clock.ahead(schedule.aheadMs);
        // A wake-up after the deadline on the same clock: its completion would commit after it.
        const wake = dateTimeFromMillis(
          toEpochMillis(deadline) + schedule.completionMs + (schedule.completionMs > 0 ? 1 : 0),
        );
        const taskId = await admit(
          context,
          raceCast,
          recorder,
          schedule.invoker,
          { ledgerKey: key, steps: [{ wait: { until: wake.text, onCancel: 'ignore' } }, { complete: {} }] },
          deadline,
        );
        const current = race(context, raceCast, recorder, taskId);
        await fireAll(current, schedule.steps);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key]);
        const terminals = schedule.completionMs > 0 ? [DEADLINE_EXPIRED] : [COMPLETED, DEADLINE_EXPIRED];
        // Kept only about a second past its deadline (the short-retention SUT): on a slow machine
        // the last reads may come after retain-until, and item-not-found is then the answer.
        const admitted = recorder.operations[0]?.result;
        const retainUntil =
          admitted?.type === 'ok' && admitted.value.kind === 'accepted'
            ? admitted.value.retainUntil
            : undefined;
        return {
          history:
            retainUntil === undefined
              ? history
              : {
                  ...history,
                  purgeableFrom: performance.now() + clock.notBefore(parseDateTime(retainUntil)) - Date.now(),
                },
          // A gateway may settle an accepted cancellation itself (#cancellation: the target chooses).
          expectations: {
            settled: true,
            terminals: accepted(current, 'cancel-accepted') ? [...terminals, CANCELLED] : terminals,
          },
        };
      },
    });
  },
};

export const raceCases: readonly CaseDeclaration<'cancellation'>[] = [
  cancelVsCompletion,
  deadlineVsCompletion,
];
