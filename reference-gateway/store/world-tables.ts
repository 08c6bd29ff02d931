/**
 * What the fixture world last declared as each endpoint's active version. The world's
 * declaration is applied only when it changes, so restarting with the same world keeps what
 * administrators did since (a deactivation, another activation), and "restarting the gateway
 * keeps every registration" holds for the pointer too.
 */
import type { StatementCache } from './statement-cache.ts';

/** `version: null` records a declared-inactive endpoint. */
export interface WorldDeclaration {
  readonly version: string | null;
}

export class WorldTables {
  readonly #sql: StatementCache;
  readonly #transaction: <T>(work: () => T) => T;

  constructor(sql: StatementCache, transaction: <T>(work: () => T) => T) {
    this.#sql = sql;
    this.#transaction = transaction;
  }

  declaration(jid: string): WorldDeclaration | undefined {
    const row = this.#sql
      .get('SELECT active_version FROM world_declarations WHERE endpoint_jid = ?')
      .get(jid) as { active_version: string | null } | undefined;
    return row === undefined ? undefined : { version: row.active_version };
  }

  recordDeclaration(jid: string, declaration: WorldDeclaration): void {
    this.#transaction(() => {
      this.#sql
        .get(
          `INSERT INTO world_declarations (endpoint_jid, active_version) VALUES (?, ?)
           ON CONFLICT (endpoint_jid) DO UPDATE SET active_version = excluded.active_version`,
        )
        .run(jid, declaration.version);
    });
  }
}
