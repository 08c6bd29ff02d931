/**
 * Interactive-input races (issue 14, item 1): input vs expiry; input vs cancel. The race
 * machinery and the task model's verdict: ../support/races.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import fc from 'fast-check';
import { HistoryRecorder, checkRaces } from '../support/task-history.ts';
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
  type Race,
  race,
  fireAll,
  TERMINAL_TYPES,
  finish,
  admit,
  accepted,
  COMPLETED,
  CANCELLED,
} from '../support/races.ts';

function inputStep(maxAt: number): fc.Arbitrary<Extract<Step, { op: 'input' }>> {
  return fc.record({
    op: fc.constant('input' as const),
    by: owner,
    at: fc.integer({ min: 0, max: maxAt }),
    value: fc.constantFrom(0 as const, 1 as const, 2 as const),
    latest: fc.boolean(),
    stale: fc.constantFrom(false, false, false, true),
  });
}

function repeatStep(maxAt: number): fc.Arbitrary<Step> {
  return fc.record({
    op: fc.constant('repeat' as const),
    by: owner,
    at: fc.integer({ min: 0, max: maxAt }),
  });
}

/** A repeat after `from` ms (the last request's expiry): whatever answer was accepted, replayed late. */
function lateRepeatStep(from: number, maxAt: number): fc.Arbitrary<Step> {
  return fc.record({
    op: fc.constant('repeat' as const),
    by: owner,
    at: fc.integer({ min: from + 1, max: maxAt }),
  });
}

const INPUT_SCHEMA = { type: 'object' };

interface ExpirySchedule {
  readonly invoker: Owner;
  readonly expiresMs: number;
  readonly reissue: 0 | 1;
  readonly answers: readonly Step[];
  readonly reads: readonly Step[];
  /** Mostly after the request expired: an identical replay is decided before any expiry check. */
  readonly repeats: readonly Step[];
}

const expirySchedule: fc.Arbitrary<ExpirySchedule> = fc
  .record({
    invoker: owner,
    expiresMs: fc.integer({ min: 30, max: 80 }),
    reissue: fc.constantFrom(0 as const, 1 as const),
  })
  .chain((base) => {
    const span = base.expiresMs * (base.reissue + 1) + 20;
    return fc.record({
      invoker: fc.constant(base.invoker),
      expiresMs: fc.constant(base.expiresMs),
      reissue: fc.constant(base.reissue),
      answers: fc.array(inputStep(span), { minLength: 1, maxLength: 4 }),
      reads: fc.array(readStep(span), { maxLength: 4 }),
      // One repeat always lands after the last request's expiry: the replay that an expiry check
      // placed before the replay record refuses. Uniform offsets put it there in about one schedule
      // in twenty (docs/timing.md "Race schedules"); the others still fall anywhere.
      repeats: fc
        .tuple(lateRepeatStep(span - 20, span + 40), fc.array(repeatStep(span + 40), { maxLength: 2 }))
        .map(([late, rest]) => [late, ...rest]),
    });
  });

/** Waits for the first input request: the race clock of the input families starts there. */
async function awaitInputRequest(current: Race): Promise<void> {
  const { context, taskId, cast: raceCast } = current;
  if (current.inputRequests().length > 0) return;
  await Promise.any(
    raceCast.ownerList.map((process) =>
      process.caller.events.waitFor(
        taskId,
        (received) =>
          received.valid &&
          (received.event.type === 'input_required' || TERMINAL_TYPES.has(received.event.type)),
        { timeoutMs: context.sut.taskTimeoutMs },
        'input_required event',
      ),
    ),
  ).catch(() => {
    throw new Error(`task ${taskId} asked for no input within ${String(context.sut.taskTimeoutMs)} ms`);
  });
}

