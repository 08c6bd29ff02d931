/**
 * Races with histories (issue 14, item 1): several callers at once against one task — three
 * resources of the task's own account, another account on the gateway's server and one on the
 * federated server — each operation fired at an offset fast-check draws (seeded from the case's
 * random source, so the printed run seed replays the schedules). Every run is recorded as a
 * history (support/task-history.ts) and checked against the task model
 * (protocol/tasks/history.ts); a violating schedule is shrunk and printed with its history.
 *
 * Families, each in the section whose rules decide the race:
 * - #cancellation: cancel vs completion; deadline vs completion (with cancels and reads);
 * - #interactive-input: input vs expiry; input vs cancel;
 * - #idempotency: identical invocations in flight from three resources, a changed one, and the
 *   same request ID from other accounts;
 * - #task-states: state and result queries from every caller while the task moves.
 *
 * Where the spec lets a race go either way (the cancellation or the completion commits first,
 * the answer or the expiry, the completion just before or the expiry at the deadline) every
 * consistent outcome passes; the task model decides consistency, not the order we hoped for.
 */
import fc from 'fast-check';
import { setTimeout as delay } from 'node:timers/promises';
import { dateTimeFromMillis, parseDateTime, toEpochMillis } from '../../protocol/datetime.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { Invoke } from '../../protocol/stanza/index.ts';
import type { HistoryRule, TerminalOutcome } from '../../protocol/tasks/history.ts';
import { defineSuite, type CaseDeclaration } from '../framework/case.ts';
import type { CaseContext } from '../framework/context.ts';
import { CannotTell, MissingFixture } from '../framework/verdicts.ts';
import { requireWorld } from '../fixtures/reference-world.ts';
import type { RequirementId } from '../registry/requirement-ids.ts';
import {
  HistoryRecorder,
  checkRaces,
  knownRevision,
  observedEvents,
  untilRevisionsArrived,
  type RaceOutcome,
  type RaceProcess,
} from './support/task-history.ts';
import {
  conformanceTarget,
  freshLedgerKey,
  freshRequestId,
  localPeer,
  measureGatewayClock,
  readLedger,
  requireToolFeatures,
  type GatewayClock,
  type TaskTarget,
} from './support/tasks.ts';

/** Which model rule breaks which requirement; a family names its own for the terminal outcome. */
const RULE_REQUIREMENTS: Record<HistoryRule, RequirementId> = {
  'event-identity': 'events.replay-identical',
  'revision-gaps': 'events.revision-increments',
  transitions: 'task-states.permitted-transitions',
  'terminal-immutable': 'task-states.terminal-immutable',
  'terminal-outcome': 'task-states.terminal-immutable',
  'state-read': 'task-recovery.state-contents',
  'result-read': 'task-recovery.result-only-terminal',
  'read-order': 'task-recovery.state-contents',
  'cancel-identity': 'cancellation.identical-replay',
  'cancel-tuple': 'cancellation.different-tuple-conflict',
  'cancel-after-terminal': 'cancellation.settled-first-conflict',
  'cancel-revision': 'cancellation.acceptance-retention',
  'cancel-stale': 'cancellation.stale-revision-conflict',
  'input-identity': 'interactive-input.identical-replay',
  'input-tuple': 'interactive-input.different-tuple-conflict',
  'input-superseded': 'interactive-input.race-loser-conflict',
  'input-late-not-found': 'interactive-input.late-answer-conflict',
  'input-applied-once': 'interactive-input.identical-replay',
  'invoke-identity': 'invocation.replay-same-task',
  'invoke-conflict': 'invocation.replay-conflict',
  'invoke-scope': 'invocation.replay-conflict',
  'double-execution': 'invocation.replay-same-task',
  authorization: 'task-recovery.caller-authorization',
  'unexpected-answer': 'task-states.permitted-transitions',
};

function requirements(overrides: Partial<Record<HistoryRule, RequirementId>>) {
  return (rule: HistoryRule): RequirementId => overrides[rule] ?? RULE_REQUIREMENTS[rule];
}

