/**
 * Prepared statements, prepared once per SQL text and reused: preparing is the expensive part
 * of a small query, and the gateway runs the same few queries all the time.
 */
import type Database from 'better-sqlite3';

export class StatementCache {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  get(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
