import { describe, expect, it } from 'vitest';
import { decided, escalating, tooShort, type Attempt, type Rung } from './escalating.ts';

/** A try that answers from a script, one answer per rung, and records the rungs it was given. */
function scripted<T, E>(
  answers: readonly Attempt<T, E>[],
): {
  readonly tryOnce: (rung: Rung) => Promise<Attempt<T, E>>;
  readonly rungs: Rung[];
} {
  const rungs: Rung[] = [];
  return {
    rungs,
    tryOnce: (rung) => {
      rungs.push(rung);
      const answer = answers[rungs.length - 1];
      if (answer === undefined) throw new Error(`no answer scripted for rung ${String(rungs.length)}`);
      return Promise.resolve(answer);
    },
  };
}

describe('escalating holds', () => {
  it('does not retry when the first rung decides', async () => {
    const { tryOnce, rungs } = scripted([decided('ok')]);
    const retried: number[] = [];
    const outcome = await escalating([100, 400], tryOnce, (_evidence, ms) => {
      retried.push(ms);
    });
    expect(outcome).toEqual({ kind: 'decided', value: 'ok', ms: 100 });
    expect(rungs).toEqual([{ ms: 100, last: false }]);
    expect(retried).toEqual([]);
  });

  it('climbs only past rungs shown too short, preparing each longer one', async () => {
    const { tryOnce, rungs } = scripted<string, string>([tooShort('settled at 90 ms'), decided('ok')]);
    const retried: [string, number][] = [];
    const outcome = await escalating([100, 400, 1_600], tryOnce, (evidence, ms) => {
      retried.push([evidence, ms]);
    });
    expect(outcome).toEqual({ kind: 'decided', value: 'ok', ms: 400 });
    expect(rungs.map((rung) => rung.ms)).toEqual([100, 400]);
    expect(retried).toEqual([['settled at 90 ms', 100]]);
  });

  it('ends exhausted, never decided, when the last rung is too short too', async () => {
    const { tryOnce, rungs } = scripted<string, string>([tooShort('first'), tooShort('second')]);
    const retried: number[] = [];
    const outcome = await escalating([300, 1_000], tryOnce, (_evidence, ms) => {
      retried.push(ms);
    });
    // The caller turns this into its cannot-tell message, with the last rung's evidence.
    expect(outcome).toEqual({ kind: 'exhausted', evidence: 'second', ms: 1_000 });
    expect(rungs).toEqual([
      { ms: 300, last: false },
      { ms: 1_000, last: true },
    ]);
    expect(retried).toEqual([300]);
  });

  it('tells a one-rung ladder that its rung is the last', async () => {
    const { tryOnce, rungs } = scripted<string, string>([tooShort('only')]);
    expect(await escalating([50], tryOnce)).toEqual({ kind: 'exhausted', evidence: 'only', ms: 50 });
    expect(rungs).toEqual([{ ms: 50, last: true }]);
  });

  it('stops at the verdict a try throws', async () => {
    let tries = 0;
    await expect(
      escalating([100, 400], () => {
        tries += 1;
        return Promise.reject(new Error('the verdict'));
      }),
    ).rejects.toThrow('the verdict');
    expect(tries).toBe(1);
  });
});
