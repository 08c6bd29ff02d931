import { describe, expect, it } from 'vitest';
import {
  drivableRateLimits,
  MAX_DRIVEN_BURST,
  REFILL_WAIT_LIMIT_S,
  undrivenAdvice,
  whyNotDrivable,
} from './drivable-rate-limits.ts';

const at = (documentedAt: string, burst: number, perSecond: number) => ({ burst, perSecond, documentedAt });

describe('documented buckets a rate-limit case can drive', () => {
  it('drives a small bucket that refills within the wait', () => {
    expect(whyNotDrivable(at('limits.rateLimits.discovery', 10, 40))).toBeUndefined();
    expect(whyNotDrivable(at('x', MAX_DRIVEN_BURST, 1_000))).toBeUndefined();
  });

  it('leaves a burst of thousands and a slow refill undriven, naming the member', () => {
    expect(whyNotDrivable(at('limits.rateLimits.discovery', 10_000, 1_000))).toMatch(
      /^limits\.rateLimits\.discovery has a burst of 10000, more than the 500/,
    );
    expect(whyNotDrivable(at('limits.rateLimits.search', 100, 1))).toMatch(
      new RegExp(`refills in full in 101\\.0 s, longer than the ${String(REFILL_WAIT_LIMIT_S)} s`),
    );
  });

  it('splits the operations asked for and ignores the rest', () => {
    const { drivable, undriven } = drivableRateLimits(
      {
        discovery: at('a', 10, 40),
        search: at('b', 10_000, 1_000),
        invocation: at('c', 10, 40),
      },
      (operation) => operation !== 'invocation',
    );
    expect(drivable.map(([operation]) => operation)).toEqual(['discovery']);
    expect(undriven).toHaveLength(1);
    expect(undrivenAdvice('prober@server.example', undriven)).toMatch(
      /^b has a burst .*: document smaller buckets for prober@server\.example under limits\.principalRateLimits/,
    );
  });
});
