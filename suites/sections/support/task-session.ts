/**
 * One caller's tasks at one target (docs/conformance-tools.md): the protocol steps a case takes
 * — invoke, wait for events, ask for state and result, cancel, provide input — each checking
 * what the gateway answers (#invocation, #events, #task-recovery, #cancellation,
 * #interactive-input). A case makes one session per caller and target it uses.
 */
import {
  WaitTimeout,
  type Caller,
  type IqExchange,
  type ValidTaskEvent,
} from '../../../harness/driver/index.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { XmppDateTime } from '../../../protocol/datetime.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  buildCancel,
  buildInvoke,
  buildProvideInput,
  buildTaskResultRequest,
  buildTaskStateRequest,
  type Accepted,
  type Hash,
  type Invoke,
  type TaskState,
} from '../../../protocol/stanza/index.ts';
import { isTerminal, type TaskState as TaskStateName } from '../../../protocol/task-states.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import {
  checkedHistory,
  describeEvent,
  eventPayload,
  isTerminalEvent,
  terminalPayload,
} from './task-events.ts';
import { expectAccepted, expectTaskResult, expectTaskState } from './task-replies.ts';
import type { TaskTarget } from './task-target.ts';

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

/** A fresh request ID (#invocation grammar), reproducible from the case seed. */
export function freshRequestId(context: CaseContext): string {
  return context.random.string(UNRESERVED, 32);
}

export interface InvokeOptions {
  readonly requestId?: string;
  readonly deadline?: XmppDateTime;
  readonly apiVersion?: string;
  readonly hash?: Hash;
  /** The <arguments/> text as sent; default: the arguments in compact JSON. */
  readonly argumentsJson?: string;
}

export interface SentInvoke {
  readonly invoke: Invoke;
  readonly exchange: IqExchange;
}

export interface StartedTask {
  readonly invoke: Invoke;
  readonly accepted: Accepted;
  readonly exchange: IqExchange;
}

/**
 * What a case whose task must settle on its own (a deadline passing) holds against a task that
 * does not: a wait that outlives the SUT file's task time is then that requirement's violation,
 * not a harness timeout.
 */
export interface OverdueSettlement {
  readonly requirement: RequirementId;
  /** What should have come, in words. */
  readonly expected: string;
}

/** A settled task as its terminal event gave it. */
export interface Settlement {
  readonly state: TaskStateName;
  readonly payload: JsonValue;
  readonly revision: number;
}

/** Pauses before each retry of an invocation refused for now (resource-constraint, type wait). */
const BUSY_RETRIES_MS = [200, 800, 2_400] as const;

function isBusy(exchange: IqExchange): boolean {
  return (
    exchange.parsed.type === 'error' &&
    exchange.parsed.error.condition === 'resource-constraint' &&
    exchange.parsed.error.type === 'wait'
  );
}

export class TaskSession {
  constructor(
    readonly context: CaseContext,
    readonly caller: Caller,
    readonly target: TaskTarget,
  ) {}

  /** Sends an invocation of `tool` pinned to the target (unless `options` pin otherwise). */
  async invoke(tool: string, args: JsonValue, options: InvokeOptions = {}): Promise<SentInvoke> {
    const invoke: Invoke = {
      requestId: options.requestId ?? freshRequestId(this.context),
      tool,
      apiVersion: options.apiVersion ?? this.target.version,
      manifestHash: options.hash ?? this.target.hash,
      argumentsJson: options.argumentsJson ?? JSON.stringify(args),
      ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    };
    const exchange = await this.caller.exchangeIq(this.target.jid, 'set', buildInvoke(invoke));
    return { invoke, exchange };
  }

  /**
   * Sends an invocation and, while the gateway answers resource-constraint typed "wait" ("not
   * now": RFC 6120 §8.3.3, retry after waiting), the identical invocation again after each of
   * `pausesMs`: a gateway on a starved machine may run out of a time-bounded budget (schema
   * evaluation, say) or pending-work bound for a request it would admit a moment later, and a
   * caller retries such a refusal identically. Returns the last exchange.
   */
  async invokePatiently(
    tool: string,
    args: JsonValue,
    options: InvokeOptions = {},
    pausesMs: readonly number[] = BUSY_RETRIES_MS,
  ): Promise<SentInvoke> {
    let sent = await this.invoke(tool, args, options);
    for (const pauseMs of pausesMs) {
      if (!isBusy(sent.exchange)) break;
      this.caller.transcript.note(
        `resource-constraint (wait): the identical invocation again in ${String(pauseMs)} ms`,
      );
      await delay(pauseMs);
      sent = await this.invoke(tool, args, { ...options, requestId: sent.invoke.requestId });
    }
    return sent;
  }

  /**
   * Invokes a tool and requires admission, after a few patient retries (invokePatiently) so that
   * a passing "not now" does not count against the gateway.
   */
  async start(
    tool: string,
    args: JsonValue,
    options: InvokeOptions = {},
    requirement: RequirementId = 'invocation.required-parts',
  ): Promise<StartedTask> {
    const { invoke, exchange } = await this.invokePatiently(tool, args, options);
    return { invoke, exchange, accepted: expectAccepted(exchange, requirement, invoke) };
  }

