/**
 * Escalating holds: a case that needs something held (a task running, a link delayed) for as long
 * as its checks take tries a short hold first, since every case pays for its hold, and a longer
 * one only when what it observed shows the hold ended too soon. Running out of rungs is never a
 * pass: the caller gets the last rung's evidence back and says it cannot tell.
 */

/** One try: decided (whatever the verdict), or the hold was too short, with what showed it. */
export type Attempt<T, E> =
  { readonly kind: 'decided'; readonly value: T } | { readonly kind: 'too-short'; readonly evidence: E };

/** The ladder's outcome, with the rung it ended on. */
export type Escalation<T, E> =
  | { readonly kind: 'decided'; readonly value: T; readonly ms: number }
  | { readonly kind: 'exhausted'; readonly evidence: E; readonly ms: number };

export const decided = <T>(value: T): Attempt<T, never> => ({ kind: 'decided', value });
export const tooShort = <E>(evidence: E): Attempt<never, E> => ({ kind: 'too-short', evidence });

export interface Rung {
  readonly ms: number;
  /** No longer rung follows: what a try does only to prepare the next one can be left out. */
  readonly last: boolean;
}

/**
 * Tries `tryOnce` on each rung of `ladder` (milliseconds, shortest first) until one decides.
 * `beforeLonger` runs between a too-short try and the next rung (a transcript note, undoing what
 * the try changed); it does not run after the last rung. What `tryOnce` throws ends the ladder.
 */
export async function escalating<T, E>(
  ladder: readonly [number, ...number[]],
  tryOnce: (rung: Rung) => Promise<Attempt<T, E>>,
  beforeLonger: (evidence: E, ms: number) => Promise<void> | void = () => undefined,
): Promise<Escalation<T, E>> {
  const shorter = ladder.slice(0, -1);
  for (const ms of shorter) {
    const attempt = await tryOnce({ ms, last: false });
    if (attempt.kind === 'decided') return { kind: 'decided', value: attempt.value, ms };
    await beforeLonger(attempt.evidence, ms);
  }
  const ms = ladder.at(-1) ?? ladder[0];
  const attempt = await tryOnce({ ms, last: true });
  return attempt.kind === 'decided'
    ? { kind: 'decided', value: attempt.value, ms }
    : { kind: 'exhausted', evidence: attempt.evidence, ms };
}
