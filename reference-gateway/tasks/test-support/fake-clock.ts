/** A clock tests move by hand: timers fire only inside `advance`, in due order. */
import type { Clock, TimerHandle } from '../clock.ts';

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly fire: () => void;
  cancelled: boolean;
}

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fire: () => void): TimerHandle {
    const timer: Timer = { due: this.#now + Math.max(0, delayMs), seq: this.#seq++, fire, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel() {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward by `ms`, firing every timer that comes due (also ones set while firing). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      const next = this.#timers
        .filter((t) => t.due <= target)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.due);
      next.fire();
    }
    this.#now = target;
  }

  /** Moves time without firing anything: a late or lost timer (commit-boundary tests). */
  jump(ms: number): void {
    this.#now += ms;
  }

  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }
}