  /** Waits for the task's terminal event, then returns the whole checked history. */
  async awaitSettled(taskId: string, overdue?: OverdueSettlement): Promise<ValidTaskEvent[]> {
    const { caller, context } = this;
    // A replayed invocation (a re-run attempt replays its seeded request ID) may find the task
    // settled and its events consumed already: look at everything received first.
    if (!caller.events.all(taskId).some(isTerminalEvent)) {
      try {
        await caller.events.waitFor(
          taskId,
          isTerminalEvent,
          { timeoutMs: context.sut.taskTimeoutMs },
          'terminal event',
        );
      } catch (error) {
        if (overdue === undefined || !(error instanceof WaitTimeout)) throw error;
        const seen = caller.events.all(taskId).map(describeEvent);
        expectThat(
          `no terminal event within ${String(context.sut.taskTimeoutMs)} ms (timeouts.taskSeconds); events seen: ${seen.length === 0 ? 'none' : seen.join(', ')}`,
          overdue.requirement,
          overdue.expected,
          false,
        );
      }
    }
    const history = checkedHistory(caller, taskId);
    const last = history.at(-1);
    expectThat(
      history.map(describeEvent).join(', '),
      'task-states.terminal-immutable',
      'exactly one terminal event, at the highest revision: nothing after it',
      last !== undefined && isTerminalEvent(last) && history.filter(isTerminalEvent).length === 1,
    );
    return history;
  }

  /** Waits for the task's next event of `type` (skipping others), then checks the history so far. */
  async awaitEvent(
    taskId: string,
    type: string,
    where: (payload: JsonValue) => boolean = () => true,
  ): Promise<ValidTaskEvent> {
    const found = await this.caller.events.waitFor(
      taskId,
      (received) => {
        if (!received.valid || received.event.type !== type) return false;
        try {
          return where(parseStrictJson(received.event.json));
        } catch {
          return false;
        }
      },
      { timeoutMs: this.context.sut.taskTimeoutMs },
      `${type} event`,
    );
    checkedHistory(this.caller, taskId);
    return found as ValidTaskEvent;
  }

  /**
   * Waits for the task's next input_required event or its terminal event, whichever comes first:
   * for cases where the gateway may refuse the tool's input request (failing the task) instead.
   */
  async awaitInputOrTerminal(taskId: string): Promise<ValidTaskEvent> {
    const found = await this.caller.events.waitFor(
      taskId,
      (received) => received.valid && (received.event.type === 'input_required' || isTerminalEvent(received)),
      { timeoutMs: this.context.sut.taskTimeoutMs },
      'input_required or terminal event',
    );
    checkedHistory(this.caller, taskId);
    return found as ValidTaskEvent;
  }

  /** The task's first terminal event as it arrives, with the checked history up to it. */
  async awaitFirstTerminal(taskId: string): Promise<Settlement & { xml: string }> {
    await this.caller.events.waitFor(
      taskId,
      (received) => received.valid && isTerminal(received.event.type as TaskStateName),
      { timeoutMs: this.context.sut.taskTimeoutMs },
      'terminal event',
    );
    const history = checkedHistory(this.caller, taskId);
    const at = history.findIndex((received) => isTerminal(received.event.type as TaskStateName));
    return { ...terminalPayload(history.slice(0, at + 1)), xml: history[at]?.stanza.xml ?? '' };
  }

  /** Asks for the task's <task-state/> (#task-recovery). */
  state(taskId: string): Promise<IqExchange> {
    return this.caller.exchangeIq(this.target.jid, 'get', buildTaskStateRequest({ taskId }));
  }

  /** Asks for the task's <task-result/> (#task-recovery). */
  result(taskId: string): Promise<IqExchange> {
    return this.caller.exchangeIq(this.target.jid, 'get', buildTaskResultRequest({ taskId }));
  }

  /** Sends a <cancel/> at `expectedRevision` (#cancellation). */
  cancel(taskId: string, expectedRevision: number, reason?: string): Promise<IqExchange> {
    return this.caller.exchangeIq(
      this.target.jid,
      'set',
      buildCancel({ taskId, expectedRevision, ...(reason === undefined ? {} : { reason }) }),
    );
  }

  /** Answers an input request; a string `input` is sent as written (#interactive-input). */
  provideInput(
    taskId: string,
    requestId: string,
    expectedRevision: number,
    input: JsonValue | string,
  ): Promise<IqExchange> {
    return this.caller.exchangeIq(
      this.target.jid,
      'set',
      buildProvideInput({
        taskId,
        requestId,
        expectedRevision,
        inputJson: typeof input === 'string' ? input : JSON.stringify(input),
      }),
    );
  }

