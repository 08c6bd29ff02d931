/**
 * Group commit for admissions (#invocation: the task and its replay record are durable before
 * <accepted/>). With synchronous = FULL every COMMIT waits for the disk; admissions that become
 * ready in the same event-loop turn therefore share one transaction and one fsync. Each
 * admission runs in its own savepoint, so one that throws rolls back alone; none of them is
 * answered before the shared COMMIT returns. `perRequest` mode commits each on its own (the
 * bench's baseline).
 *
 * Other engine work may ride along (`ride`): the dispatch of the tasks the previous group
 * admitted joins the next group's transaction when admissions are waiting anyway, so a steady
 * stream of invocations costs one fsync per group instead of two (bench/admission).
 */
import type { GatewayStore } from '../store/gateway-store.ts';

interface Pending<T> {
  readonly work: () => T;
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

  /** Runs `work` inside a write transaction; resolves after that transaction committed. */
  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#batch.push({ work, resolve: resolve as (value: unknown) => void, reject });
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
      results = this.#store.transaction(() => {
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
    for (const rider of riders) rider.committed();
    results.forEach((result, index) => {
      const pending = batch[index];
      if (pending === undefined) return;
      if (result.ok) pending.resolve(result.value);
      else pending.reject(result.error);
    });
  }
}
