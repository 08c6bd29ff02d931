/**
 * What the caller durably knows about one task it started (#events: a lifecycle message is valid
 * only for a locally retained task, from its stored target, consistent with its history): the
 * target's bare JID, the revision and state it last committed to, and each revision's event
 * identity, so that an identical replay is recognized and a conflicting one refused. Pure.
 */
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { EventType, TaskState, TerminalState } from '../../protocol/task-states.ts';

export interface SeenEvent {
  readonly eventId: string;
  readonly type: EventType;
  /** RFC 8785 canonical payload: what "identical" compares (#events). */
  readonly canonicalPayload: string;
}

export interface TerminalOutcome {
  readonly state: TerminalState;
  /** The terminal payload: {result, summary?}, {error} or {reason?}. */
  readonly payload: JsonValue;
}

export class TaskRecord {
  readonly taskId: string;
  /** Normalized bare JID of the target: the only sender whose events count. */
  readonly target: string;
  readonly requestId: string;
  #revision: number;
  #state: TaskState = 'accepted';
  #terminal: TerminalOutcome | undefined;
  readonly #seen = new Map<number, SeenEvent>();

  constructor(taskId: string, target: string, requestId: string, acceptedRevision: number) {
    this.taskId = taskId;
    this.target = target;
    this.requestId = requestId;
    this.#revision = acceptedRevision;
  }

  get revision(): number {
    return this.#revision;
  }

  get state(): TaskState {
    return this.#state;
  }

  get terminal(): TerminalOutcome | undefined {
    return this.#terminal;
  }

  seen(revision: number): SeenEvent | undefined {
    return this.#seen.get(revision);
  }

  /** Commits an event the intake accepted as the next revision. */
  applyEvent(revision: number, event: SeenEvent, state: TaskState): void {
    this.#seen.set(revision, event);
    this.#revision = revision;
    this.#state = state;
  }

  /** Moves to what a task-state answer reported (the recovery source of truth, #task-recovery). */
  recover(revision: number, state: TaskState): void {
    if (revision < this.#revision || this.#terminal !== undefined) return;
    this.#revision = revision;
    this.#state = state;
  }

  settle(outcome: TerminalOutcome): void {
    this.#terminal ??= outcome;
    this.#state = this.#terminal.state;
  }
}
