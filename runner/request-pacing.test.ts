// Pacing a run to a documented rate: the pace chosen, the token bucket's schedule on a fake clock,
// and which stanzas wait.
import { describe, expect, it } from 'vitest';

import { gatewayPacer, paceLine, paceOf, TokenBucket, type Clock } from './request-pacing.ts';

/** A clock that moves only when told; sleeps are recorded and move it. */
function fakeClock(): Clock & { at: number; slept: number[] } {
  const clock = {
    at: 1_000,
    slept: [] as number[],
    now: () => clock.at,
    sleep: (ms: number) => {
      clock.slept.push(ms);
      clock.at += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

describe('request pacing', () => {
  it('takes --rate as given over the SUT file, keeps below a documented rate, and says where it came from', () => {
    expect(paceOf({}, undefined)).toBeUndefined();
    expect(paceOf({ requestsPerSecond: 20 }, undefined)).toEqual({
      perSecond: 18,
      burst: 10,
      source: "90 % of the SUT file's limits.requestsPerSecond 20, half its burst 20",
    });
    expect(paceOf({ requestsPerSecond: 2, requestBurst: 1 }, undefined)).toEqual({
      perSecond: 1.8,
      burst: 1,
      source: "90 % of the SUT file's limits.requestsPerSecond 2, half its burst 1",
    });
    expect(paceOf({ requestsPerSecond: 20 }, 0.5)).toEqual({ perSecond: 0.5, burst: 1, source: '--rate' });
    expect(paceLine({ perSecond: 5, burst: 1, source: '--rate' })).toBe(
      'pacing: at most 5 request(s) per second to the gateway after a burst of 1, from --rate',
    );
  });

  it('lets a burst through at once, then one request per interval, and queues concurrent ones', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket({ perSecond: 4, burst: 3 }, clock);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    // Reserved together, the next ones wait 250 ms apart.
    expect([bucket.reserve(), bucket.reserve()]).toEqual([250, 500]);
    clock.at += 2_000;
    // Two seconds of quiet refill the burst, no more.
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0, 250]);
    await bucket.take();
    expect(clock.slept).toEqual([500]);
  });

  it('paces stanzas to the gateway and its endpoints (and raw text), not others', async () => {
    const clock = fakeClock();
    const pace = gatewayPacer(new TokenBucket({ perSecond: 1, burst: 1 }, clock), 'Agents.Example');
    await pace('agents.example');
    await pace('weather@agents.example/x');
    await pace('bob@server.example');
    await pace('agents.example.evil');
    await pace(undefined);
    expect(clock.slept).toEqual([1_000, 1_000]);
  });
});
