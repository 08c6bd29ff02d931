/**
 * The metered bucket decision: a full bucket serves its burst, a gateway that served past it
 * meets must-refuse answers however slowly they come back, and refills are bounded by the send and
 * answer times.
 */
import { describe, expect, it } from 'vitest';
import { fullAgainAt, meteredDecision, type MeteredRequest } from './metered-requests.ts';

const bucket = { burst: 3, perSecond: 10 };
const at = (time: number, took: MeteredRequest['took'] = 'one'): MeteredRequest => ({
  sentAt: time,
  answeredAt: time + 0.001,
  took,
});

describe('meteredDecision', () => {
  it('serves the burst from a full bucket, then leaves the next open only within its refill', () => {
    const past = [at(0), at(0), at(0)];
    expect(meteredDecision(bucket, 0, past.slice(0, 2), { sentAt: 0, answeredAt: 0.001 })).toBe('serve');
    expect(meteredDecision(bucket, 0, past, { sentAt: 0.001, answeredAt: 0.002 })).toBe('limit');
    expect(meteredDecision(bucket, 0, past, { sentAt: 0.05, answeredAt: 0.2 })).toBe('either');
    expect(meteredDecision(bucket, 0, past, { sentAt: 0.2, answeredAt: 0.21 })).toBe('serve');
  });

  it('holds a gateway to what it served: past the burst plus the refill it had, the next must be refused', () => {
    const served = Array.from({ length: 8 }, (_, index) => ({
      sentAt: 0,
      answeredAt: 0.2 + index * 0.01,
      took: 'one' as const,
    }));
    expect(meteredDecision(bucket, 0, served, { sentAt: 0, answeredAt: 0.3 })).toBe('limit');
  });

  it('counts an unauthorized refusal as perhaps metered: it never forces a refusal, and never a service', () => {
    const past = [at(0), at(0), at(0, 'maybe')];
    expect(meteredDecision(bucket, 0, past, { sentAt: 0.001, answeredAt: 0.002 })).toBe('either');
  });
});

describe('fullAgainAt', () => {
  it('is a full refill after the last answer, so a request sent then has the whole burst', () => {
    const past = [at(0), at(0.5, 'none'), at(0.2, 'maybe')];
    const again = fullAgainAt(bucket, 0, past);
    expect(again).toBeCloseTo(0.501 + 0.4);
    expect(meteredDecision(bucket, 0, past, { sentAt: again, answeredAt: again + 0.001 })).toBe('serve');
  });

  it('counts from the full start when nothing was sent', () => {
    expect(fullAgainAt(bucket, 2, [])).toBeCloseTo(2.4);
  });
});
