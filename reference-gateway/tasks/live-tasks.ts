/**
 * What the engine holds in memory for tasks whose runtime is running: the two signals of the
 * runtime contract, the waiter of a pending input request, and the timers. Nothing here is
 * authoritative — the store is — so a restart loses only what crash recovery settles anyway.
 */
import type { InputOutcome } from '../runtime/tool-runtime.ts';
import type { TimerHandle } from './clock.ts';

export interface InputWaiter {
  readonly requestId: string;
  readonly resolve: (outcome: InputOutcome) => void;
}

export interface LiveTask {
  readonly cancellation: AbortController;
  readonly settled: AbortController;
  inputWaiter: InputWaiter | undefined;
  inputTimer: TimerHandle | undefined;
  deadlineTimer: TimerHandle | undefined;
}

export class LiveTasks {
  readonly #tasks = new Map<string, LiveTask>();
  #closed = false;

  /** The task's live entry, created on first use. */
  entry(taskId: string): LiveTask {
    let live = this.#tasks.get(taskId);
    if (live === undefined) {
      live = {
        cancellation: new AbortController(),
        settled: new AbortController(),
        inputWaiter: undefined,
        inputTimer: undefined,
        deadlineTimer: undefined,
      };
      this.#tasks.set(taskId, live);
    }
    return live;
  }

  peek(taskId: string): LiveTask | undefined {
    return this.#tasks.get(taskId);
  }

  /** A cancellation was accepted: tell the runtime (advisory, #cancellation). */
  cancelling(taskId: string): void {
    this.#tasks.get(taskId)?.cancellation.abort();
  }

  /** The pending input request ended; the runtime learns how. */
  resolveInput(taskId: string, requestId: string, outcome: InputOutcome): void {
    const live = this.#tasks.get(taskId);
    if (live === undefined) return;
    live.inputTimer?.cancel();
    live.inputTimer = undefined;
    const waiter = live.inputWaiter;
    if (waiter?.requestId !== requestId) return;
    live.inputWaiter = undefined;
    waiter.resolve(outcome);
  }

  /** The task is terminal: abort `settled`, end any input wait, stop its timers, forget it. */
  settled(taskId: string): void {
    const live = this.#tasks.get(taskId);
    if (live === undefined) return;
    this.#tasks.delete(taskId);
    live.deadlineTimer?.cancel();
    live.inputTimer?.cancel();
    const waiter = live.inputWaiter;
    live.inputWaiter = undefined;
    live.settled.abort();
    waiter?.resolve({ kind: 'settled' });
  }

  /**
   * Engine shutdown: stops every timer and tells every running tool to stop (`settled`, and
   * `settled` for a pending input wait), so no tool keeps the process alive or works on after
   * the gateway stopped. Nothing is committed for them: the store keeps the state they had,
   * and the next start's crash recovery settles them (no task runs twice).
   */
  close(): void {
    this.#closed = true;
    const live = [...this.#tasks.values()];
    this.#tasks.clear();
    for (const task of live) {
      task.deadlineTimer?.cancel();
      task.inputTimer?.cancel();
    }
    for (const task of live) {
      const waiter = task.inputWaiter;
      task.inputWaiter = undefined;
      task.settled.abort();
      waiter?.resolve({ kind: 'settled' });
    }
  }

  /** True once the engine was closed: from then on nothing may commit any more. */
  get closed(): boolean {
    return this.#closed;
  }

  get size(): number {
    return this.#tasks.size;
  }
}
