/**
 * One call of a remote tool as an XMPP task, from admission to terminal settlement (#invocation,
 * #events, #interactive-input, #cancellation, #task-recovery). Events drive it; a periodic
 * task-state query recovers what lost events would hide (correctness never depends on
 * notification delivery, #task-message-routing), and a revision gap triggers one at once.
 * Progress and input requests go to whoever asked for the call through the sink (an MCP client
 * of the bridge, the caller of a gateway's call-out tool); a cancellation request is advisory
 * until the task settles (`<cancel-accepted/>` alone is not cancellation, #cancellation,
 * #mcp-mapping); the local time limit only ends the wait, never the task (#cancellation: a
 * caller-side timeout asserts nothing remote).
 * Every command and recovery IQ goes to the target's bare JID (#task-message-routing).
 */
import {
  terminalPayloadType,
  validateEventPayload,
  type InputRequiredPayload,
  type ProgressPayload,
} from '../../protocol/events/index.ts';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import {
  buildCancel,
  buildProvideInput,
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseTaskResult,
  parseTaskState,
  type StanzaError,
} from '../../protocol/stanza/index.ts';
import { isTerminal, type TaskState } from '../../protocol/task-states.ts';
import { IqLost, type IqAnswer, type Querier } from '../querier.ts';
import { EVENT_JSON_LIMITS } from './event-intake.ts';
import { admit, type AdmissionTarget } from './invoke-admission.ts';
import { TaskRecord, type TerminalOutcome } from './task-record.ts';
import type { TaskHappening, TaskTracker } from './task-tracker.ts';

export type InputAnswer =
  | { readonly kind: 'input'; readonly value: JsonValue }
  /** Whoever asked for the call declined, cancelled or cannot answer: the target is asked to cancel. */
  | { readonly kind: 'no-input'; readonly reason: string };

/** The side that asked for the call: it hears progress and answers input requests. */
export interface CallSink {
  /** Resolves once the progress is passed on: the call's answer must not overtake it. */
  progress(payload: ProgressPayload, revision: number, taskId: string): Promise<void>;
  /** Asks for the input; `refusedBefore`: the target refused an earlier answer to this request. */
  requestInput(request: InputRequiredPayload, taskId: string, refusedBefore: boolean): Promise<InputAnswer>;
}

export interface ToolCallDeps {
  readonly querier: Querier;
  readonly tracker: TaskTracker;
  readonly now: () => number;
  readonly pollMs: number;
  readonly callTimeoutMs?: number;
  readonly log: (line: string) => void;
}

export type CallOutcome =
  | {
      readonly kind: 'settled';
      readonly taskId: string;
      readonly outcome: TerminalOutcome;
      /** Whoever asked for the call cancelled it before the task settled. */
      readonly cancelRequested: boolean;
    }
  | { readonly kind: 'refused'; readonly requestId: string; readonly error: StanzaError }
  | { readonly kind: 'uncertain'; readonly requestId: string; readonly reason: string }
  | {
      readonly kind: 'timed-out';
      readonly requestId: string;
      readonly taskId?: string;
      /** The state last known; never a terminal claim. */
      readonly lastKnownState?: TaskState;
    };

type Wake =
  TaskHappening | { readonly kind: 'poll' } | { readonly kind: 'abort' } | { readonly kind: 'timeout' };

/** Identical command retries after a lost answer: enough for a lossy link, bounded for a dead one. */
const COMMAND_ATTEMPTS = 3;
const CANCEL_REASON = 'The caller cancelled the call.';

class WakeQueue {
  readonly #items: Wake[] = [];
  #waiter: ((wake: Wake) => void) | undefined;

  push(wake: Wake): void {
    const waiter = this.#waiter;
    if (waiter === undefined) {
      this.#items.push(wake);
      return;
    }
    this.#waiter = undefined;
    waiter(wake);
  }

  /** What is queued now, without waiting. */
  drain(): Wake[] {
    return this.#items.splice(0);
  }

  next(): Promise<Wake> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One running task and the commands the caller sends about it. */
class RunningTask {
  readonly record: TaskRecord;
  readonly #deps: ToolCallDeps;
  readonly #sink: CallSink;
  readonly #answered = new Set<string>();
  readonly #refusedInputs = new Map<string, number>();
  #cancelSent = false;

  constructor(record: TaskRecord, deps: ToolCallDeps, sink: CallSink) {
    this.record = record;
    this.#deps = deps;
    this.#sink = sink;
  }

  get cancelSent(): boolean {
    return this.#cancelSent;
  }

