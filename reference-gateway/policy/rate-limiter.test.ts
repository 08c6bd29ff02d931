import { describe, expect, it } from 'vitest';
import { admit } from './admission.ts';
import { RateLimiter } from './rate-limiter.ts';

function clock(start = 0): { now: () => number; advance(ms: number): void } {
  let time = start;
  return {
    now: () => time,
    advance(ms) {
      time += ms;
    },
  };
}

describe('RateLimiter (#security: rate-limit per principal)', () => {
  it('allows a burst, then refills at the configured rate', () => {
    const time = clock();
    const limiter = new RateLimiter({ search: { burst: 3, perSecond: 2 } }, time.now);
    expect([1, 2, 3].map(() => limiter.take('search', 'alice@example.com').allowed)).toEqual([
      true,
      true,
      true,
    ]);
    expect(limiter.take('search', 'alice@example.com')).toEqual({ allowed: false, retryAfterMs: 500 });
    time.advance(499);
    expect(limiter.take('search', 'alice@example.com').allowed).toBe(false);
    time.advance(1);
    expect(limiter.take('search', 'alice@example.com').allowed).toBe(true);
    time.advance(60_000);
    expect([1, 2, 3, 4].map(() => limiter.take('search', 'alice@example.com').allowed)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('keeps separate buckets per principal and per operation', () => {
    const limiter = new RateLimiter(
      { search: { burst: 1, perSecond: 1 }, invocation: { burst: 1, perSecond: 1 } },
      () => 0,
    );
    expect(limiter.take('search', 'alice@example.com').allowed).toBe(true);
    expect(limiter.take('search', 'alice@example.com').allowed).toBe(false);
    expect(limiter.take('search', 'bob@server.example').allowed).toBe(true);
    expect(limiter.take('invocation', 'alice@example.com').allowed).toBe(true);
  });

  it('gives a principal named in principalRules its own bucket size for the operations named', () => {
    const limiter = new RateLimiter(
      { discovery: { burst: 100, perSecond: 100 }, search: { burst: 100, perSecond: 100 } },
      () => 0,
      undefined,
      new Map([['prober@server.example', { discovery: { burst: 2, perSecond: 1 } }]]),
    );
    const taken = (operation: 'discovery' | 'search', principal: string, times: number): boolean[] =>
      Array.from({ length: times }, () => limiter.take(operation, principal).allowed);
    expect(taken('discovery', 'prober@server.example', 3)).toEqual([true, true, false]);
    expect(taken('search', 'prober@server.example', 3)).toEqual([true, true, true]);
    expect(taken('discovery', 'bob@server.example', 3)).toEqual([true, true, true]);
    expect(
      () =>
        new RateLimiter(
          { search: { burst: 1, perSecond: 1 } },
          () => 0,
          undefined,
          new Map([['x@y', { search: { burst: 0, perSecond: 1 } }]]),
        ),
    ).toThrow(/search of x@y/);
  });

  it('does not drain on a clock that steps back', () => {
    const time = clock(10_000);
    const limiter = new RateLimiter({ search: { burst: 1, perSecond: 1 } }, time.now);
    expect(limiter.take('search', 'a@x.example').allowed).toBe(true);
    time.advance(-5_000);
    expect(limiter.take('search', 'a@x.example').allowed).toBe(false);
    time.advance(6_000);
    expect(limiter.take('search', 'a@x.example').allowed).toBe(true);
  });

  it('bounds the buckets it tracks, forgetting full ones first', () => {
    const time = clock();
    const limiter = new RateLimiter({ search: { burst: 2, perSecond: 1 } }, time.now, 10);
    for (let i = 0; i < 10; i++) limiter.take('search', `user${i}@example.com`);
    time.advance(5_000); // every bucket is full again
    limiter.take('search', 'new@example.com');
    expect(limiter.trackedBuckets).toBeLessThanOrEqual(10);
    for (let i = 0; i < 100; i++) limiter.take('search', `drained${i}@example.com`);
    expect(limiter.trackedBuckets).toBeLessThanOrEqual(10);
  });

  it('refuses nonsense rules', () => {
    expect(() => new RateLimiter({ search: { burst: 0, perSecond: 1 } }, () => 0)).toThrow(RangeError);
    expect(() => new RateLimiter({ search: { burst: 1, perSecond: 0 } }, () => 0)).toThrow(RangeError);
  });
});

describe('admit: authorization before resource-constraint (interp-42)', () => {
  it('never tells an unauthorized requester that it is rate limited, but charges it all the same', () => {
    const limiter = new RateLimiter({ discovery: { burst: 2, perSecond: 1 } }, () => 0);
    const who = 'mallory@hostile.example';
    expect(admit(limiter, 'discovery', who, false)).toEqual({ kind: 'unauthorized' });
    expect(admit(limiter, 'discovery', who, false)).toEqual({ kind: 'unauthorized' });
    expect(admit(limiter, 'discovery', who, false)).toEqual({ kind: 'unauthorized' });
    // Its bucket is empty now: probing hidden objects cost it the same as real requests.
    expect(admit(limiter, 'discovery', who, true)).toEqual({ kind: 'rate-limited', retryAfterMs: 1000 });
  });

  it('lets an authorized requester through until its bucket is empty', () => {
    const limiter = new RateLimiter({ discovery: { burst: 1, perSecond: 1 } }, () => 0);
    expect(admit(limiter, 'discovery', 'bob@server.example', true)).toEqual({ kind: 'proceed' });
    expect(admit(limiter, 'discovery', 'bob@server.example', true).kind).toBe('rate-limited');
  });
});
