/** GatewayTiming whose timers fire only inside `advance`, in due order: no sleeps in unit tests. */
import type { GatewayTiming } from '../gateway-component.ts';

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
  cancelled: boolean;
}

export class FakeTiming implements GatewayTiming {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];

  readonly setTimeout = (callback: () => void, ms: number): unknown => {
    const timer: Timer = { due: this.#now + Math.max(0, ms), seq: this.#seq++, callback, cancelled: false };
    this.#timers.push(timer);
    return timer;
  };

  readonly clearTimeout = (handle: unknown): void => {
    if (handle !== undefined) (handle as Timer).cancelled = true;
  };

  readonly random = (): number => 0;

  get now(): number {
    return this.#now;
  }

  /** Timers set and neither fired nor cleared. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that comes due (also ones set while firing);
   * settles pending promise callbacks between timers, as the event loop would.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      this.#timers = this.#timers.filter((timer) => !timer.cancelled);
      const next = this.#timers
        .filter((timer) => timer.due <= target)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== next);
      this.#now = Math.max(this.#now, next.due);
      next.callback();
    }
    this.#now = target;
    await flushMicrotasks();
  }
}

/** Lets every queued promise callback (and the ones they queue) run: one macrotask turn. */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}
