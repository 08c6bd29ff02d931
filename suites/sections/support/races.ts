/**
 * Races with histories (issue 14, item 1): several callers at once against one task — three
 * resources of the task's own account, another account on the gateway's server and one on the
 * federated server — each operation fired at an offset fast-check draws (seeded from the case's
 * random source, so the printed run seed replays the schedules). Every run is recorded as a
 * history (support/task-history.ts) and checked against the task model
 * (protocol/tasks/history.ts); a violating schedule is shrunk and printed with its history.
 *
 * Where the spec lets a race go either way (the cancellation or the completion commits first,
 * the answer or the expiry, the completion just before or the expiry at the deadline) every
 * consistent outcome passes; the task model decides consistency, not the order we hoped for.
 */
import fc from 'fast-check';
import { setTimeout as delay } from 'node:timers/promises';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import type { Invoke } from '../../../protocol/stanza/index.ts';
import type { HistoryRule, TerminalOutcome } from '../../../protocol/tasks/history.ts';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import {
  HistoryRecorder,
  knownRevision,
  observedEvents,
  untilRevisionsArrived,
  type RaceOutcome,
  type RaceProcess,
} from './task-history.ts';
import { readLedger } from './ledger.ts';
import { localPeer } from './task-accounts.ts';
import { freshRequestId, TaskSession } from './task-session.ts';
import { conformanceTarget, type TaskTarget } from './task-target.ts';
import { requireToolFeatures } from './tool-features.ts';

/** Which model rule breaks which requirement; a family names its own for the terminal outcome. */
export const RULE_REQUIREMENTS: Record<HistoryRule, RequirementId> = {
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

export function requirements(overrides: Partial<Record<HistoryRule, RequirementId>>) {
  return (rule: HistoryRule): RequirementId => overrides[rule] ?? RULE_REQUIREMENTS[rule];
}

export const OWNERS = ['a', 'b', 'c'] as const;
export type Owner = (typeof OWNERS)[number];
export const FOREIGN = ['peer', 'remote'] as const;
export type Foreign = (typeof FOREIGN)[number];

/** The callers of one race case: three resources of the owner's account, two other accounts. */
export interface RaceCast {
  readonly target: TaskTarget;
  /** Owner a's tasks at the target: what reads the ledger and the gateway's clock. */
  readonly ownerTasks: TaskSession;
  readonly owners: Readonly<Record<Owner, RaceProcess>>;
  readonly foreign: Readonly<Record<Foreign, RaceProcess>>;
  readonly ownerList: readonly RaceProcess[];
  readonly all: readonly RaceProcess[];
}

export async function cast(
  context: CaseContext,
  features: readonly ('cancel' | 'input')[],
): Promise<RaceCast> {
  const target = conformanceTarget(context);
  const a = await context.callers.local();
  const ownerTasks = new TaskSession(context, a, target);
  await requireToolFeatures(ownerTasks, 'script', features);
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
  return {
    target,
    ownerTasks,
    owners,
    foreign,
    ownerList,
    all: [...ownerList, foreign.peer, foreign.remote],
  };
}

/** An operation of a schedule, fired `at` ms after the race's starting point. */
export type Step =
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

export const owner = fc.constantFrom(...OWNERS);
export const REASONS = [undefined, 'stop', 'stop now'] as const;

export function cancelStep(maxAt: number): fc.Arbitrary<Extract<Step, { op: 'cancel' }>> {
  return fc.record({
    op: fc.constant('cancel' as const),
    by: owner,
    at: fc.integer({ min: 0, max: maxAt }),
    reason: fc.constantFrom(0 as const, 1 as const, 2 as const),
    // One resource in three acts on a revision it saw before the latest.
    stale: fc.constantFrom(false, false, true),
  });
}

export function readStep(maxAt: number): fc.Arbitrary<Step> {
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

export function describeSteps(steps: readonly Step[]): string {
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
export interface Race {
  readonly context: CaseContext;
  readonly cast: RaceCast;
  readonly recorder: HistoryRecorder;
  readonly taskId: string;
  /** The input request IDs the owners have seen, in order. */
  inputRequests(): string[];
}

export function inputRequestsOf(taskId: string, processes: readonly RaceProcess[]): string[] {
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

export function race(
  context: CaseContext,
  raceCast: RaceCast,
  recorder: HistoryRecorder,
  taskId: string,
): Race {
  return {
    context,
    cast: raceCast,
    recorder,
    taskId,
    inputRequests: () => inputRequestsOf(taskId, raceCast.ownerList),
  };
}

/** Sends one step; its parameters (revisions, request IDs) are what the owners know at that moment. */
export async function fire(current: Race, step: Step): Promise<void> {
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
export async function fireAll(current: Race, steps: readonly Step[]): Promise<void> {
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

export const TERMINAL_TYPES = new Set(['completed', 'failed', 'cancelled']);

/** Waits until some process received the task's terminal event. */
export async function awaitTerminal(
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
export async function finish(
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
    executions += await readLedger(raceCast.ownerTasks, key, 'invocation.replay-same-task');
  }
  return recorder.history(owner, taskId, raceCast.ownerList, executions);
}

/** Admits the task for a race: invoked by one owner resource, the start of the race clock. */
export async function admit(
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

export function invokeOf(
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

export const accepted = (current: Race, kind: 'cancel-accepted' | 'input-accepted'): boolean =>
  current.recorder.operations.some(
    (operation) =>
      operation.principal === current.cast.owners.a.caller.bareJid &&
      operation.result.type === 'ok' &&
      operation.result.value.kind === kind,
  );

export const COMPLETED: TerminalOutcome = { state: 'completed' };
export const CANCELLED: TerminalOutcome = { state: 'cancelled' };
