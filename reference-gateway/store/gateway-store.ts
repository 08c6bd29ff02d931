/**
 * The gateway's persistent state: the only module that touches SQLite (better-sqlite3, whose
 * API is synchronous: a transaction runs to completion before any other JavaScript does).
 *
 * Every write runs in a transaction; reads need none (`snapshot` for several that must agree). `transaction(work)` starts an IMMEDIATE transaction (the
 * write lock is taken at BEGIN, so a check inside `work` cannot be invalidated by another
 * process before the write); inside one, the table methods' own transactions nest as
 * savepoints, so a domain operation's checks and writes commit or roll back together.
 *
 * `transaction` commits durably (synchronous = FULL). The task engine's hot paths use
 * `transactionDeferred` instead and wait with `afterDurable` (durability.ts) before anything
 * leaves the process.
 */
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { DurabilityQueue } from './durability.ts';
import { LedgerTable } from './ledger-table.ts';
import { openDatabase } from './open-database.ts';
import { PolicyTables } from './policy-tables.ts';
import { RegistrationTables } from './registration-tables.ts';
import { StatementCache } from './statement-cache.ts';
import { TaskTables } from './task-tables.ts';
import { WorldTables } from './world-tables.ts';

export interface GatewayStoreOptions {
  /** Milliseconds since the epoch: the only clock the store reads, for its time stamps. */
  readonly now: () => number;
  /** What to do when syncing the WAL fails (durability.ts); by default the process stops. */
  readonly onSyncFailure?: (error: Error) => void;
}

export class GatewayStore {
  readonly registrations: RegistrationTables;
  readonly policy: PolicyTables;
  readonly world: WorldTables;
  readonly tasks: TaskTables;
  /** The runtime contract's ToolLedger, committed durably per increment. */
  readonly ledger: LedgerTable;
  readonly #db: Database.Database;
  readonly #durability: DurabilityQueue;

  private constructor(db: Database.Database, options: GatewayStoreOptions) {
    this.#db = db;
    this.#durability = new DurabilityQueue({
      walPath: db.memory ? undefined : `${resolve(db.name)}-wal`,
      ...(options.onSyncFailure === undefined ? {} : { onSyncFailure: options.onSyncFailure }),
    });
    const sql = new StatementCache(db);
    const transaction = <T>(work: () => T): T => this.transaction(work);
    const statement = <T>(work: () => T): T => (db.inTransaction ? work() : this.transaction(work));
    const now = (): string => new Date(options.now()).toISOString();
    this.registrations = new RegistrationTables(sql, now, transaction, statement);
    this.policy = new PolicyTables(sql, transaction);
    this.world = new WorldTables(sql, transaction);
    this.tasks = new TaskTables(sql, transaction, statement);
    this.ledger = new LedgerTable(sql, transaction);
  }

  /** Opens or creates the database file and applies the migrations it lacks. */
  static open(path: string, options: GatewayStoreOptions): GatewayStore {
    return new GatewayStore(openDatabase(path, options.now), options);
  }

  /** Runs `work` atomically; nested calls become savepoints of the outer transaction. */
  transaction<T>(work: () => T): T {
    const run = this.#db.transaction(work);
    if (this.#db.inTransaction) return run();
    const value = run.immediate();
    this.#durability.committedDurably();
    return value;
  }

  /**
   * Runs `work`, which only reads, on one snapshot of the database: a DEFERRED transaction,
   * which takes no write lock (in WAL mode a reader never blocks the writer) and, having
   * written nothing, has nothing to make durable. Only for several statements that must agree
   * with each other; a single statement is its own snapshot and needs none. Nested, it is part
   * of the outer transaction.
   */
  snapshot<T>(work: () => T): T {
    if (this.#db.inTransaction) return work();
    return this.#db.transaction(work).deferred();
  }

  /**
   * Like `transaction`, but COMMIT does not wait for the disk: the writes survive a process
   * crash at once and a power loss only once `afterDurable` callbacks run. Nested, it is a
   * savepoint of the outer transaction like any other.
   */
  transactionDeferred<T>(work: () => T): T {
    if (this.#db.inTransaction) return this.transaction(work);
    // Executed, never prepared once and re-run: SQLite applies this pragma when it compiles it.
    this.#db.exec('PRAGMA synchronous = NORMAL');
    let value: T;
    try {
      value = this.#db.transaction(work).immediate();
    } finally {
      this.#db.exec('PRAGMA synchronous = FULL');
    }
    this.#durability.committedDeferred();
    return value;
  }

  /**
   * Runs `then` once every commit made so far is on disk, after every callback registered
   * before it — synchronously when they already are (always after a `transaction`).
   */
  afterDurable(then: () => void): void {
    this.#durability.afterDurable(then);
  }

  /** WAL syncs made for deferred commits (bench, tests). */
  get walSyncs(): number {
    return this.#durability.syncs;
  }

  /** The durability settings of this connection, for the readiness check and tests. */
  settings(): {
    journalMode: string;
    synchronous: 'off' | 'normal' | 'full' | 'extra';
    foreignKeys: boolean;
  } {
    const synchronous = (['off', 'normal', 'full', 'extra'] as const)[
      Number(this.#db.pragma('synchronous', { simple: true }))
    ];
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: synchronous ?? 'off',
      foreignKeys: this.#db.pragma('foreign_keys', { simple: true }) === 1,
    };
  }

  get isOpen(): boolean {
    return this.#db.open;
  }

  /**
   * Checkpoints the WAL into the main file (synced: every commit is then durable) and closes
   * the connection. Callbacks still waiting for durability run after that, and find the store
   * closed.
   */
  close(): void {
    if (!this.#db.open) return;
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
    this.#db.close();
    this.#durability.close();
  }
}
