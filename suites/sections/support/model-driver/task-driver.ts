/**
 * Runs the task-lifecycle model (suites/model/tasks.ts) against real tasks: a ModelledTask keeps
 * the model's view of one task in step with the events the caller receives, sends cancel,
 * provide-input, task-state and task-result, and holds each reply against the set of answers
 * the model accepts for the task as it stands. A reply outside the set, or an event the model
 * does not permit, is a RequirementViolation printing the operation, the accepted answers, the
 * reply and every stanza of the task so far.
 */
import type { IqExchange } from '../../../../harness/driver/index.ts';
import { canonicalJson } from '../../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../../protocol/json/strict-json.ts';
import {
  parseCancelAccepted,
  parseInputAccepted,
  parseTaskResult,
  parseTaskState,
} from '../../../../protocol/stanza/index.ts';
import { isTerminal } from '../../../../protocol/task-states.ts';
import { RequirementViolation } from '../../../framework/verdicts.ts';
import {
  admitted,
  applyEvent,
  cancelAnswers,
  ERROR_TYPES,
  LifecycleViolation,
  provideInputAnswers,
  taskResultAnswer,
  taskStateAnswer,
  type CancellationTuple,
  type InputTuple,
  type ModelTask,
  type ObservedEvent,
  type TaskAlternative,
  type TaskAnswer,
  type TaskExpectation,
} from '../../../model/index.ts';
import { REQUIREMENT_IDS, type RequirementId } from '../../../registry/requirement-ids.ts';
import { describeEvent, inputRequestId, statusState } from '../task-events.ts';
import type { TaskSession } from '../task-session.ts';

/** The requestId of a task-state's pending input request, if any. */
function pendingRequestId(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  const pending = parseStrictJson(json);
  return isJsonObject(pending) && typeof pending['requestId'] === 'string' ? pending['requestId'] : '';
}

function requirementOf(id: string): RequirementId {
  if (!(REQUIREMENT_IDS as readonly string[]).includes(id))
    throw new Error(`the task model cites ${id}, which the registry does not know`);
  return id as RequirementId;
}

export function describeTaskAnswer(answer: TaskAnswer): string {
  switch (answer.kind) {
    case 'error':
      return `<${answer.condition}/>`;
    case 'cancel-accepted':
    case 'input-accepted':
      return `<${answer.kind} revision='${String(answer.revision)}'/>`;
    case 'task-state':
      return `<task-state/> ${answer.state} at revision ${String(answer.revision)}${answer.pendingInput === undefined ? '' : ` with pending input ${answer.pendingInput}`}`;
    case 'task-result':
      return `<task-result/> ${answer.state} at revision ${String(answer.revision)}`;
  }
}

function describeTaskExpectation(expected: TaskExpectation): string {
  return `${expected.operation}: one of\n  - ${expected.alternatives.map((alternative) => describeTaskAnswer(alternative.answer)).join('\n  - ')}`;
}

/** Why a reply does not match an answer; empty when it does. */
function mismatchOf(answer: TaskAnswer, exchange: IqExchange, taskId: string): string | undefined {
  const { parsed } = exchange;
  if (parsed.type === 'error') {
    if (answer.kind !== 'error') return `<${parsed.error.condition}/>`;
    if (answer.condition !== parsed.error.condition) return `<${parsed.error.condition}/>`;
    const types = ERROR_TYPES[answer.condition] ?? [parsed.error.type];
    return types.includes(parsed.error.type) ? undefined : `error type ${parsed.error.type}`;
  }
  if (answer.kind === 'error') return 'a result';
  const payload = parsed.payload;
  if (payload === undefined) return 'a result without a payload';
  try {
    switch (answer.kind) {
      case 'cancel-accepted':
      case 'input-accepted': {
        const accepted =
          answer.kind === 'cancel-accepted' ? parseCancelAccepted(payload) : parseInputAccepted(payload);
        return accepted.taskId === taskId && accepted.revision === answer.revision
          ? undefined
          : `${answer.kind} for ${accepted.taskId} at revision ${String(accepted.revision)}`;
      }
      case 'task-state': {
        const state = parseTaskState(payload);
        const pending = pendingRequestId(state.pendingInputJson);
        const pendingOk = pending === answer.pendingInput;
        return state.state === answer.state && state.revision === answer.revision && pendingOk
          ? undefined
          : `task-state ${state.state} at revision ${String(state.revision)}, pending input ${pending ?? 'none'}`;
      }
      case 'task-result': {
        const result = parseTaskResult(payload);
        return result.state === answer.state && result.revision === answer.revision
          ? undefined
          : `task-result ${result.state} at revision ${String(result.revision)}`;
      }
    }
  } catch (problem) {
    return `an unreadable result (${problem instanceof Error ? problem.message : String(problem)})`;
  }
}