const OWNERS = ['a', 'b', 'c'] as const;
type Owner = (typeof OWNERS)[number];
const FOREIGN = ['peer', 'remote'] as const;
type Foreign = (typeof FOREIGN)[number];

/** The callers of one race case: three resources of the owner's account, two other accounts. */
interface RaceCast {
  readonly target: TaskTarget;
  readonly owners: Readonly<Record<Owner, RaceProcess>>;
  readonly foreign: Readonly<Record<Foreign, RaceProcess>>;
  readonly ownerList: readonly RaceProcess[];
  readonly all: readonly RaceProcess[];
}

async function cast(context: CaseContext, features: readonly ('cancel' | 'input')[]): Promise<RaceCast> {
  const target = conformanceTarget(context);
  const a = await context.callers.local();
  await requireToolFeatures(context, a, target, 'script', features);
  const [b, c, peer, remote] = await Promise.all([
    context.callers.sibling(a),
    context.callers.sibling(a),
    localPeer(context),
    context.callers.remote().catch((error: unknown) => {
      throw new MissingFixture(
        `needs the federated caller (${requireWorld(context).jidOf('remote')}) to race from another domain: ${error instanceof Error ? error.message : String(error)}`,
      );
    }),
  ]);
  const owners = { a: { name: 'a', caller: a }, b: { name: 'b', caller: b }, c: { name: 'c', caller: c } };
  const foreign = { peer: { name: 'peer', caller: peer }, remote: { name: 'remote', caller: remote } };
  const ownerList = [owners.a, owners.b, owners.c];
  return { target, owners, foreign, ownerList, all: [...ownerList, foreign.peer, foreign.remote] };
}

/** An operation of a schedule, fired `at` ms after the race's starting point. */
type Step =
  | {
      readonly op: 'cancel';
      readonly by: Owner;
      readonly at: number;
      readonly reason: 0 | 1 | 2;
      readonly stale: boolean;
    }
  | {
      readonly op: 'input';
      readonly by: Owner;
      readonly at: number;
      readonly value: 0 | 1 | 2;
      readonly latest: boolean;
      readonly stale: boolean;
    }
  | { readonly op: 'state' | 'result'; readonly by: Owner; readonly at: number }
  /** The exact tuple of the first answer accepted so far, sent again (nothing if none was). */
  | { readonly op: 'repeat'; readonly by: Owner; readonly at: number }
  | {
      readonly op: 'foreign';
      readonly by: Foreign;
      readonly at: number;
      readonly kind: 'state' | 'result' | 'cancel' | 'input';
    };

const owner = fc.constantFrom(...OWNERS);
const REASONS = [undefined, 'stop', 'stop now'] as const;

function cancelStep(maxAt: number): fc.Arbitrary<Extract<Step, { op: 'cancel' }>> {
  return fc.record({
    op: fc.constant('cancel' as const),
    by: owner,
    at: fc.integer({ min: 0, max: maxAt }),
    reason: fc.constantFrom(0 as const, 1 as const, 2 as const),
    // One resource in three acts on a revision it saw before the latest.
    stale: fc.constantFrom(false, false, true),
  });
}

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

function readStep(maxAt: number): fc.Arbitrary<Step> {
  return fc.oneof(
    fc.record({
      op: fc.constantFrom('state' as const, 'result' as const),
      by: owner,
      at: fc.integer({ min: 0, max: maxAt }),
    }),
    fc.record({
      op: fc.constant('foreign' as const),
      by: fc.constantFrom(...FOREIGN),
      at: fc.integer({ min: 0, max: maxAt }),
      kind: fc.constantFrom('state' as const, 'result' as const, 'cancel' as const, 'input' as const),
    }),
  );
}

