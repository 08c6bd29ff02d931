/**
 * Idempotency races (issue 14, item 1): identical invocations in flight from three resources, a
 * changed one, and the same request ID from other accounts. The race machinery and the task
 * model's verdict: ../support/races.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import fc from 'fast-check';
import { setTimeout as delay } from 'node:timers/promises';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { HistoryRecorder, checkRaces, type RaceOutcome, type RaceProcess } from '../support/task-history.ts';
import { freshLedgerKey, readLedger } from '../support/ledger.ts';
import { freshRequestId } from '../support/task-session.ts';
import {
  requirements,
  OWNERS,
  type Owner,
  FOREIGN,
  type Foreign,
  type RaceCast,
  cast,
  type Step,
  owner,
  describeSteps,
  race,
  fire,
  awaitTerminal,
  finish,
  invokeOf,
  COMPLETED,
} from '../support/races.ts';

interface DuplicateSchedule {
  readonly waitMs: number;
  /** Invocations with the one request ID: owners (identical, or with changed arguments) and other accounts. */
  readonly invokes: readonly {
    readonly by: Owner | Foreign;
    readonly at: number;
    readonly changed: boolean;
  }[];
  readonly reads: readonly Step[];
}

const duplicateSchedule: fc.Arbitrary<DuplicateSchedule> = fc.integer({ min: 10, max: 60 }).chain((waitMs) =>
  fc.record({
    waitMs: fc.constant(waitMs),
    // Always an identical pair from the caller's resources (the second may come while the task
    // runs), then more: identical, changed or from other accounts, most in flight together.
    invokes: fc
      .tuple(
        fc.record({ by: owner, at: fc.integer({ min: 0, max: 4 }), changed: fc.constant(false) }),
        fc.record({ by: owner, at: fc.integer({ min: 0, max: waitMs }), changed: fc.constant(false) }),
        fc.array(
          fc.record({
            by: fc.constantFrom<Owner | Foreign>(...OWNERS, ...FOREIGN),
            at: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: waitMs + 10 })),
            changed: fc.constantFrom(false, false, true),
          }),
          { maxLength: 4 },
        ),
      )
      .map(([original, duplicate, more]) => [original, duplicate, ...more]),
    reads: fc.array(
      fc.record({
        op: fc.constantFrom('state' as const, 'result' as const),
        by: owner,
        at: fc.integer({ min: 5, max: waitMs + 20 }),
      }),
      { maxLength: 3 },
    ),
  }),
);

/** A schedule as the shrunk counterexample prints it: each invocation by whom and when, then the reads. */
function describeDuplicates(schedule: DuplicateSchedule): string {
  const invokes = [...schedule.invokes]
    .sort((x, y) => x.at - y.at)
    .map((i) => `${i.by}:invoke${i.changed ? '/changed' : ''}@${String(i.at)}`)
    .join(' ');
  return `wait ${String(schedule.waitMs)} ms: ${invokes} ${describeSteps(schedule.reads)}`;
}

/** The ledger keys of one schedule: the caller's identical and changed invocations, and each other account's. */
interface DuplicateLedger {
  readonly same: string;
  readonly changed: string;
  readonly foreign: Readonly<Record<Foreign, string>>;
}

function duplicateLedger(context: CaseContext): DuplicateLedger {
  const same = freshLedgerKey(context, 'race-dup');
  const changed = freshLedgerKey(context, 'race-dup-changed');
  const peer = freshLedgerKey(context, 'race-dup-peer');
  const remote = freshLedgerKey(context, 'race-dup-remote');
  return { same, changed, foreign: { peer, remote } };
}

const isForeign = (by: Owner | Foreign): by is Foreign => by === 'peer' || by === 'remote';

/** The arguments each invocation carries: only the caller's identical ones wait, so they overlap the run. */
function argumentsOf(
  ledger: DuplicateLedger,
  waitMs: number,
  by: Owner | Foreign,
  changed: boolean,
): JsonValue {
  if (isForeign(by)) return { ledgerKey: ledger.foreign[by], steps: [{ complete: {} }] };
  if (changed) return { ledgerKey: ledger.changed, steps: [{ complete: {} }] };
  return { ledgerKey: ledger.same, steps: [{ wait: { ms: waitMs } }, { complete: {} }] };
}

/**
 * Fires every invocation and read of the schedule at its offset; returns the task of the first
 * invocation of the caller's that was accepted (reads before it have nothing to read).
 */
