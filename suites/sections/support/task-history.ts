/**
 * Recording task histories (protocol/tasks/history.ts) from real callers, and the loop that
 * runs generated race schedules against the SUT with fast-check (issue 14 item 1).
 *
 * The recorder wraps each caller: every task operation it sends is kept with the instants it was
 * sent and answered (performance.now(), the clock the driver stamps received stanzas with), and
 * its outcome — ok with the parsed value, fail with the error condition (or a reply that is not
 * what the operation returns), info when no answer came within the caller's timeout. The events
 * each caller received for the task are taken from its event queue when the history is built.
 *
 * `checkRaces` draws schedules from a fast-check arbitrary seeded from context.random (so the
 * printed run seed replays the same schedules), runs and checks each, and on a violation lets
 * fast-check shrink the schedule — each shrink step is a real run, so their number is capped —
 * and fails with the smallest failing history, its seed and its path.
 */
import fc from 'fast-check';
import { IqTimeout, WaitTimeout, type Caller, type IqExchange } from '../../../harness/driver/index.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import type { XmppDateTime } from '../../../protocol/datetime.ts';
import {
  buildCancel,
  buildInvoke,
  buildProvideInput,
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseAccepted,
  parseCancelAccepted,
  parseInputAccepted,
  parseTaskResult,
  parseTaskState,
  type Invoke,
} from '../../../protocol/stanza/index.ts';
import {
  checkHistory,
  formatHistory,
  type History,
  type HistoryExpectations,
  type HistoryRule,
  type HistoryViolation,
  type ObservedEvent,
  type Operation,
  type OperationRequest,
  type OperationResult,
  type OperationValue,
} from '../../../protocol/tasks/history.ts';
import type { Element } from '@xmpp/xml';
import type { CaseContext } from '../../framework/context.ts';
import { CannotTell, RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import type { TaskTarget } from './task-target.ts';

/** One connected resource taking part in a race, under a short name for the history. */
export interface RaceProcess {
  readonly name: string;
  readonly caller: Caller;
}

function instantText(value: XmppDateTime): string {
  return `${value.epochSeconds.toString()}.${value.fraction}`;
}

function pendingRequestId(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  try {
    const value = parseStrictJson(json);
    const id =
      typeof value === 'object' && value !== null && !Array.isArray(value) ? value['requestId'] : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

function canonicalOrEmpty(json: string): string {
  try {
    return canonicalJson(parseStrictJson(json));
  } catch {
    return '';
  }
}

/** What the reply means for the history: the parsed value, or the condition of its error. */
function outcomeOf(exchange: IqExchange, read: (payload: Element) => OperationValue): OperationResult {
  const { parsed } = exchange;
  if (parsed.type === 'error') return { type: 'fail', condition: parsed.error.condition };
  if (parsed.payload === undefined) return { type: 'fail', condition: 'malformed: an empty result' };
  try {
    return { type: 'ok', value: read(parsed.payload) };
  } catch (error) {
    return {
      type: 'fail',
      condition: `malformed: <${parsed.payload.name}/> (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** The identity of an invocation for replay purposes (#invocation: the fingerprint's caller-side parts). */
export function invokeFingerprint(invoke: Invoke): string {
  return canonicalJson([
    invoke.tool,
    invoke.apiVersion,
    invoke.manifestHash.algo,
    invoke.manifestHash.value,
    canonicalOrEmpty(invoke.argumentsJson),
    invoke.deadline === undefined ? null : instantText(invoke.deadline),
  ]);
}

export class HistoryRecorder {
  readonly #target: TaskTarget;
  readonly #operations: Operation[] = [];

  constructor(target: TaskTarget) {
    this.#target = target;
  }

  get operations(): readonly Operation[] {
    return this.#operations;
  }

  async #record(
    process: RaceProcess,
    request: OperationRequest,
    send: () => Promise<IqExchange>,
    read: (payload: Element) => OperationValue,
  ): Promise<Operation> {
    const invokedAt = performance.now();
    let result: OperationResult;
    let completedAt: number | undefined;
    try {
      const exchange = await send();
      completedAt = performance.now();
      result = outcomeOf(exchange, read);
    } catch (error) {
      if (!(error instanceof IqTimeout)) throw error;
      result = { type: 'info', reason: error.message };
    }
    const operation: Operation = {
      index: this.#operations.length,
      process: process.name,
      principal: process.caller.bareJid,
      request,
      invokedAt,
      ...(completedAt === undefined ? {} : { completedAt }),
      result,
    };
    this.#operations.push(operation);
    return operation;
  }

  invoke(process: RaceProcess, invoke: Invoke): Promise<Operation> {
    return this.#record(
      process,
      { kind: 'invoke', requestId: invoke.requestId, fingerprint: invokeFingerprint(invoke) },
      () => process.caller.exchangeIq(this.#target.jid, 'set', buildInvoke(invoke)),
      (payload) => {
        const accepted = parseAccepted(payload);
        return {
          kind: 'accepted',
          taskId: accepted.taskId,
          created: instantText(accepted.created),
          revision: accepted.revision,
          retainUntil: accepted.retainUntil.text,
        };
      },
    );
  }

  cancel(
    process: RaceProcess,
    taskId: string,
    expectedRevision: number,
    reason?: string,
  ): Promise<Operation> {
    return this.#record(
      process,
      { kind: 'cancel', expectedRevision, ...(reason === undefined ? {} : { reason }) },
      () =>
        process.caller.exchangeIq(
          this.#target.jid,
          'set',
          buildCancel({ taskId, expectedRevision, ...(reason === undefined ? {} : { reason }) }),
        ),
      (payload) => {
        const value = parseCancelAccepted(payload);
        return { kind: 'cancel-accepted', taskId: value.taskId, revision: value.revision };
      },
    );
  }

  input(
    process: RaceProcess,
    taskId: string,
    requestId: string,
    expectedRevision: number,
    input: JsonValue,
  ): Promise<Operation> {
    return this.#record(
      process,
      { kind: 'provide-input', requestId, expectedRevision, input: canonicalJson(input) },
      () =>
        process.caller.exchangeIq(
          this.#target.jid,
          'set',
          buildProvideInput({
            taskId,
            requestId,
            expectedRevision,
            inputJson: typeof input === 'string' ? input : JSON.stringify(input),
          }),
        ),
      (payload) => {
        const value = parseInputAccepted(payload);
        return { kind: 'input-accepted', taskId: value.taskId, revision: value.revision };
      },
    );
  }

  state(process: RaceProcess, taskId: string): Promise<Operation> {
    return this.#record(
      process,
      { kind: 'task-state' },
      () => process.caller.exchangeIq(this.#target.jid, 'get', buildTaskStateRequest({ taskId })),
      (payload) => {
        const value = parseTaskState(payload);
        const pending = pendingRequestId(value.pendingInputJson);
        return {
          kind: 'task-state',
          state: value.state,
          revision: value.revision,
          resultAvailable: value.resultAvailable,
          ...(pending === undefined ? {} : { pendingRequestId: pending }),
        };
      },
    );
  }

  result(process: RaceProcess, taskId: string): Promise<Operation> {
    return this.#record(
      process,
      { kind: 'task-result' },
      () => process.caller.exchangeIq(this.#target.jid, 'get', buildTaskResultRequest({ taskId })),
      (payload) => {
        const value = parseTaskResult(payload);
        return {
          kind: 'task-result',
          state: value.state,
          revision: value.revision,
          payload: canonicalOrEmpty(value.json),
        };
      },
    );
  }

  /** The history of `taskId` owned by `owner`: every recorded operation and what each process received. */
  history(owner: string, taskId: string, processes: readonly RaceProcess[], executions?: number): History {
    return {
      owner,
      taskId,
      operations: [...this.#operations],
      events: observedEvents(taskId, processes),
      ...(executions === undefined ? {} : { executions }),
    };
  }
}

/** The task's events as each process received them (malformed ones are left to the existing checks). */
export function observedEvents(taskId: string, processes: readonly RaceProcess[]): ObservedEvent[] {
  return processes.flatMap((process) =>
    process.caller.events.all(taskId).flatMap((received): ObservedEvent[] =>
      received.valid
        ? [
            {
              observer: process.name,
              revision: received.event.revision,
              eventId: received.event.eventId,
              type: received.event.type,
              payload: canonicalOrEmpty(received.event.json),
              receivedAt: received.stanza.receivedAt,
            },
          ]
        : [],
    ),
  );
}

/** The highest revision any process has seen for the task so far, by events. */
export function knownRevision(taskId: string, processes: readonly RaceProcess[]): number {
  return Math.max(0, ...observedEvents(taskId, processes).map((event) => event.revision));
}

/** Resolves once every revision up to `revision` reached some process, or after `timeoutMs`. */
export async function untilRevisionsArrived(
  taskId: string,
  processes: readonly RaceProcess[],
  revision: number,
  timeoutMs: number,
): Promise<void> {
  const complete = (): boolean => {
    const seen = new Set(observedEvents(taskId, processes).map((event) => event.revision));
    for (let wanted = 1; wanted <= revision; wanted += 1) if (!seen.has(wanted)) return false;
    return true;
  };
  const until = Date.now() + timeoutMs;
  // A process whose connection ended hears nothing more: its wait would reject at once, every
  // time, and a loop of settled promises never yields to the timers and sockets it waits for.
  const listening = new Set(processes);
  while (!complete() && Date.now() < until && listening.size > 0) {
    // Event-driven where possible: any new event of the task at any process wakes the check.
    await Promise.race(
      [...listening].map((process) =>
        process.caller.events
          .waitFor(taskId, () => true, { timeoutMs: Math.max(1, until - Date.now()) }, 'a missing revision')
          .then(
            () => undefined,
            (error: unknown) => {
              if (!(error instanceof WaitTimeout)) listening.delete(process);
            },
          ),
      ),
    );
  }
}

/** How the operations of a history came out, for the transcript: "cancel ok×1 conflict×2, …". */
export function outcomeSummary(history: History): string {
  const counts = new Map<string, Map<string, number>>();
  for (const operation of history.operations) {
    const { result } = operation;
    const outcome = result.type === 'ok' ? 'ok' : result.type === 'fail' ? result.condition : 'info';
    const byKind = counts.get(operation.request.kind) ?? new Map<string, number>();
    byKind.set(outcome, (byKind.get(outcome) ?? 0) + 1);
    counts.set(operation.request.kind, byKind);
  }
  return [...counts]
    .map(
      ([kind, byOutcome]) =>
        `${kind} ${[...byOutcome].map(([outcome, n]) => `${outcome}×${String(n)}`).join(' ')}`,
    )
    .join(', ');
}

/** One run of a schedule: its history and what the schedule admits. */
export interface RaceOutcome {
  readonly history: History;
  readonly expectations: HistoryExpectations;
  /** Further tasks the run created (another account's task for the same request ID), checked alike. */
  readonly others?: readonly RaceOutcome[];
}

export interface RaceOptions<Schedule> {
  readonly arbitrary: fc.Arbitrary<Schedule>;
  /** Iterations: default run, --deep. */
  readonly iterations: readonly [number, number];
  /** Real runs fast-check may spend shrinking a failing schedule. */
  readonly shrinkRuns?: number;
  readonly describe: (schedule: Schedule) => string;
  readonly run: (schedule: Schedule, iteration: number) => Promise<RaceOutcome>;
  /** The requirement a violated rule breaks in this case. */
  readonly requirementOf: (rule: HistoryRule) => RequirementId;
  /** Where to write one line per schedule. */
  readonly note: (line: string) => void;
}

interface Failure<Schedule> {
  readonly schedule: Schedule;
  readonly histories?: readonly History[];
  readonly violations: readonly HistoryViolation[];
  readonly error?: unknown;
}

/**
 * Runs generated schedules until one violates the task model or the budget is spent; the
 * smallest failing schedule found by shrinking becomes the case's RequirementViolation.
 */
export async function checkRaces<Schedule>(
  context: CaseContext,
  options: RaceOptions<Schedule>,
): Promise<void> {
  const seed = context.random.int(0, 0x7fff_ffff);
  const numRuns = context.budget.iterations(options.iterations[0], options.iterations[1]);
  let shrinkBudget = options.shrinkRuns ?? (context.budget.deep ? 24 : 8);
  let failure: Failure<Schedule> | undefined;
  let runs = 0;
  let undecided = 0;
  const property = fc.asyncProperty(options.arbitrary, async (schedule) => {
    if (failure !== undefined) {
      // Shrinking: every candidate is a real run against the SUT, so their number is capped.
      if (shrinkBudget <= 0) return true;
      shrinkBudget -= 1;
    }
    runs += 1;
    const iteration = runs;
    let outcome: RaceOutcome;
    try {
      outcome = await options.run(schedule, iteration);
    } catch (error) {
      if (error instanceof CannotTell) {
        // A schedule the SUT could not be raced on (say a deadline already past at admission).
        undecided += 1;
        options.note(
          `schedule ${String(iteration)}: ${options.describe(schedule)} → not decided: ${error.message}`,
        );
        return true;
      }
      if (!(error instanceof RequirementViolation) && failure !== undefined) {
        // A shrink candidate that could not run to its end (a timeout) is not a smaller failure.
        options.note(
          `schedule ${String(iteration)} (shrinking): ${options.describe(schedule)} → not decided: ${String(error)}`,
        );
        return true;
      }
      failure = { schedule, violations: [], error };
      // A run that could not finish (no settlement within the task timeout, a dropped caller) is
      // reported as it is: shrinking it would repeat the wait for every candidate.
      shrinkBudget = 0;
      options.note(`schedule ${String(iteration)}: ${options.describe(schedule)} → ${String(error)}`);
      return false;
    }
    const checked = [outcome, ...(outcome.others ?? [])].map((one) => ({
      history: one.history,
      violations: checkHistory(one.history, one.expectations),
    }));
    const violations = checked.flatMap((one) => one.violations);
    const terminal = outcome.history.events.find((event) =>
      ['completed', 'failed', 'cancelled'].includes(event.type),
    );
    options.note(
      `schedule ${String(iteration)}: ${options.describe(schedule)} → ${terminal === undefined ? 'unsettled' : `${terminal.type}@${String(terminal.revision)}`}; ${outcomeSummary(outcome.history)}; ${violations.length === 0 ? 'consistent' : `${String(violations.length)} violation(s)`}`,
    );
    if (violations.length === 0) return true;
    const failing = checked.filter((one) => one.violations.length > 0);
    failure = { schedule, histories: failing.map((one) => one.history), violations };
    return false;
  });
  const details = await fc.check(property, { seed, numRuns });
  if (!details.failed) {
    if (undecided === runs) {
      throw new CannotTell(`none of the ${String(runs)} schedules could be raced (see the transcript)`);
    }
    return;
  }
  context.budget.ran(Math.min(numRuns, details.numRuns));
  if (failure === undefined) throw details.errorInstance;
  const where = `fast-check seed ${String(seed)}, path ${details.counterexamplePath ?? '?'}, ${String(details.numShrinks)} shrink(s); schedule ${options.describe(failure.schedule)}`;
  const [first] = failure.violations;
  if (first === undefined || failure.histories === undefined) {
    if (failure.error instanceof RequirementViolation) {
      throw new RequirementViolation(
        failure.error.requirement,
        failure.error.expected,
        `${failure.error.received}\n(${where})`,
        `${failure.error.message} (${where})`,
      );
    }
    throw failure.error instanceof Error ? failure.error : new Error(String(failure.error));
  }
  throw new RequirementViolation(
    options.requirementOf(first.rule),
    `one order of committed transitions explaining every answer and event (#${first.anchor}): ${first.message}`,
    `${failure.histories.map(formatHistory).join('\n\n')}\nviolations:\n${failure.violations.map((violation) => `- [${violation.rule}, #${violation.anchor}] ${violation.message}`).join('\n')}\n(${where})`,
    `${options.requirementOf(first.rule)}: ${first.message} (minimised history printed; ${where})`,
  );
}