  /** An IQ to the target's bare JID, repeated identically when its answer is lost. */
  async #command(
    type: 'get' | 'set',
    build: () => ReturnType<typeof buildCancel>,
  ): Promise<IqAnswer | undefined> {
    for (let attempt = 1; attempt <= COMMAND_ATTEMPTS; attempt += 1) {
      try {
        return await this.#deps.querier(this.record.target, type, build());
      } catch (error) {
        if (!(error instanceof IqLost)) throw error;
      }
    }
    this.#deps.log(
      `task ${this.record.taskId}: no answer from ${this.record.target} after ${String(COMMAND_ATTEMPTS)} identical attempts`,
    );
    return undefined;
  }

  onEvent(happening: TaskHappening): Promise<void> | undefined {
    if (happening.kind === 'gap') return this.recover();
    const { event, payload } = happening.accepted;
    if (event.type === 'progress') {
      return this.#sink.progress(payload as ProgressPayload, event.revision, this.record.taskId);
    }
    if (event.type === 'input_required') this.#answer(payload as InputRequiredPayload);
    return undefined;
  }

  /** Passes on the progress among events already heard; nothing else matters once settled. */
  async relayProgress(wakes: readonly Wake[]): Promise<void> {
    for (const wake of wakes) {
      if (wake.kind !== 'event' || wake.accepted.event.type !== 'progress') continue;
      const { event, payload } = wake.accepted;
      await this.#sink.progress(payload as ProgressPayload, event.revision, this.record.taskId);
    }
  }

  /** task-state (and task-result once terminal): the recovery source of truth (#task-recovery). */
  async recover(): Promise<void> {
    const { record } = this;
    const answer = await this.#command('get', () => buildTaskStateRequest({ taskId: record.taskId }));
    if (answer === undefined) return;
    if (answer.type === 'error') {
      this.#deps.log(`task ${record.taskId}: task-state answered <${answer.error.condition}/>`);
      return;
    }
    try {
      const state = parseTaskState(answer.payload ?? emptyResult());
      record.recover(state.revision, state.state);
      if (state.pendingInputJson !== undefined && !isTerminal(state.state)) {
        const pending = validateEventPayload(
          'input_required',
          parseStrictJson(state.pendingInputJson, EVENT_JSON_LIMITS),
        );
        if (pending.ok) this.#answer(pending.payload);
      }
      if (isTerminal(state.state) && state.resultAvailable) await this.#retrieveResult();
    } catch (error) {
      this.#deps.log(`task ${record.taskId}: an unusable task-state answer (${describeError(error)})`);
    }
  }

  async #retrieveResult(): Promise<void> {
    const { record } = this;
    const answer = await this.#command('get', () => buildTaskResultRequest({ taskId: record.taskId }));
    if (answer === undefined || answer.type === 'error') return;
    const result = parseTaskResult(answer.payload ?? emptyResult());
    const type = terminalPayloadType(result.state);
    if (type === undefined) return;
    const payload = parseStrictJson(result.json, EVENT_JSON_LIMITS);
    const validation = validateEventPayload(type, payload);
    if (!validation.ok) {
      this.#deps.log(`task ${record.taskId}: the retained ${type} result breaks the event schema; ignored`);
      return;
    }
    record.settle({ state: result.state, payload });
  }

  /** Asks the sink once per input request; a refused answer is asked again, a few times. */
  #answer(request: InputRequiredPayload): void {
    if (this.#answered.has(request.requestId)) return;
    this.#answered.add(request.requestId);
    const refusedBefore = (this.#refusedInputs.get(request.requestId) ?? 0) > 0;
    void this.#sink
      .requestInput(request, this.record.taskId, refusedBefore)
      .then(async (answer) => {
        if (this.record.terminal !== undefined) return;
        if (answer.kind === 'no-input') {
          this.#deps.log(
            `task ${this.record.taskId}: no input for request ${request.requestId} (${answer.reason}); asking the target to cancel`,
          );
          await this.cancel();
          return;
        }
        await this.#provideInput(request, answer.value);
      })
      .catch((error: unknown) => {
        this.#deps.log(
          `task ${this.record.taskId}: input request ${request.requestId} not answered (${describeError(error)})`,
        );
      });
  }

  async #provideInput(request: InputRequiredPayload, value: JsonValue): Promise<void> {
    const { record } = this;
    const inputJson = canonicalJson(value);
    const expectedRevision = record.revision;
    const answer = await this.#command('set', () =>
      buildProvideInput({ taskId: record.taskId, requestId: request.requestId, expectedRevision, inputJson }),
    );
    if (answer === undefined || answer.type === 'result') return;
    const { condition } = answer.error;
    this.#deps.log(
      `task ${record.taskId}: input for request ${request.requestId} refused with <${condition}/>`,
    );
    if (condition === 'not-acceptable' || condition === 'conflict') {
      // Invalid input, or a revision that moved (progress): the request may still be pending.
      const refusals = (this.#refusedInputs.get(request.requestId) ?? 0) + 1;
      this.#refusedInputs.set(request.requestId, refusals);
      if (refusals < COMMAND_ATTEMPTS) {
        this.#answered.delete(request.requestId);
        await this.recover();
      }
    }
  }

  /** Not settled and not already cancelling (read afresh: recover() changes the record). */
  #stillOpen(): boolean {
    return this.record.terminal === undefined && this.record.state !== 'cancelling';
  }

  /** Asks the target to cancel; the task is cancelled only when it settles so (#cancellation). */
  async cancel(): Promise<void> {
    if (this.#cancelSent || this.record.terminal !== undefined) return;
    this.#cancelSent = true;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const expectedRevision = this.record.revision;
      const answer = await this.#command('set', () =>
        buildCancel({ taskId: this.record.taskId, expectedRevision, reason: CANCEL_REASON }),
      );
      if (answer === undefined) return;
      if (answer.type === 'result') {
        this.#deps.log(`task ${this.record.taskId}: cancellation accepted (advisory until the task settles)`);
        return;
      }
      this.#deps.log(`task ${this.record.taskId}: cancellation answered <${answer.error.condition}/>`);
      if (answer.error.condition !== 'conflict') return;
      // Settled meanwhile, or a revision we had not seen: recover and try once more if still open.
      await this.recover();
      if (!this.#stillOpen()) return;
    }
  }
}

