/**
 * The tasks this caller started, and the door every inbound message passes (#events): each
 * message is judged by intakeMessage; a valid next event is committed to its task's record and
 * handed to whoever waits on the task; replays are ignored silently; conflicting revisions and
 * invalid messages are ignored and logged in a bounded, redacted line; a message without a task
 * event is ignored too, since the caller engine has no chat to show anything in.
 */
import type { Element } from '@xmpp/xml';
import { bareJidOf } from '../../protocol/jid/index.ts';
import { terminalStateOfEvent } from '../../protocol/task-states.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { intakeMessage, type AcceptedEvent } from './event-intake.ts';
import { TaskRecord } from './task-record.ts';

export type TaskHappening =
  | { readonly kind: 'event'; readonly accepted: AcceptedEvent }
  /** An event beyond the next revision: state must be recovered before anything else. */
  | { readonly kind: 'gap'; readonly accepted: AcceptedEvent };

function senderOf(message: Element): string {
  const from = message.attrs['from'];
  try {
    return typeof from === 'string' ? bareJidOf(from) : 'an unknown sender';
  } catch {
    return 'an unaddressable sender';
  }
}

/** Messages held while an admission is open, at most (a flood is dropped, not stored). */
const MAX_HELD_MESSAGES = 256;

export class TaskTracker {
  readonly #records = new Map<string, TaskRecord>();
  /**
   * Events can overtake the caller's own bookkeeping: the target sends them right after
   * <accepted/>, and they may be read before the admission's continuation has registered the
   * task. While any admission is open, a message for a task not known yet is held, then
   * replayed once the task is tracked, or judged (and dropped) when no admission is left.
   */
  #openAdmissions = 0;
  #held: Element[] = [];
  readonly #listeners = new Map<string, (happening: TaskHappening) => void>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Marks an admission in flight; call the returned function once it is decided. */
  admissionOpened(): () => void {
    this.#openAdmissions += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#openAdmissions -= 1;
      this.#releaseHeld();
    };
  }

  track(record: TaskRecord): void {
    this.#records.set(record.taskId, record);
  }

  /** Judges the held messages again now that the tracked tasks may have changed (held anew while unknown). */
  #releaseHeld(): void {
    const held = this.#held;
    this.#held = [];
    for (const message of held) this.receive(message);
  }

  record(taskId: string): TaskRecord | undefined {
    return this.#records.get(taskId);
  }

  /** Who hears of the task's accepted events; returns the unsubscribe function. */
  listen(taskId: string, listener: (happening: TaskHappening) => void): () => void {
    this.#listeners.set(taskId, listener);
    return () => {
      if (this.#listeners.get(taskId) === listener) this.#listeners.delete(taskId);
    };
  }

  receive(message: Element): void {
    const intake = intakeMessage(message, (taskId) => this.#records.get(taskId));
    if (intake.kind === 'unknown-task' && this.#openAdmissions > 0 && this.#held.length < MAX_HELD_MESSAGES) {
      this.#held.push(message);
      return;
    }
    switch (intake.kind) {
      case 'not-lifecycle':
        this.#log(
          `ignored a message from ${senderOf(message)} that carries no task event (the caller shows no chat)`,
        );
        return;
      case 'unknown-task':
      case 'invalid':
        this.#log(`protocol error: ignored a lifecycle message from ${senderOf(message)}: ${intake.reason}`);
        return;
      case 'conflict':
        this.#log(
          `protocol error: ignored a conflicting event for task ${intake.taskId} at revision ${String(intake.revision)} from ${senderOf(message)}: ${intake.reason}`,
        );
        return;
      case 'replay':
      case 'stale':
        return;
      case 'gap':
        this.#listeners.get(intake.accepted.record.taskId)?.({ kind: 'gap', accepted: intake.accepted });
        return;
      case 'next': {
        const { record, event, seen, nextState } = intake.accepted;
        record.applyEvent(event.revision, seen, nextState);
        const terminal = terminalStateOfEvent(event.type);
        if (terminal !== undefined) {
          record.settle({ state: terminal, payload: intake.accepted.payload as unknown as JsonValue });
        }
        this.#listeners.get(record.taskId)?.({ kind: 'event', accepted: intake.accepted });
      }
    }
  }
}
