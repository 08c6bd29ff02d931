/**
 * The order cases run in under `--jobs N`. With `jobs` 1 it is the sequential run: in declaration
 * order, each case starting when the one before it has ended. Above 1 there are two lanes. The
 * cases that run alongside others (company `any`, runner/case-concurrency.ts) take the readers'
 * lane, in declaration order; every other case takes the main lane, one at a time in declaration
 * order. While the main lane runs a case that may have readers beside it, up to `jobs - 1`
 * readers run with it; before a case that must run alone the readers drain, and none starts
 * until it has ended; once the main lane is empty, up to `jobs` readers run. So the read-only
 * cases fill the time a task case spends waiting on the gateway's clock. Results are handed on
 * in declaration order whatever order they end in, so reports read as a sequential run's do.
 */
import type { Company } from './case-concurrency.ts';

export interface ScheduledCase<T> {
  /** Who may run beside it (case-concurrency.ts); `none` runs on a quiet gateway. */
  readonly company: Company;
  /** Starts the case; called at most once. */
  start(): Promise<T>;
}

/**
 * Runs `cases` as above; `finished` gets each result in declaration order, as soon as it and
 * every result before it are in. Resolves with every result, in declaration order. A case whose
 * start rejects rejects the schedule once the cases already started have ended, and nothing
 * starts after it.
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
  const report = (): void => {
    while (done.has(reported)) {
      const result = done.get(reported) as T;
      done.delete(reported);
      results.push(result);
      finished(result, reported);
      reported += 1;
    }
  };
  const indexed = cases.map((scheduled, index) => ({ scheduled, index }));
  // One lane in declaration order is the sequential run, whatever the companies.
  const main = jobs === 1 ? indexed : indexed.filter(({ scheduled }) => scheduled.company !== 'any');
  const readers = jobs === 1 ? [] : indexed.filter(({ scheduled }) => scheduled.company === 'any');
  let nextMain = 0;
  let nextReader = 0;
  let mainRunning: Company | undefined;
  let readersRunning = 0;
  let failure: { error: unknown } | undefined;
  let settle: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const launch = (entry: { scheduled: ScheduledCase<T>; index: number }, ended: () => void): void => {
    // A start that throws rather than rejects fails the schedule the same way.
    const started = new Promise<T>((resolve) => {
      resolve(entry.scheduled.start());
    });
    void started
      .then(
        (result) => {
          done.set(entry.index, result);
          report();
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => {
        ended();
        pump();
      });
  };
  const readerRoom = (): number => {
    if (nextMain >= main.length && mainRunning === undefined) return jobs;
    return mainRunning === 'readers' ? jobs - 1 : 0;
  };
  function pump(): void {
    if (failure === undefined) {
      const next = main[nextMain];
      if (mainRunning === undefined && next !== undefined) {
        const { company } = next.scheduled;
        // A case that must be alone waits for the readers to drain; none starts meanwhile.
        if (company !== 'none' || readersRunning === 0) {
          nextMain += 1;
          mainRunning = company === 'none' ? 'none' : 'readers';
          launch(next, () => {
            mainRunning = undefined;
          });
        }
      }
      for (let reader = readers[nextReader]; reader !== undefined && readersRunning < readerRoom();) {
        nextReader += 1;
        readersRunning += 1;
        launch(reader, () => {
          readersRunning -= 1;
        });
        reader = readers[nextReader];
      }
    }
    const exhausted = failure !== undefined || (nextMain >= main.length && nextReader >= readers.length);
    if (exhausted && mainRunning === undefined && readersRunning === 0) settle();
  }
  pump();
  await allDone;
  if (failure !== undefined) throw failure.error;
  return results;
}