function emptyResult(): never {
  throw new Error('an empty result');
}

/** Runs one call to settlement, refusal, uncertainty or the local time limit. */
export async function runToolCall(
  target: AdmissionTarget,
  canonicalArguments: string,
  signal: AbortSignal,
  sink: CallSink,
  deps: ToolCallDeps,
): Promise<CallOutcome> {
  const started = deps.now();
  const timedOut = (): boolean =>
    deps.callTimeoutMs !== undefined && deps.now() - started >= deps.callTimeoutMs;
  const admissionClosed = deps.tracker.admissionOpened();
  let admission;
  try {
    admission = await admit(target, canonicalArguments, {
      querier: deps.querier,
      now: deps.now,
      log: deps.log,
      stop: () =>
        signal.aborted ? 'the call was cancelled' : timedOut() ? 'the local time limit passed' : undefined,
    });
  } catch (error) {
    admissionClosed();
    throw error;
  }
  if (admission.kind !== 'accepted') admissionClosed();
  if (admission.kind === 'refused') return admission;
  if (admission.kind === 'uncertain') {
    return timedOut()
      ? { kind: 'timed-out', requestId: admission.requestId }
      : { kind: 'uncertain', requestId: admission.requestId, reason: admission.reason };
  }
  const { accepted } = admission;
  const record = new TaskRecord(accepted.taskId, target.jid, accepted.requestId, accepted.revision);
  deps.tracker.track(record);
  const task = new RunningTask(record, deps, sink);
  const wakes = new WakeQueue();
  const unlisten = deps.tracker.listen(record.taskId, (happening) => {
    wakes.push(happening);
  });
  // Tracked and heard: events that overtook the admission's answer are replayed now.
  admissionClosed();
  const poll = setInterval(() => {
    wakes.push({ kind: 'poll' });
  }, deps.pollMs);
  const onAbort = (): void => {
    wakes.push({ kind: 'abort' });
  };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) wakes.push({ kind: 'abort' });
  const remaining =
    deps.callTimeoutMs === undefined ? undefined : deps.callTimeoutMs - (deps.now() - started);
  const timer =
    remaining === undefined
      ? undefined
      : setTimeout(
          () => {
            wakes.push({ kind: 'timeout' });
          },
          Math.max(0, remaining),
        );
  try {
    while (record.terminal === undefined) {
      const wake = await wakes.next();
      if (wake.kind === 'timeout') {
        return {
          kind: 'timed-out',
          requestId: record.requestId,
          taskId: record.taskId,
          lastKnownState: record.state,
        };
      }
      if (wake.kind === 'abort') await task.cancel();
      else if (wake.kind === 'poll') await task.recover();
      else await task.onEvent(wake);
    }
    // Events heard before the settlement but not yet handled (they arrived in one read with the
    // terminal event, or while a poll learned the outcome): their progress is passed on before
    // the answer, which must not overtake it.
    await task.relayProgress(wakes.drain());
    return {
      kind: 'settled',
      taskId: record.taskId,
      outcome: record.terminal,
      cancelRequested: task.cancelSent,
    };
  } finally {
    clearInterval(poll);
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    unlisten();
  }
}
