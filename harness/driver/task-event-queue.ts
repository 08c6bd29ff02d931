/**
 * A caller's inbound task events (#events), kept per task in arrival order with a read cursor:
 * next() and waitFor() consume, all() shows everything. Messages that carry an agent-task
 * <event/> but break the #events rules are kept as well, flagged, so that suites can assert that
 * a gateway never sends them (or that a receiver must ignore them).
 */
import type { MessageEnvelope, TaskEvent } from '../../protocol/stanza/index.ts';
import { CallerDisconnected, WaitTimeout } from './errors.ts';
import type { ReceivedStanza } from './received-stanza.ts';

interface ReceivedEventBase {
  /** The message as received (exact XML, strict parse, arrival time). */
  readonly stanza: ReceivedStanza;
  readonly from: string | undefined;
}

export interface ValidTaskEvent extends ReceivedEventBase {
  readonly valid: true;
  readonly taskId: string;
  readonly event: TaskEvent;
  readonly message: MessageEnvelope;
}

export interface MalformedTaskEvent extends ReceivedEventBase {
  readonly valid: false;
  /** The first agent-task <event/>'s task-id attribute as written, when there is one. */
  readonly taskId: string | undefined;
  /** Why it is not a valid lifecycle message (a StanzaParseError or an XmlSyntaxError). */
  readonly problem: Error;
}

export type ReceivedTaskEvent = ValidTaskEvent | MalformedTaskEvent;

export interface EventWaitOptions {
  readonly timeoutMs?: number;
}

interface Waiter {
  readonly taskId: string;
  readonly predicate: (event: ReceivedTaskEvent) => boolean;
  readonly resolve: (event: ReceivedTaskEvent) => void;
  readonly reject: (error: Error) => void;
}

interface TaskLog {
  readonly events: ReceivedTaskEvent[];
  /** Index of the first event not yet consumed by next() or waitFor(). */
  cursor: number;
}

function describeEvent(event: ReceivedTaskEvent): string {
  return event.valid
    ? `${event.event.type} r${event.event.revision}`
    : `malformed (${event.problem.message})`;
}

export class TaskEventQueue {
  readonly #owner: () => string;
  readonly #defaultTimeoutMs: number;
  readonly #tasks = new Map<string, TaskLog>();
  readonly #everything: ReceivedTaskEvent[] = [];
  readonly #waiters = new Set<Waiter>();
  #ended: CallerDisconnected | undefined;

  constructor(owner: () => string, defaultTimeoutMs: number) {
    this.#owner = owner;
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  /** Every event received, valid or not, in arrival order. Without a task ID: of every task. */
  all(taskId?: string): readonly ReceivedTaskEvent[] {
    if (taskId === undefined) return [...this.#everything];
    return [...(this.#tasks.get(taskId)?.events ?? [])];
  }

  /** Every malformed lifecycle message, including those without a usable task ID. */
  malformed(): readonly MalformedTaskEvent[] {
    return this.#everything.filter((event): event is MalformedTaskEvent => !event.valid);
  }

  /** The task's next unconsumed event (valid or malformed), waiting for it up to the deadline. */
  next(taskId: string, options: EventWaitOptions = {}): Promise<ReceivedTaskEvent> {
    return this.waitFor(taskId, () => true, options, 'next event');
  }

  /**
   * The task's first unconsumed event satisfying `predicate`; the cursor moves past it, so the
   * events it skipped are no longer returned by next() (all() still has them).
   */
  waitFor(
    taskId: string,
    predicate: (event: ReceivedTaskEvent) => boolean,
    options: EventWaitOptions = {},
    what = 'matching event',
  ): Promise<ReceivedTaskEvent> {
    const log = this.#log(taskId);
    for (let index = log.cursor; index < log.events.length; index++) {
      const event = log.events[index];
      if (event !== undefined && predicate(event)) {
        log.cursor = index + 1;
        return Promise.resolve(event);
      }
    }
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<ReceivedTaskEvent>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const seen = log.events.map(describeEvent);
        reject(
          new WaitTimeout(
            this.#owner(),
            `${what} of task ${taskId}`,
            timeoutMs,
            seen.length === 0 ? 'none received for this task' : `received for this task: ${seen.join(', ')}`,
          ),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        taskId,
        predicate,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** Called by the caller for every lifecycle message, in arrival order. */
  push(event: ReceivedTaskEvent): void {
    this.#everything.push(event);
    if (event.taskId === undefined) return;
    const log = this.#log(event.taskId);
    log.events.push(event);
    for (const waiter of this.#waiters) {
      if (waiter.taskId !== event.taskId) continue;
      let matches: boolean;
      try {
        matches = waiter.predicate(event);
      } catch (error) {
        this.#waiters.delete(waiter);
        waiter.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (!matches) continue;
      this.#waiters.delete(waiter);
      log.cursor = log.events.length;
      waiter.resolve(event);
      // One waiter consumes one event; the next waiter for the task waits for a later one.
      return;
    }
  }

  /** No event can arrive any more: open and future waits reject with `reason`. */
  end(reason: CallerDisconnected): void {
    this.#ended = reason;
    for (const waiter of this.#waiters) waiter.reject(reason);
    this.#waiters.clear();
  }

  #log(taskId: string): TaskLog {
    let log = this.#tasks.get(taskId);
    if (log === undefined) {
      log = { events: [], cursor: 0 };
      this.#tasks.set(taskId, log);
    }
    return log;
  }
}
