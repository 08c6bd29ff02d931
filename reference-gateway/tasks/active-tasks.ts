/**
 * How many non-terminal tasks the gateway holds, in all and per caller, for the capacity limits
 * (#rules: bounded task count; task-limits.ts). Counted from the store once at engine start,
 * then kept in step with the commits: +1 when an admission has committed, −1 when a terminal
 * transition has committed (transitions.ts), both as effects after COMMIT, so a rolled-back
 * transaction changes nothing. Counting in SQL instead scans the caller's tasks on every
 * admission, which bench/admission found in the hot path once thousands were running.
 *
 * Per-caller counts are read from the store on first use and kept while non-zero, so the map
 * holds at most one entry per caller with running tasks (bounded by maxActiveTasks).
 */
import type { GatewayStore } from '../store/gateway-store.ts';

export class ActiveTasks {
  readonly #store: GatewayStore;
  #total: number;
  readonly #perCaller = new Map<string, number>();

  constructor(store: GatewayStore) {
    this.#store = store;
    this.#total = store.tasks.countNonTerminal();
  }

  get total(): number {
    return this.#total;
  }

  /** The caller's committed count, from the store the first time. Not inside a transaction with own writes. */
  of(callerJid: string): number {
    const known = this.#perCaller.get(callerJid);
    if (known !== undefined) return known;
    const counted = this.#store.tasks.countNonTerminalOf(callerJid);
    if (counted > 0) this.#perCaller.set(callerJid, counted);
    return counted;
  }

  /** The caller's count if it is known here, without asking the store. */
  known(callerJid: string): number | undefined {
    return this.#perCaller.get(callerJid);
  }

  /** An admission of `callerJid` has committed. */
  admitted(callerJid: string): void {
    this.#total += 1;
    const known = this.#perCaller.get(callerJid);
    // Not known: the next of() reads the store, which holds the new task already.
    if (known !== undefined) this.#perCaller.set(callerJid, known + 1);
  }

  /** A task of `callerJid` has reached a terminal state (committed). */
  settled(callerJid: string): void {
    this.#total = Math.max(0, this.#total - 1);
    const known = this.#perCaller.get(callerJid);
    if (known === undefined) return;
    if (known <= 1) this.#perCaller.delete(callerJid);
    else this.#perCaller.set(callerJid, known - 1);
  }
}
