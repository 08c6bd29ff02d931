import { describe, expect, it } from 'vitest';
import { SYSTEM_CLOCK, clockFromTimers, untilAborted } from './clock.ts';

describe('SYSTEM_CLOCK', () => {
  it('never wakes before the instant it was asked for', async () => {
    const signal = new AbortController().signal;
    for (let i = 0; i < 5; i += 1) {
      const wakeAt = SYSTEM_CLOCK.now() + 3;
      await SYSTEM_CLOCK.sleepUntil(wakeAt, signal);
      expect(Date.now()).toBeGreaterThanOrEqual(wakeAt);
    }
  });

  it('wakes at once on abort, and does not sleep for an instant already past', async () => {
    const controller = new AbortController();
    const sleeping = SYSTEM_CLOCK.sleepUntil(SYSTEM_CLOCK.now() + 3_600_000, controller.signal);
    controller.abort();
    await sleeping;
    await SYSTEM_CLOCK.sleepUntil(0, new AbortController().signal);
    await SYSTEM_CLOCK.sleepUntil(SYSTEM_CLOCK.now() + 3_600_000, controller.signal);
  });
});

describe('untilAborted', () => {
  it('resolves when the signal aborts, or at once when it already has', async () => {
    const controller = new AbortController();
    let done = false;
    const waiting = untilAborted(controller.signal).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    controller.abort();
    await waiting;
    expect(done).toBe(true);
    await untilAborted(controller.signal);
  });
});

describe('clockFromTimers', () => {
  /** Timers that fire only when the test moves time, like the task engine's fake clock. */
  function manualTimers() {
    let now = 1000;
    const timers = new Set<{ due: number; fire: () => void }>();
    return {
      now: () => now,
      setTimer(delayMs: number, fire: () => void) {
        const timer = { due: now + delayMs, fire };
        timers.add(timer);
        return {
          cancel() {
            timers.delete(timer);
          },
        };
      },
      advance(ms: number) {
        now += ms;
        for (const timer of [...timers]) {
          if (timer.due <= now) {
            timers.delete(timer);
            timer.fire();
          }
        }
      },
      get pending() {
        return timers.size;
      },
    };
  }

  it('sleeps on the source clock until the instant, and cancels its timer on abort', async () => {
    const source = manualTimers();
    const clock = clockFromTimers(source);
    expect(clock.now()).toBe(1000);
    let woke = false;
    const sleeping = clock.sleepUntil(1500, new AbortController().signal).then(() => {
      woke = true;
    });
    source.advance(499);
    await Promise.resolve();
    expect(woke).toBe(false);
    source.advance(1);
    await sleeping;
    const controller = new AbortController();
    const aborted = clock.sleepUntil(10_000, controller.signal);
    expect(source.pending).toBe(1);
    controller.abort();
    await aborted;
    expect(source.pending).toBe(0);
    await clock.sleepUntil(0, new AbortController().signal);
    expect(source.pending).toBe(0);
  });
});
