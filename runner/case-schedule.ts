/**
 * The order cases run in under `--jobs N`: in declaration order, up to `jobs` at once, except that
 * a case that must run alone (runner/case-concurrency.ts) waits until every case before it has
 * ended and nothing starts until it has. Results are handed on in declaration order whatever
 * order they end in, so reports read as a sequential run's do. With `jobs` 1 this is the
 * sequential run: each case starts when the one before it has ended.
 */

export interface ScheduledCase<T> {
  /** Runs on a quiet gateway: nothing else runs while it does. */
  readonly alone: boolean;
  /** Starts the case; called at most once, in declaration order. */
  start(): Promise<T>;
}

/**
 * Runs `cases` as above; `finished` gets each result in declaration order, as soon as it and
 * every result before it are in. Resolves with every result, in declaration order. A case whose
 * start rejects rejects the schedule once the cases already started have ended.
 */
export async function runSchedule<T>(
  cases: readonly ScheduledCase<T>[],
  jobs: number,
  finished: (result: T, index: number) => void,
): Promise<T[]> {
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new Error(`jobs must be a whole number ≥ 1, not ${String(jobs)}`);
  const results: T[] = [];
  const done = new Map<number, T>();
  let reported = 0;
  const running = new Set<Promise<unknown>>();
  let failure: { error: unknown } | undefined;
  const report = (): void => {
    while (done.has(reported)) {
      const result = done.get(reported) as T;
      done.delete(reported);
      results.push(result);
      finished(result, reported);
      reported += 1;
    }
  };
  const drainTo = async (size: number): Promise<void> => {
    while (running.size > size) await Promise.race(running);
  };
  for (const [index, scheduled] of cases.entries()) {
    await drainTo(scheduled.alone ? 0 : jobs - 1);
    if (failure !== undefined) break;
    const started = scheduled.start().then(
      (result) => {
        done.set(index, result);
        report();
      },
      (error: unknown) => {
        failure ??= { error };
      },
    );
    const tracked = started.finally(() => running.delete(tracked));
    running.add(tracked);
    if (scheduled.alone) await drainTo(0);
  }
  await drainTo(0);
  if (failure !== undefined) throw failure.error;
  return results;
}
