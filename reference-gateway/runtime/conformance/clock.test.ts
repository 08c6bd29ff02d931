import { describe, expect, it } from 'vitest';
import { SYSTEM_CLOCK, untilAborted } from './clock.ts';

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
