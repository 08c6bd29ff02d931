/**
 * Opening the gateway database: durability pragmas, then the migrations it lacks.
 *
 * - WAL: readers never block the single writer, and a crash leaves the last committed state.
 * - synchronous = FULL: a transaction is on disk when COMMIT returns. Registration results and
 *   (later) task admission are promises to a remote party, so "committed" must survive power
 *   loss (#invocation: persist before <accepted/>; the suite kills the gateway to check).
 * - foreign_keys = ON: SQLite leaves them off per connection unless asked.
 * - busy_timeout: another process holding the write lock (an operator's sqlite3 shell) makes
 *   us wait briefly instead of failing at once.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.ts';

export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
}

const BUSY_TIMEOUT_MS = 5_000;

function configure(db: Database.Database): void {
  if (!db.memory) {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new StoreOpenError(`the database refused WAL journaling (got ${String(mode)})`);
  }
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

function appliedVersion(db: Database.Database): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/** Applies every migration newer than the database, each in its own write transaction. */
export function migrate(
  db: Database.Database,
  now: () => number,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new StoreOpenError('migrations must be numbered 1, 2, 3, …');
  });
  const applied: number[] = [];
  const current = db.transaction(() => appliedVersion(db)).immediate();
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  if (current > migrations.length) {
    throw new StoreOpenError(
      `the database has schema version ${current}, newer than this gateway knows (${migrations.length})`,
    );
  }
  for (const migration of migrations.slice(current)) {
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      if (appliedVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date(now()).toISOString());
      applied.push(migration.version);
    }).immediate();
  }
  return applied;
}

/** Opens (creating if needed) and migrates the database at `path`. */
export function openDatabase(path: string, now: () => number): Database.Database {
  const db = new Database(path);
  try {
    configure(db);
    migrate(db, now);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