  /**
   * Task-state until the task is terminal, asked again on each event the caller gets (at least
   * every 500 ms): after a fault the terminal event may never come, but task-state always answers.
   * Past the task timeout the case cannot tell; `after` says after what (for that message).
   */
  async stateOnceSettled(taskId: string, requirement: RequirementId, after: string): Promise<TaskState> {
    const giveUpAt = Date.now() + this.context.sut.taskTimeoutMs;
    for (;;) {
      const state = expectTaskState(await this.state(taskId), requirement);
      if (isTerminal(state.state)) return state;
      const left = giveUpAt - Date.now();
      if (left <= 0) {
        throw new CannotTell(
          `task ${taskId} was still ${state.state} ${String(this.context.sut.taskTimeoutMs)} ms ${after}`,
        );
      }
      await this.caller.events
        .waitFor(taskId, () => true, { timeoutMs: Math.min(left, 500) }, 'any event')
        .catch(() => undefined);
    }
  }

  /**
   * After a fault that may have lost events: task-state shows the task settled, task-result gives
   * the tool's own completion (its structuredContent carrying `value`), and every terminal event
   * any of `observers` received is that very settlement. `after` names the fault for the
   * cannot-tell message, `recovered` says how the result came back; the settled state is returned.
   */
  async expectRecoveredCompletion(
    taskId: string,
    expected: { readonly value: string; readonly after: string; readonly recovered: string },
    observers: readonly Caller[] = [this.caller],
  ): Promise<TaskState> {
    const settled = await this.stateOnceSettled(taskId, 'task-recovery.state-contents', expected.after);
    const resultExchange = await this.result(taskId);
    const result = expectTaskResult(resultExchange, 'task-recovery.result-only-terminal');
    expectThat(
      resultExchange.reply.xml,
      'task-recovery.result-only-terminal',
      `the task's own completion, {"value":"${expected.value}"} in structuredContent, ${expected.recovered}`,
      settled.state === 'completed' && result.json.includes(expected.value),
    );
    for (const observer of observers) {
      for (const received of observer.events.all(taskId)) {
        if (!received.valid || !isTerminalEvent(received)) continue;
        expectThat(
          received.stanza.xml,
          'task-states.terminal-immutable',
          `the terminal event task-state and task-result report: ${settled.state} at revision ${String(settled.revision)}`,
          received.event.type === settled.state &&
            received.event.revision === settled.revision &&
            canonicalJson(parseStrictJson(received.event.json)) ===
              canonicalJson(parseStrictJson(result.json)),
        );
      }
    }
    return settled;
  }

  /**
   * Waits for the task to settle and fails unless it completed echoing exactly `inputs` (the
   * script's `complete: {echoInputs: true}`): the answers the tool was given, and no other.
   */
  async expectCompletedWithInputs(
    taskId: string,
    inputs: readonly JsonValue[],
    requirement: RequirementId,
    expected: string,
  ): Promise<void> {
    const history = await this.awaitSettled(taskId);
    const wanted = canonicalJson({ result: { content: [], structuredContent: { inputs: [...inputs] } } });
    expectThat(
      history.at(-1)?.stanza.xml ?? '',
      requirement,
      `${expected}: ${wanted}`,
      canonicalJson(terminalPayload(history).payload) === wanted,
    );
  }

  /**
   * After settlement nothing changed (#task-states, #cancellation): no event after the terminal
   * one (nor another at its revision), and task-state and task-result still give its state,
   * revision and payload. The state request goes first, on the route the events take: once it is
   * answered, any event sent before it has arrived.
   */
  async expectSettlementKept(taskId: string, settled: Settlement, requirement: RequirementId): Promise<void> {
    const stateExchange = await this.state(taskId);
    const payload = canonicalJson(settled.payload);
    const later = this.caller.events
      .all(taskId)
      .filter(
        (received) =>
          !received.valid ||
          received.event.revision > settled.revision ||
          (received.event.revision === settled.revision &&
            (received.event.type !== settled.state || canonicalJson(eventPayload(received)) !== payload)),
      );
    expectThat(
      later.map((received) => received.stanza.xml).join('\n'),
      requirement,
      `no event after ${settled.state} at revision ${String(settled.revision)}`,
      later.length === 0,
    );
    const state = expectTaskState(stateExchange, requirement);
    expectThat(
      stateExchange.reply.xml,
      requirement,
      `<task-state/> still ${settled.state} at revision ${String(settled.revision)} with its result available`,
      state.state === settled.state && state.revision === settled.revision && state.resultAvailable,
    );
    const resultExchange = await this.result(taskId);
    const result = expectTaskResult(resultExchange, requirement);
    let resultPayload = '';
    try {
      resultPayload = canonicalJson(parseStrictJson(result.json));
    } catch {
      // Not JSON: compared as empty, which no terminal payload is.
    }
    expectThat(
      resultExchange.reply.xml,
      requirement,
      `<task-result/> still ${settled.state} at revision ${String(settled.revision)} with ${payload}`,
      result.state === settled.state && result.revision === settled.revision && resultPayload === payload,
    );
  }
}
