/**
 * Time as the conformance tools see it. Waits and input expiries are computed from an injected
 * clock, so unit tests drive them instantly with a fake and production uses real time; the
 * tools never read Date.now() or call setTimeout themselves.
 */

export interface RuntimeClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves once `now()` has reached `wakeAt` (epoch milliseconds), or as soon as `signal`
   * aborts, whichever comes first. Never rejects; the caller reads the signal to tell which.
   */
  sleepUntil(wakeAt: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout's largest delay; longer sleeps are taken in pieces. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Real time. A timer may fire a little before the instant it was set for (clock adjustments,
 * millisecond rounding), and a scripted wait must never end early — deadline races are timed
 * with it — so the sleep re-arms until the wall clock has really reached `wakeAt`.
 */
export const SYSTEM_CLOCK: RuntimeClock = {
  now: () => Date.now(),
  sleepUntil(wakeAt, signal) {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const arm = (): void => {
        const remaining = wakeAt - Date.now();
        if (remaining <= 0) {
          finish();
          return;
        }
        timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
      };
      if (signal.aborted) {
        resolve();
        return;
      }
      signal.addEventListener('abort', finish, { once: true });
      arm();
    });
  },
};

/** A source of time with one-shot timers, such as the task engine's clock (tasks/clock.ts). */
export interface TimerSource {
  now(): number;
  setTimer(delayMs: number, fire: () => void): { cancel(): void };
}

/**
 * The runtime clock on top of another clock's timers. The gateway gives the tools the engine's
 * own clock this way, so a scripted wait and the engine's deadline and expiry checks read the
 * same time: a completion scripted just before the deadline is just before it for the commit
 * boundary too (#cancellation).
 */
export function clockFromTimers(source: TimerSource): RuntimeClock {
  return {
    now: () => source.now(),
    sleepUntil(wakeAt, signal) {
      return new Promise((resolve) => {
        if (signal.aborted) {
          resolve();
          return;
        }
        let timer: { cancel(): void } | undefined;
        const finish = (): void => {
          timer?.cancel();
          signal.removeEventListener('abort', finish);
          resolve();
        };
        const arm = (): void => {
          const remaining = wakeAt - source.now();
          if (remaining <= 0) finish();
          else timer = source.setTimer(remaining, arm);
        };
        signal.addEventListener('abort', finish, { once: true });
        arm();
      });
    },
  };
}

/** Resolves when `signal` aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}