function describeSteps(steps: readonly Step[]): string {
  return [...steps]
    .sort((x, y) => x.at - y.at)
    .map((step) => {
      switch (step.op) {
        case 'cancel':
          return `${step.by}:cancel${step.reason === 0 ? '' : `(${REASONS[step.reason]})`}${step.stale ? '/stale' : ''}@${String(step.at)}`;
        case 'input':
          return `${step.by}:input${String(step.value)}${step.latest ? '/latest' : ''}${step.stale ? '/stale' : ''}@${String(step.at)}`;
        case 'foreign':
          return `${step.by}:${step.kind}@${String(step.at)}`;
        case 'repeat':
          return `${step.by}:repeat-accepted@${String(step.at)}`;
        default:
          return `${step.by}:${step.op}@${String(step.at)}`;
      }
    })
    .join(' ');
}

/** Everything one race run knows about its task while the steps fire. */
interface Race {
  readonly context: CaseContext;
  readonly cast: RaceCast;
  readonly recorder: HistoryRecorder;
  readonly taskId: string;
  /** The input request IDs the owners have seen, in order. */
  inputRequests(): string[];
}

function inputRequestsOf(taskId: string, processes: readonly RaceProcess[]): string[] {
  const byRevision = new Map<number, string>();
  for (const event of observedEvents(taskId, processes)) {
    if (event.type !== 'input_required') continue;
    try {
      const value = JSON.parse(event.payload) as { requestId?: unknown };
      if (typeof value.requestId === 'string') byRevision.set(event.revision, value.requestId);
    } catch {
      // Not JSON: the history check reports the event.
    }
  }
  return [...byRevision.entries()].sort(([x], [y]) => x - y).map(([, id]) => id);
}

function race(context: CaseContext, raceCast: RaceCast, recorder: HistoryRecorder, taskId: string): Race {
  return {
    context,
    cast: raceCast,
    recorder,
    taskId,
    inputRequests: () => inputRequestsOf(taskId, raceCast.ownerList),
  };
}

/** Sends one step; its parameters (revisions, request IDs) are what the owners know at that moment. */
async function fire(current: Race, step: Step): Promise<void> {
  const { recorder, taskId, cast: raceCast } = current;
  const known = knownRevision(taskId, raceCast.ownerList);
  const expected = (stale: boolean): number => (stale && known > 0 ? known - 1 : known);
  switch (step.op) {
    case 'cancel':
      await recorder.cancel(raceCast.owners[step.by], taskId, expected(step.stale), REASONS[step.reason]);
      return;
    case 'input': {
      const requests = current.inputRequests();
      const requestId = step.latest ? requests.at(-1) : requests[0];
      if (requestId === undefined) return;
      await recorder.input(raceCast.owners[step.by], taskId, requestId, expected(step.stale), {
        v: step.value,
      });
      return;
    }
    case 'repeat': {
      // interactive-input.identical-replay: the original <input-accepted/> whenever the identical
      // tuple comes again, expired request, later transitions or terminal task notwithstanding.
      const first = recorder.operations.find(
        (operation) => operation.request.kind === 'provide-input' && operation.result.type === 'ok',
      );
      if (first?.request.kind !== 'provide-input') return;
      const { requestId, expectedRevision, input } = first.request;
      await recorder.input(
        raceCast.owners[step.by],
        taskId,
        requestId,
        expectedRevision,
        JSON.parse(input) as JsonValue,
      );
      return;
    }
    case 'state':
      await recorder.state(raceCast.owners[step.by], taskId);
      return;
    case 'result':
      await recorder.result(raceCast.owners[step.by], taskId);
      return;
    case 'foreign': {
      const process = raceCast.foreign[step.by];
      if (step.kind === 'state') await recorder.state(process, taskId);
      else if (step.kind === 'result') await recorder.result(process, taskId);
      else if (step.kind === 'cancel') await recorder.cancel(process, taskId, known);
      else
        await recorder.input(
          process,
          taskId,
          current.inputRequests()[0] ?? 'req-agentconf-race-probe-00',
          known,
          {},
        );
      return;
    }
  }
}

