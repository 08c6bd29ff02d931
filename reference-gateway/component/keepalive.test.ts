// Inactivity pings with hand-moved timers: when a ping goes out, what re-arms the idle timer, and
// when the stream is declared dead.
import { describe, expect, it } from 'vitest';
import { Keepalive } from './keepalive.ts';
import { FakeTiming } from './test-support/fake-timing.ts';

interface PingCall {
  readonly timeoutMs: number;
  readonly settle: (replied: boolean) => void;
}

function setup() {
  const timing = new FakeTiming();
  const pings: PingCall[] = [];
  let deaths = 0;
  const keepalive = new Keepalive({
    policy: { idleMs: 1000, timeoutMs: 200 },
    timing,
    ping: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        pings.push({ timeoutMs, settle: resolve });
      }),
    onDead: () => (deaths += 1),
  });
  return { timing, pings, keepalive, deaths: () => deaths };
}

describe('Keepalive', () => {
  it('pings after the idle time without inbound traffic, and not before', async () => {
    const { timing, pings, keepalive } = setup();
    keepalive.start();
    await timing.advance(999);
    expect(pings).toHaveLength(0);
    await timing.advance(1);
    expect(pings.map((p) => p.timeoutMs)).toEqual([200]);
    expect(keepalive.pings).toBe(1);
  });

  it('restarts the idle time on every inbound byte', async () => {
    const { timing, pings, keepalive } = setup();
    keepalive.start();
    for (let i = 0; i < 5; i += 1) {
      await timing.advance(900);
      keepalive.activity();
    }
    expect(pings).toHaveLength(0);
    await timing.advance(1000);
    expect(pings).toHaveLength(1);
  });

  it('re-arms after a reply and pings again after the next idle period', async () => {
    const { timing, pings, keepalive, deaths } = setup();
    keepalive.start();
    await timing.advance(1000);
    pings[0]?.settle(true);
    await timing.advance(999);
    expect(pings).toHaveLength(1);
    await timing.advance(1);
    expect(pings).toHaveLength(2);
    expect(deaths()).toBe(0);
  });

  it('declares the stream dead when the ping gets no reply and nothing else arrived', async () => {
    const { timing, pings, keepalive, deaths } = setup();
    keepalive.start();
    await timing.advance(1000);
    pings[0]?.settle(false);
    await timing.advance(0);
    expect(deaths()).toBe(1);
    // Dead means stopped: no further pings until the next start().
    await timing.advance(10_000);
    expect(pings).toHaveLength(1);
    keepalive.start();
    await timing.advance(1000);
    expect(pings).toHaveLength(2);
  });

  it('keeps a stream that delivered other traffic while the ping was unanswered', async () => {
    const { timing, pings, keepalive, deaths } = setup();
    keepalive.start();
    await timing.advance(1000);
    keepalive.activity();
    pings[0]?.settle(false);
    await timing.advance(0);
    expect(deaths()).toBe(0);
    await timing.advance(1000);
    expect(pings).toHaveLength(2);
  });

  it('ignores the outcome of a ping from before a stop or restart', async () => {
    const { timing, pings, keepalive, deaths } = setup();
    keepalive.start();
    await timing.advance(1000);
    keepalive.stop();
    pings[0]?.settle(false);
    await timing.advance(0);
    expect(deaths()).toBe(0);
    expect(timing.pendingTimers).toBe(0);
    keepalive.activity(); // while stopped: nothing is armed
    expect(timing.pendingTimers).toBe(0);
  });

  it('refuses non-positive timings', () => {
    const timing = new FakeTiming();
    expect(
      () =>
        new Keepalive({
          policy: { idleMs: 0, timeoutMs: 1 },
          timing,
          ping: () => Promise.resolve(true),
          onDead: () => undefined,
        }),
    ).toThrow(RangeError);
  });
});