async function fireDuplicates(
  context: CaseContext,
  raceCast: RaceCast,
  recorder: HistoryRecorder,
  schedule: DuplicateSchedule,
  ledger: DuplicateLedger,
  requestId: string,
): Promise<string | undefined> {
  const owner = raceCast.owners.a.caller.bareJid;
  const processOf = (by: Owner | Foreign): RaceProcess =>
    isForeign(by) ? raceCast.foreign[by] : raceCast.owners[by];
  const start = performance.now();
  let taskId: string | undefined;
  await Promise.all([
    ...schedule.invokes.map(async (step) => {
      const wait = step.at - (performance.now() - start);
      if (wait > 0) await delay(wait);
      const operation = await recorder.invoke(
        processOf(step.by),
        invokeOf(raceCast.target, argumentsOf(ledger, schedule.waitMs, step.by, step.changed), requestId),
      );
      if (
        taskId === undefined &&
        operation.principal === owner &&
        operation.result.type === 'ok' &&
        operation.result.value.kind === 'accepted'
      ) {
        taskId = operation.result.value.taskId;
      }
    }),
    ...schedule.reads.map(async (step) => {
      const wait = step.at - (performance.now() - start);
      if (wait > 0) await delay(wait);
      if (taskId === undefined) return;
      await fire(race(context, raceCast, recorder, taskId), step);
    }),
  ]);
  return taskId;
}

/** Without an accepted invocation of the caller's, a schedule that had some cannot tell. */
function requireOwnerAdmitted(recorder: HistoryRecorder, owner: string): void {
  const owned = recorder.operations.filter((operation) => operation.principal === owner);
  if (owned.length === 0) return;
  throw new CannotTell(
    `none of the caller's invocations was admitted: ${owned.map((operation) => (operation.result.type === 'fail' ? operation.result.condition : operation.result.type)).join(', ')}`,
  );
}

/** Each other account's own task (not the caller's): settled, completed, run once by its ledger key. */
async function foreignOutcomes(
  context: CaseContext,
  raceCast: RaceCast,
  recorder: HistoryRecorder,
  ledger: DuplicateLedger,
  ownerTask: string | undefined,
): Promise<RaceOutcome[]> {
  const outcomes: RaceOutcome[] = [];
  for (const name of FOREIGN) {
    const process = raceCast.foreign[name];
    const theirs = recorder.operations.filter(
      (operation) =>
        operation.process === name &&
        operation.result.type === 'ok' &&
        operation.result.value.kind === 'accepted',
    );
    const first = theirs[0];
    if (first?.result.type !== 'ok' || first.result.value.kind !== 'accepted') continue;
    const foreignTask = first.result.value.taskId;
    if (foreignTask === ownerTask) continue; // the owner's history reports it (invoke-scope)
    await awaitTerminal(context, foreignTask, [process]);
    const executions = await readLedger(
      raceCast.ownerTasks,
      ledger.foreign[name],
      'invocation.replay-same-task',
    );
    const principal = process.caller.bareJid;
    const all = recorder.history(principal, foreignTask, [process], executions);
    outcomes.push({
      // Only that account's own operations: the owner's reads are about another task.
      history: {
        ...all,
        operations: all.operations.filter((operation) => operation.principal === principal),
      },
      expectations: { settled: true, terminals: [COMPLETED] },
    });
  }
  return outcomes;
}

const duplicateInvokes: CaseDeclaration<'idempotency'> = {
  id: 'idempotency.race-duplicate-invokes',
  requirements: ['invocation.replay-same-task', 'invocation.replay-conflict', 'idempotency.immediate-sender'],
  profiles: ['task-execution'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-28'],
  timeoutMs: 240_000,
  statement:
    "The same request ID is invoked at once from three resources of the caller (most identical, some with changed arguments) and from two other accounts, in flight together and while the task runs: the caller's identical invocations all return one task, which runs once by the out-of-band ledger; a changed one gets conflict (or wins and makes the others conflict); each other account gets a task of its own, also run once.",
  run: async (context) => {
    const raceCast = await cast(context, []);
    const owner = raceCast.owners.a.caller.bareJid;
    await checkRaces(context, {
      arbitrary: duplicateSchedule,
      iterations: [3, 60],
      describe: describeDuplicates,
      requirementOf: requirements({ 'terminal-outcome': 'invocation.replay-same-task' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const requestId = freshRequestId(context);
        const ledger = duplicateLedger(context);
        const taskId = await fireDuplicates(context, raceCast, recorder, schedule, ledger, requestId);
        // No owner invocation in this schedule (or none admitted): only the other accounts' tasks.
        if (taskId === undefined) requireOwnerAdmitted(recorder, owner);
        const others = await foreignOutcomes(context, raceCast, recorder, ledger, taskId);
        if (taskId === undefined) {
          return { history: recorder.history(owner, '', raceCast.ownerList), expectations: {}, others };
        }
        const changedRan = schedule.invokes.some((step) => step.changed && !isForeign(step.by));
        const keys = changedRan ? [ledger.same, ledger.changed] : [ledger.same];
        const history = await finish(race(context, raceCast, recorder, taskId), owner, keys);
        return { history, expectations: { settled: true, terminals: [COMPLETED] }, others };
      },
    });
  },
};

export const raceCases: readonly CaseDeclaration<'idempotency'>[] = [duplicateInvokes];