/** One task as the model and the wire see it. */
export class ModelledTask {
  model: ModelTask = admitted();
  readonly #log: string[] = [];

  constructor(
    readonly session: TaskSession,
    readonly taskId: string,
    admission: IqExchange,
  ) {
    this.#log.push(`sent: ${admission.requestXml}`, `received: ${admission.reply.xml}`);
  }

  /** Every stanza of this task so far: exchanges in order, then the events received. */
  transcript(): string {
    const events = this.session.caller.events
      .all(this.taskId)
      .map((received) => `event: ${received.stanza.xml}`);
    return [...this.#log, ...events].join('\n');
  }

  #violation(requirement: string, expected: string, received: string): RequirementViolation {
    return new RequirementViolation(
      requirementOf(requirement),
      expected,
      `${received}\n--- stanzas of task ${this.taskId} (seed ${String(this.session.context.random.seed)}):\n${this.transcript()}`,
    );
  }

  /** Applies every event received beyond the model's revision, in revision order. */
  sync(): void {
    const events = this.session.caller.events
      .all(this.taskId)
      .flatMap((received) => (received.valid ? [received] : []))
      .filter((received) => received.event.revision >= this.model.revision)
      .toSorted((a, b) => a.event.revision - b.event.revision);
    for (const received of events) {
      if (received.event.revision < this.model.revision) continue;
      const observed: ObservedEvent = {
        type: received.event.type,
        revision: received.event.revision,
        ...(received.event.type === 'status' ? { state: statusState(received) ?? '' } : {}),
        ...(received.event.type === 'input_required' ? { requestId: inputRequestId(received) } : {}),
      };
      // The event announcing the transition the model already made (or a repeat of one).
      if (received.event.revision === this.model.revision && received.event.type !== 'status') continue;
      try {
        this.model = applyEvent(this.model, observed);
      } catch (problem) {
        if (!(problem instanceof LifecycleViolation)) throw problem;
        throw this.#violation(
          problem.requirement,
          'events the task model permits',
          `${describeEvent(received)}: ${problem.message}`,
        );
      }
    }
  }

  /** Waits (event-driven, up to the task timeout) for an event beyond `revision`, then syncs. */
  async awaitBeyond(revision: number = this.model.revision): Promise<void> {
    await this.session.caller.events.waitFor(
      this.taskId,
      (received) => received.valid && received.event.revision > revision,
      { timeoutMs: this.session.context.sut.taskTimeoutMs },
      `an event after revision ${String(revision)}`,
    );
    this.sync();
  }

  /** Waits for the terminal event, then syncs. */
  async awaitTerminal(): Promise<void> {
    this.sync();
    while (!isTerminal(this.model.state)) await this.awaitBeyond();
  }

  /**
   * Sends a request and judges the reply. The task may move while the request is on its way (an
   * event committed first arrives first), so the answers for the task as it stood when the request
   * left and as the events show it when the reply came are both accepted.
   */
  async #judged(
    send: () => Promise<IqExchange>,
    expectationOf: (task: ModelTask) => TaskExpectation,
  ): Promise<{ readonly exchange: IqExchange; readonly matched: TaskAlternative }> {
    this.sync();
    const before = expectationOf(this.model);
    const exchange = await send();
    this.#log.push(`sent: ${exchange.requestXml}`, `received: ${exchange.reply.xml}`);
    const beforeRevision = this.model.revision;
    this.sync();
    const after = this.model.revision === beforeRevision ? before : expectationOf(this.model);
    const alternatives = [...before.alternatives, ...(after === before ? [] : after.alternatives)];
    const matched = alternatives.find(
      (alternative) => mismatchOf(alternative.answer, exchange, this.taskId) === undefined,
    );
    if (matched === undefined) {
      const problems = alternatives.map((alternative) =>
        mismatchOf(alternative.answer, exchange, this.taskId),
      );
      throw this.#violation(
        before.requirements[0] ?? 'task-states.permitted-transitions',
        describeTaskExpectation(after === before ? before : { ...before, alternatives }),
        `${exchange.reply.xml}\n(${[...new Set(problems)].join('; ')})`,
      );
    }
    // An acceptance moves the model unless its events came first; then only its record is kept.
    if (matched.next.revision > this.model.revision) this.model = matched.next;
    else this.model = withAcceptance(this.model, matched);
    return { exchange, matched };
  }

  cancel(
    tuple: CancellationTuple,
  ): Promise<{ readonly exchange: IqExchange; readonly matched: TaskAlternative }> {
    return this.#judged(
      () => this.session.cancel(this.taskId, tuple.expectedRevision, tuple.reason),
      (task) => cancelAnswers(task, tuple),
    );
  }

  provideInput(
    requestId: string,
    expectedRevision: number,
    input: JsonValue,
    valid: boolean,
  ): Promise<{ readonly exchange: IqExchange; readonly matched: TaskAlternative }> {
    const tuple: InputTuple = { requestId, expectedRevision, canonicalInput: canonicalJson(input) };
    return this.#judged(
      () => this.session.provideInput(this.taskId, requestId, expectedRevision, input),
      (task) => provideInputAnswers(task, tuple, valid),
    );
  }

  /** task-state and task-result agree with the model. */
  async checkRecovery(): Promise<void> {
    await this.#judged(() => this.session.state(this.taskId), taskStateAnswer);
    await this.#judged(() => this.session.result(this.taskId), taskResultAnswer);
  }

  /** Ends the task if it still runs (a cancellation at its current revision) and waits for its end. */
  async settle(): Promise<void> {
    this.sync();
    if (isTerminal(this.model.state)) return;
    // The task may move between the revision read and the cancellation: read it from task-state
    // (authoritative) and try again on a conflict, a few times.
    for (let attempt = 0; this.model.cancellation === undefined && attempt < 4; attempt++) {
      const state = await this.session.state(this.taskId);
      const payload = state.parsed.type === 'result' ? state.parsed.payload : undefined;
      const current = payload === undefined ? this.model.revision : parseTaskState(payload).revision;
      if (payload !== undefined && isTerminal(parseTaskState(payload).state)) break;
      const cancelled = await this.session.cancel(this.taskId, current);
      if (cancelled.parsed.type === 'result') break;
    }
    await this.session.awaitSettled(this.taskId);
  }
}

/** The model task with the record an acceptance leaves (for replays), its state left as it is. */
function withAcceptance(task: ModelTask, matched: TaskAlternative): ModelTask {
  if (matched.answer.kind === 'cancel-accepted' && matched.next.cancellation !== undefined)
    return { ...task, cancellation: matched.next.cancellation };
  const { answer } = matched;
  if (answer.kind !== 'input-accepted') return task;
  const answered = matched.next.inputRequests.find(
    (request) => request.disposition.kind === 'answered' && request.disposition.revision === answer.revision,
  );
  if (answered === undefined) return task;
  return {
    ...task,
    inputRequests: task.inputRequests.map((request) =>
      request.requestId === answered.requestId ? answered : request,
    ),
  };
}
