/**
 * The gateway's persistent state: the only module that touches SQLite (better-sqlite3, whose
 * API is synchronous: a transaction runs to completion before any other JavaScript does).
 *
 * Every write runs in a transaction. `transaction(work)` starts an IMMEDIATE transaction (the
 * write lock is taken at BEGIN, so a check inside `work` cannot be invalidated by another
 * process before the write); inside one, the table methods' own transactions nest as
 * savepoints, so a domain operation's checks and writes commit or roll back together.
 */
import type Database from 'better-sqlite3';
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
}

export class GatewayStore {
  readonly registrations: RegistrationTables;
  readonly policy: PolicyTables;
  readonly world: WorldTables;
  readonly tasks: TaskTables;
  /** The runtime contract's ToolLedger, committed durably per increment. */
  readonly ledger: LedgerTable;
  readonly #db: Database.Database;

  private constructor(db: Database.Database, options: GatewayStoreOptions) {
    this.#db = db;
    const sql = new StatementCache(db);
    const transaction = <T>(work: () => T): T => this.transaction(work);
    const now = (): string => new Date(options.now()).toISOString();
    this.registrations = new RegistrationTables(sql, now, transaction);
    this.policy = new PolicyTables(sql, transaction);
    this.world = new WorldTables(sql, transaction);
    this.tasks = new TaskTables(sql, transaction);
    this.ledger = new LedgerTable(sql, transaction);
  }

  /** Opens or creates the database file and applies the migrations it lacks. */
  static open(path: string, options: GatewayStoreOptions): GatewayStore {
    return new GatewayStore(openDatabase(path, options.now), options);
  }

  /** Runs `work` atomically; nested calls become savepoints of the outer transaction. */
  transaction<T>(work: () => T): T {
    const run = this.#db.transaction(work);
    return this.#db.inTransaction ? run() : run.immediate();
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

  /** Checkpoints the WAL into the main file and closes the connection. */
  close(): void {
    if (!this.#db.open) return;
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
    this.#db.close();
  }
}