/** Fires every step at its offset from now and waits for all answers. */
async function fireAll(current: Race, steps: readonly Step[]): Promise<void> {
  const start = performance.now();
  await Promise.all(
    steps.map(async (step) => {
      const wait = step.at - (performance.now() - start);
      // The offsets are the race: each operation goes out at its drawn moment, not in sequence.
      if (wait > 0) await delay(wait);
      await fire(current, step);
    }),
  );
}

const TERMINAL_TYPES = new Set(['completed', 'failed', 'cancelled']);

/** Waits until some process received the task's terminal event. */
async function awaitTerminal(
  context: CaseContext,
  taskId: string,
  processes: readonly RaceProcess[],
): Promise<void> {
  if (observedEvents(taskId, processes).some((event) => TERMINAL_TYPES.has(event.type))) return;
  await Promise.any(
    processes.map((process) =>
      process.caller.events.waitFor(
        taskId,
        (received) => received.valid && TERMINAL_TYPES.has(received.event.type),
        { timeoutMs: context.sut.taskTimeoutMs },
        'terminal event',
      ),
    ),
  ).catch(() => {
    throw new Error(
      `task ${taskId} did not settle within ${String(context.sut.taskTimeoutMs)} ms at any caller`,
    );
  });
}

/**
 * After the steps: the task settles, the owner reads state and result once more, every revision
 * a read reported has arrived as an event, and the ledger is read.
 */
async function finish(
  current: Race,
  owner: string,
  ledgerKeys: readonly string[],
  afterSettled?: () => Promise<void>,
): Promise<RaceOutcome['history']> {
  const { context, recorder, taskId, cast: raceCast } = current;
  await awaitTerminal(context, taskId, raceCast.ownerList);
  await afterSettled?.();
  await recorder.state(raceCast.owners.a, taskId);
  await recorder.result(raceCast.owners.a, taskId);
  const readRevisions = recorder.operations.flatMap((operation) =>
    operation.result.type === 'ok' && 'revision' in operation.result.value
      ? [operation.result.value.revision]
      : [],
  );
  await untilRevisionsArrived(
    taskId,
    raceCast.ownerList,
    Math.max(0, ...readRevisions),
    context.sut.replyTimeoutMs,
  );
  let executions = 0;
  for (const key of ledgerKeys) {
    executions += await readLedger(
      context,
      raceCast.owners.a.caller,
      raceCast.target,
      key,
      'invocation.replay-same-task',
    );
  }
  return recorder.history(owner, taskId, raceCast.ownerList, executions);
}

/** Admits the task for a race: invoked by one owner resource, the start of the race clock. */
async function admit(
  context: CaseContext,
  raceCast: RaceCast,
  recorder: HistoryRecorder,
  by: Owner,
  args: JsonValue,
  deadline?: Invoke['deadline'],
): Promise<string> {
  const invoke = invokeOf(raceCast.target, args, freshRequestId(context), deadline);
  const operation = await recorder.invoke(raceCast.owners[by], invoke);
  if (operation.result.type !== 'ok' || operation.result.value.kind !== 'accepted') {
    throw new CannotTell(
      `the race's task was not admitted (${operation.result.type === 'fail' ? operation.result.condition : operation.result.type}): nothing to race`,
    );
  }
  return operation.result.value.taskId;
}

function invokeOf(
  target: TaskTarget,
  args: JsonValue,
  requestId: string,
  deadline?: Invoke['deadline'],
): Invoke {
  return {
    requestId,
    tool: 'script',
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
    ...(deadline === undefined ? {} : { deadline }),
  };
}

const accepted = (current: Race, kind: 'cancel-accepted' | 'input-accepted'): boolean =>
  current.recorder.operations.some(
    (operation) =>
      operation.principal === current.cast.owners.a.caller.bareJid &&
      operation.result.type === 'ok' &&
      operation.result.value.kind === kind,
  );

const COMPLETED: TerminalOutcome = { state: 'completed' };
const CANCELLED: TerminalOutcome = { state: 'cancelled' };

// --- #cancellation -------------------------------------------------------------------------

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
    const clock: GatewayClock = await measureGatewayClock(context, raceCast.owners.a.caller, raceCast.target);
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

