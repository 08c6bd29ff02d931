import { describe, expect, it } from 'vitest';
import { documentedRateLimitsOf } from './documented-rate-limits.ts';

const LIMITS = {
  rateLimits: {
    discovery: { perSecond: 1000, burst: 10000 },
    search: { perSecond: 500, burst: 50 },
  },
  principalRateLimits: {
    'Prober@Server.Example': {
      discovery: { perSecond: 20, burst: 10 },
      invocation: { perSecond: 5, burst: 2 },
    },
  },
};

describe('the rate limits a SUT file documents for one sender (#security)', () => {
  it("gives a named sender its own buckets and every sender's for the operations it does not name", () => {
    expect(documentedRateLimitsOf(LIMITS, 'prober@server.example/run-1')).toEqual({
      discovery: {
        perSecond: 20,
        burst: 10,
        documentedAt: 'limits.principalRateLimits["Prober@Server.Example"].discovery',
      },
      search: { perSecond: 500, burst: 50, documentedAt: 'limits.rateLimits.search' },
      invocation: {
        perSecond: 5,
        burst: 2,
        documentedAt: 'limits.principalRateLimits["Prober@Server.Example"].invocation',
      },
    });
  });

  it('gives any other sender the general buckets only', () => {
    expect(documentedRateLimitsOf(LIMITS, 'alice@server.example')).toEqual({
      discovery: { perSecond: 1000, burst: 10000, documentedAt: 'limits.rateLimits.discovery' },
      search: { perSecond: 500, burst: 50, documentedAt: 'limits.rateLimits.search' },
    });
  });

  it('documents nothing where the file documents nothing', () => {
    expect(documentedRateLimitsOf(undefined, 'alice@server.example')).toEqual({});
    expect(documentedRateLimitsOf({}, 'alice@server.example')).toEqual({});
  });
});
