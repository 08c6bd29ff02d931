/**
 * Group commit for admissions (#invocation: the task and its replay record are durable before
 * <accepted/>). Admissions that become ready in the same event-loop turn share one transaction;
 * each runs in its own savepoint, so one that throws rolls back alone. The transaction commits
 * without waiting for the disk (GatewayStore.transactionDeferred) and nobody is answered until
 * the store reports it durable (afterDurable): the next group can commit while the previous
 * one's WAL sync runs, and one sync covers every group committed before it started.
 * `perRequest` mode commits each on its own (the bench's baseline).
 *
 * Other engine work may ride along (`ride`): the dispatch of the tasks the previous group
 * admitted joins the next group's transaction when admissions are waiting anyway.
 */
import type { GatewayStore } from '../store/gateway-store.ts';

interface Pending<T> {
  readonly work: () => T;
  /** Runs right after COMMIT, before durability: bookkeeping the next group must already see. */
  readonly committed: ((value: T) => void) | undefined;
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** Work that joins the next group transaction without being an admission. */
export interface Rider {
  /** Runs inside the group transaction (the rider decides its own savepoints). */
  readonly work: () => void;
  /** Runs once the group transaction committed. */
  readonly committed: () => void;
  /** Runs when the group transaction did not commit (the rider's writes are gone). */
  readonly failed: () => void;
}

export class GroupCommitter {
  readonly #store: GatewayStore;
  readonly #grouped: boolean;
  #batch: Pending<unknown>[] = [];
  #riders: Rider[] = [];
  #scheduled = false;
  /** Transactions committed so far (for the bench and tests). */
  commits = 0;
  /** Group transactions started so far: work in the same group sees the same generation. */
  generation = 0;

  constructor(store: GatewayStore, mode: 'group' | 'per-request' = 'group') {
    this.#store = store;
    this.#grouped = mode === 'group';
  }

  /** Admissions waiting for the next group transaction. */
  get waiting(): number {
    return this.#batch.length;
  }

  /**
   * Adds `rider` to the next group transaction. Only while admissions are waiting (`waiting` >
   * 0) is one certain to come; otherwise the rider should commit on its own.
   */
  ride(rider: Rider): void {
    this.#riders.push(rider);
  }

  /**
   * Runs `work` inside a write transaction; resolves once that transaction is durable.
   * `committed` runs as soon as it committed, before the next group's transaction starts.
   */
  submit<T>(work: () => T, committed?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#batch.push({
        work,
        committed: committed as ((value: unknown) => void) | undefined,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (!this.#grouped) {
        this.#flush();
        return;
      }
      if (this.#scheduled) return;
      this.#scheduled = true;
      // setImmediate runs after this turn's I/O callbacks: everything ready by then joins.
      setImmediate(() => {
        this.#flush();
      });
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#batch;
    this.#batch = [];
    const riders = this.#riders;
    this.#riders = [];
    if (batch.length === 0 && riders.length === 0) return;
    this.generation += 1;
    let results: Settled<unknown>[];
    try {
      results = this.#store.transactionDeferred(() => {
        for (const rider of riders) rider.work();
        return batch.map((pending): Settled<unknown> => {
          try {
            // Nested: a savepoint, released into the shared transaction or rolled back alone.
            return { ok: true, value: this.#store.transaction(pending.work) };
          } catch (error) {
            return { ok: false, error };
          }
        });
      });
      this.commits += 1;
    } catch (error) {
      for (const rider of riders) rider.failed();
      for (const pending of batch) pending.reject(error);
      return;
    }
    results.forEach((result, index) => {
      if (result.ok) batch[index]?.committed?.(result.value);
    });
    // invocation.durable-before-accepted: nobody hears of a commit (no <accepted/>, no event)
    // before the WAL sync covering it.
    this.#store.afterDurable(() => {
      for (const rider of riders) rider.committed();
      results.forEach((result, index) => {
        const pending = batch[index];
        if (pending === undefined) return;
        if (result.ok) pending.resolve(result.value);
        else pending.reject(result.error);
      });
    });
  }
}