// --- #interactive-input --------------------------------------------------------------------

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
      repeats: fc.array(repeatStep(span + 40), { maxLength: 2 }),
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
      iterations: [2, 60],
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

// --- #idempotency --------------------------------------------------------------------------

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
      describe: (s) =>
        `wait ${String(s.waitMs)} ms: ${[...s.invokes]
          .sort((x, y) => x.at - y.at)
          .map((i) => `${i.by}:invoke${i.changed ? '/changed' : ''}@${String(i.at)}`)
          .join(' ')} ${describeSteps(s.reads)}`,
      requirementOf: requirements({ 'terminal-outcome': 'invocation.replay-same-task' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const requestId = freshRequestId(context);
        const keys = {
          same: freshLedgerKey(context, 'race-dup'),
          changed: freshLedgerKey(context, 'race-dup-changed'),
        };
        const foreignKeys = {
          peer: freshLedgerKey(context, 'race-dup-peer'),
          remote: freshLedgerKey(context, 'race-dup-remote'),
        };
        const argsFor = (by: Owner | Foreign, changed: boolean): JsonValue =>
          by === 'peer' || by === 'remote'
            ? { ledgerKey: foreignKeys[by], steps: [{ complete: {} }] }
            : changed
              ? { ledgerKey: keys.changed, steps: [{ complete: {} }] }
              : { ledgerKey: keys.same, steps: [{ wait: { ms: schedule.waitMs } }, { complete: {} }] };
        const processOf = (by: Owner | Foreign): RaceProcess =>
          by === 'peer' || by === 'remote' ? raceCast.foreign[by] : raceCast.owners[by];
        const start = performance.now();
        let taskId: string | undefined;
        await Promise.all([
          ...schedule.invokes.map(async (step) => {
            const wait = step.at - (performance.now() - start);
            if (wait > 0) await delay(wait);
            const operation = await recorder.invoke(
              processOf(step.by),
              invokeOf(raceCast.target, argsFor(step.by, step.changed), requestId),
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
        if (taskId === undefined) {
          // No owner invocation in this schedule (or none admitted): only the other accounts' tasks.
          const owned = recorder.operations.filter((operation) => operation.principal === owner);
          if (owned.length > 0) {
            throw new CannotTell(
              `none of the caller's invocations was admitted: ${owned.map((operation) => (operation.result.type === 'fail' ? operation.result.condition : operation.result.type)).join(', ')}`,
            );
          }
        }
        const foreignOutcomes: RaceOutcome[] = [];
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
          if (foreignTask === taskId) continue; // the owner's history reports it (invoke-scope)
          await awaitTerminal(context, foreignTask, [process]);
          const executions = await readLedger(
            context,
            raceCast.owners.a.caller,
            raceCast.target,
            foreignKeys[name],
            'invocation.replay-same-task',
          );
          const principal = process.caller.bareJid;
          const all = recorder.history(principal, foreignTask, [process], executions);
          foreignOutcomes.push({
            // Only that account's own operations: the owner's reads are about another task.
            history: {
              ...all,
              operations: all.operations.filter((operation) => operation.principal === principal),
            },
            expectations: { settled: true, terminals: [COMPLETED] },
          });
        }
        const subject = taskId ?? '';
        const history =
          taskId === undefined
            ? recorder.history(owner, subject, raceCast.ownerList)
            : await finish(
                race(context, raceCast, recorder, taskId),
                owner,
                schedule.invokes.some((step) => step.changed && step.by !== 'peer' && step.by !== 'remote')
                  ? [keys.same, keys.changed]
                  : [keys.same],
              );
        return {
          history,
          expectations: taskId === undefined ? {} : { settled: true, terminals: [COMPLETED] },
          others: foreignOutcomes,
        };
      },
    });
  },
};

// --- #task-states --------------------------------------------------------------------------

interface QuerySchedule {
  readonly invoker: Owner;
  readonly segments: readonly { readonly percent: number; readonly waitMs: number }[];
  readonly fails: boolean;
  readonly reads: readonly Step[];
}

const querySchedule: fc.Arbitrary<QuerySchedule> = fc
  .record({
    invoker: owner,
    segments: fc.array(
      fc.record({ percent: fc.integer({ min: 0, max: 100 }), waitMs: fc.integer({ min: 0, max: 20 }) }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    fails: fc.boolean(),
  })
  .chain((base) => {
    const span = base.segments.reduce((sum, segment) => sum + segment.waitMs, 0) + 15;
    return fc.record({
      invoker: fc.constant(base.invoker),
      segments: fc.constant(base.segments),
      fails: fc.constant(base.fails),
      reads: fc.array(readStep(span), { minLength: 3, maxLength: 10 }),
    });
  });

const FAILURE = { code: 'org.agentconf.suite:race', message: 'Scripted failure.', retryable: false };

const stateQueries: CaseDeclaration<'task-states'> = {
  id: 'task-states.race-state-queries',
  requirements: [
    'task-recovery.state-contents',
    'task-recovery.result-only-terminal',
    'events.revision-increments',
    'task-states.permitted-transitions',
    'task-states.terminal-immutable',
    'task-recovery.caller-authorization',
  ],
  profiles: ['task-execution'],
  level: 'MUST',
  scenario: 'race',
  interpretations: ['interp-39'],
  timeoutMs: 240_000,
  statement:
    'Three resources of the caller read task state and result at drawn moments while the task reports progress and settles, and two other accounts try the same: each read matches the state the events put the task in at the revision it reports, never goes back behind an answer or event seen before it was sent, the result is refused before settlement and equals the terminal event after; the other accounts get item-not-found.',
  run: async (context) => {
    const raceCast = await cast(context, []);
    await checkRaces(context, {
      arbitrary: querySchedule,
      iterations: [2, 60],
      describe: (s) =>
        `invoker ${s.invoker}, ${s.segments.map((segment) => `progress ${String(segment.percent)}% + wait ${String(segment.waitMs)} ms`).join(', ')}, then ${s.fails ? 'fail' : 'complete'}: ${describeSteps(s.reads)}`,
      requirementOf: requirements({ 'terminal-outcome': 'task-states.permitted-transitions' }),
      note: (line) => raceCast.owners.a.caller.transcript.note(line),
      run: async (schedule) => {
        const recorder = new HistoryRecorder(raceCast.target);
        const key = freshLedgerKey(context, 'race-query');
        const percents = schedule.segments.map((segment) => segment.percent).sort((x, y) => x - y);
        const steps: JsonValue[] = schedule.segments.flatMap((segment, index) => [
          { progress: { percent: percents[index] ?? 0, message: `step ${String(index)}` } },
          { wait: { ms: segment.waitMs } },
        ]);
        steps.push(schedule.fails ? { fail: FAILURE } : { complete: { structuredContent: { value: 'ok' } } });
        const taskId = await admit(context, raceCast, recorder, schedule.invoker, { ledgerKey: key, steps });
        const current = race(context, raceCast, recorder, taskId);
        await fireAll(current, schedule.reads);
        const history = await finish(current, raceCast.owners.a.caller.bareJid, [key]);
        return {
          history,
          expectations: {
            settled: true,
            terminals: [schedule.fails ? { state: 'failed', code: FAILURE.code } : COMPLETED],
          },
        };
      },
    });
  },
};

export const cancellationRaces = defineSuite('cancellation', 'Cancellation and Deadlines: races', [
  cancelVsCompletion,
  deadlineVsCompletion,
]);
export const interactiveInputRaces = defineSuite('interactive-input', 'Interactive Input: races', [
  inputVsExpiry,
  inputVsCancel,
]);
export const idempotencyRaces = defineSuite('idempotency', 'Idempotency and Delegation: races', [
  duplicateInvokes,
]);
export const taskStatesRaces = defineSuite('task-states', 'Task States: races', [stateQueries]);
