/**
 * The tool ledger of the runtime contract (reference-gateway/runtime/tool-runtime.ts): durable
 * counters a tool increments around its side effects, so replay and crash tests can prove from
 * outside how often work really ran. Each increment is its own write transaction and, with
 * synchronous = FULL, is on disk when `increment` returns.
 */
import type { ToolLedger } from '../runtime/tool-runtime.ts';
import type { StatementCache } from './statement-cache.ts';

export class LedgerTable implements ToolLedger {
  readonly #sql: StatementCache;
  readonly #transaction: <T>(work: () => T) => T;

  constructor(sql: StatementCache, transaction: <T>(work: () => T) => T) {
    this.#sql = sql;
    this.#transaction = transaction;
  }

  increment(key: string): number {
    return this.#transaction(() => {
      const row = this.#sql
        .get(
          `INSERT INTO tool_ledger (key, count) VALUES (?, 1)
           ON CONFLICT (key) DO UPDATE SET count = count + 1
           RETURNING count`,
        )
        .get(key) as { count: number };
      return row.count;
    });
  }

  read(key: string): number {
    const row = this.#sql.get('SELECT count FROM tool_ledger WHERE key = ?').get(key) as
      { count: number } | undefined;
    return row?.count ?? 0;
  }
}
