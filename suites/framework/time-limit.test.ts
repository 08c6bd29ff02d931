import { describe, expect, it } from 'vitest';
import {
  AttemptAbandoned,
  AttemptEvidence,
  refuseSendsOfAbandonedAttempt,
  withEvidence,
} from './evidence.ts';
import { withTimeLimit } from './time-limit.ts';
import { CannotTell } from './verdicts.ts';

describe("a case's time limit", () => {
  it('cannot tell, and refuses every later send of the given-up code', async () => {
    const evidence = new AttemptEvidence();
    let release: () => void = () => undefined;
    const stillRunning = new Promise<void>((resolve) => {
      release = resolve;
    });
    let refused: unknown;
    const limited = withEvidence(evidence, () =>
      withTimeLimit(
        (async () => {
          refuseSendsOfAbandonedAttempt();
          await stillRunning;
          try {
            refuseSendsOfAbandonedAttempt();
          } catch (error) {
            refused = error;
          }
        })(),
        20,
        'case.x',
        evidence,
      ),
    );
    await expect(limited).rejects.toThrow(CannotTell);
    await expect(limited).rejects.toThrow(/case\.x: no verdict within 20 ms/);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(refused).toBeInstanceOf(AttemptAbandoned);
    // Code outside the given-up attempt sends as before.
    expect(() => {
      refuseSendsOfAbandonedAttempt();
    }).not.toThrow();
  });

  it('leaves an attempt that ends in time alone', async () => {
    const evidence = new AttemptEvidence();
    await withEvidence(evidence, () => withTimeLimit(Promise.resolve(), 1_000, 'case.y', evidence));
    expect(evidence.abandoned).toBeUndefined();
  });

  it('does not count a refused send left unawaited as a rejection the case left behind', () => {
    const evidence = new AttemptEvidence();
    evidence.abandon('no verdict within 1 ms');
    evidence.orphaned(new AttemptAbandoned('not sent'));
    evidence.orphaned(new Error('other'));
    expect(evidence.leftBehind).toHaveLength(1);
  });
});