const inputVsExpiry: CaseDeclaration<'interactive-input'> = {
  id: 'interactive-input.race-input-vs-expiry',
  requirements: [
    'interactive-input.race-loser-conflict',
    'interactive-input.late-answer-conflict',
    'interactive-input.identical-replay',
    'interactive-input.different-tuple-conflict',
    'interactive-input.expiry-outcome',
    'task-recovery.caller-authorization',
  ],
  profiles: ['interactive-tasks'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-33', 'interp-35', 'interp-36', 'interp-37'],
  timeoutMs: 240_000,
  statement:
    'Answers from three resources of the caller (identical, different, stale, to the first or the re-issued request) race the expiry of a short input request: an answer is accepted only while its request is pending (running at the acceptance revision) and reaches the tool once, every other answer gets conflict, never item-not-found; without an accepted answer the task settles failed.',
  run: async (context) => {
    const raceCast = await cast(context, ['input']);
    await checkRaces(context, {
      arbitrary: expirySchedule,
      // 12: the catalog's two mutants of this case show within 8 schedules in 24 of 24 seeds
      // since every schedule repeats late (mutants/race-schedules.ts, docs/timing.md "Race
      // schedules"); half as much again for a machine whose timing differs from the one measured.
      iterations: [12, 60],
      describe: (s) =>
        `invoker ${s.invoker}, expires ${String(s.expiresMs)} ms, reissue ${String(s.reissue)}: ${describeSteps([...s.answers, ...s.reads, ...s.repeats])}`,
      requirementOf: requirements({ 'terminal-outcome': 'interactive-input.expiry-outcome' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-expiry');
        const taskId = await admit(context, raceCast, recorder, schedule.invoker, {
          ledgerKey: key,
          steps: [
            {
              input: {
                question: 'Now?',
                inputSchema: INPUT_SCHEMA,
                expiresInMs: schedule.expiresMs,
                reissue: schedule.reissue,
              },
            },
            { complete: { echoInputs: true } },
          ],
        });
        const current = race(context, raceCast, recorder, taskId);
        await awaitInputRequest(current);
        await fireAll(current, [...schedule.answers, ...schedule.reads, ...schedule.repeats]);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key]);
        return {
          history,
          expectations: {
            settled: true,
            echoesInputs: true,
            // #interactive-input: expiry issues a new request or settles; the tool here fails.
            terminals: accepted(current, 'input-accepted') ? [COMPLETED] : [{ state: 'failed' }],
          },
        };
      },
    });
  },
};

interface InputCancelSchedule {
  readonly invoker: Owner;
  readonly onCancel: 'confirm' | 'ignore' | 'proceed';
  readonly answers: readonly Step[];
  readonly cancels: readonly Step[];
  readonly reads: readonly Step[];
  readonly repeats: readonly Step[];
}

/**
 * The first of the steps names the current revision. Were every answer and every cancellation
 * stale, all would get conflict and the task would rightly wait for input for ever: a schedule
 * that cannot settle the task tests nothing about the race.
 */
function withOneFresh<T extends { readonly stale: boolean }>(steps: fc.Arbitrary<T>): fc.Arbitrary<T[]> {
  return fc
    .tuple(steps, fc.array(steps, { maxLength: 2 }))
    .map(([first, rest]) => [{ ...first, stale: false }, ...rest]);
}

const inputCancelSchedule: fc.Arbitrary<InputCancelSchedule> = fc.record({
  invoker: owner,
  onCancel: fc.constantFrom('confirm' as const, 'ignore' as const, 'proceed' as const),
  answers: withOneFresh(inputStep(30)),
  cancels: withOneFresh(cancelStep(30)),
  reads: fc.array(readStep(40), { maxLength: 4 }),
  repeats: fc.array(repeatStep(60), { maxLength: 2 }),
});

const inputVsCancel: CaseDeclaration<'interactive-input'> = {
  id: 'interactive-input.race-input-vs-cancel',
  requirements: [
    'interactive-input.race-loser-conflict',
    'interactive-input.identical-replay',
    'cancellation.stale-revision-conflict',
    'cancellation.identical-replay',
    'task-states.terminal-immutable',
  ],
  profiles: ['interactive-tasks'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-33', 'interp-36', 'interp-37'],
  timeoutMs: 240_000,
  statement:
    'Answers and cancellations from three resources of the caller, all naming the input request revision, race each other: exactly one of them commits first — an accepted cancellation supersedes the request (every answer then gets conflict), an accepted answer makes the cancellations stale (conflict) — and the task settles consistently with the winner, the answer reaching the tool once.',
  run: async (context) => {
    const raceCast = await cast(context, ['input', 'cancel']);
    await checkRaces(context, {
      arbitrary: inputCancelSchedule,
      iterations: [3, 60],
      describe: (s) =>
        `invoker ${s.invoker}, onCancel ${s.onCancel}: ${describeSteps([...s.answers, ...s.cancels, ...s.reads, ...s.repeats])}`,
      requirementOf: requirements({ 'terminal-outcome': 'interactive-input.race-loser-conflict' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-input-cancel');
        const taskId = await admit(context, raceCast, recorder, schedule.invoker, {
          ledgerKey: key,
          steps: [
            { input: { question: 'Go on?', inputSchema: INPUT_SCHEMA, onCancel: schedule.onCancel } },
            { complete: { echoInputs: true } },
          ],
        });
        const current = race(context, raceCast, recorder, taskId);
        await awaitInputRequest(current);
        await fireAll(current, [
          ...schedule.answers,
          ...schedule.cancels,
          ...schedule.reads,
          ...schedule.repeats,
        ]);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key]);
        return {
          history,
          expectations: {
            settled: true,
            echoesInputs: true,
            terminals: accepted(current, 'cancel-accepted') ? [COMPLETED, CANCELLED] : [COMPLETED],
          },
        };
      },
    });
  },
};

export const raceCases: readonly CaseDeclaration<'interactive-input'>[] = [inputVsExpiry, inputVsCancel];
