/**
 * A clock that moves only when a test says so: waits and expiries of the conformance tools
 * then take no real time, and a test can see that a step is sleeping before it moves time.
 */
import type { RuntimeClock } from '../clock.ts';

interface Sleeper {
  readonly wakeAt: number;
  readonly wake: () => void;
}

/** 2026-01-01T00:00:00Z: a fixed start, so computed expiry instants are predictable. */
export const FAKE_EPOCH = Date.UTC(2026, 0, 1);

export class FakeClock implements RuntimeClock {
  #now: number;
  readonly #sleepers = new Set<Sleeper>();
  #onSleep: (() => void)[] = [];

  constructor(start = FAKE_EPOCH) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleepUntil(wakeAt: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || wakeAt <= this.#now) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        wakeAt,
        wake: () => {
          this.#sleepers.delete(sleeper);
          signal.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      signal.addEventListener('abort', sleeper.wake, { once: true });
      this.#sleepers.add(sleeper);
      const waiting = this.#onSleep;
      this.#onSleep = [];
      for (const notify of waiting) notify();
    });
  }

  /** How many sleeps are in progress. */
  get sleeping(): number {
    return this.#sleepers.size;
  }

  /** The instants the current sleeps end at, earliest first. */
  get wakeTimes(): number[] {
    return [...this.#sleepers].map((s) => s.wakeAt).sort((a, b) => a - b);
  }

  /** Resolves once some sleep is in progress (at once if one already is). */
  whenSleeping(): Promise<void> {
    if (this.#sleepers.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#onSleep.push(resolve);
    });
  }

  /** Moves time forward and wakes every sleep whose instant has come. */
  advance(ms: number): void {
    this.#now += ms;
    for (const sleeper of [...this.#sleepers]) {
      if (sleeper.wakeAt <= this.#now) sleeper.wake();
    }
  }
}
