/**
 * Durability in commit order, without blocking the event loop on the disk.
 *
 * A normal store transaction commits with synchronous = FULL: SQLite fsyncs the WAL inside
 * COMMIT, so the commit is on disk when the call returns — but the whole gateway waits for the
 * disk meanwhile (1–2 ms per commit here, most of an admission's cost in bench/admission). The
 * hot paths (admission groups, task dispatch) instead commit with synchronous = NORMAL, which in
 * WAL mode writes the frames without fsync: they survive a process crash (the kernel holds
 * them) but not yet a power loss. Their promises to remote parties (<accepted/>, events, the
 * runtime starting) wait in this queue until an fdatasync of the WAL file — on the libuv thread
 * pool, while the event loop goes on — has put them on disk. Syncs coalesce: every commit made
 * before a sync starts is covered by it.
 *
 * The queue runs callbacks strictly in commit order, and a FULL commit makes every earlier
 * commit durable too (its fsync covers the whole WAL), so the effects of commits keep their
 * order whichever kind made them: an event of a later FULL commit is never sent before the
 * effects of an earlier deferred one.
 *
 * An fdatasync that fails leaves the disk state unknown; retrying is not safe (the kernel may
 * have dropped the dirty pages), so the failure goes to `onSyncFailure` — by default an
 * uncaught error that stops the process, whose restart runs crash recovery.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';

export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export interface DurabilityOptions {
  /** The WAL file to sync; undefined for a database with no file (in memory: nothing to sync). */
  readonly walPath: string | undefined;
  /** Replaceable for tests; fdatasync on the thread pool by default. */
  readonly syncFile?: SyncFile;
  readonly onSyncFailure?: (error: Error) => void;
}

interface Waiting {
  readonly commit: number;
  readonly then: () => void;
}

const crash = (error: Error): void => {
  process.nextTick(() => {
    throw error;
  });
};

export class DurabilityQueue {
  readonly #walPath: string | undefined;
  readonly #syncFile: SyncFile;
  readonly #onSyncFailure: (error: Error) => void;
  #fd: number | undefined;
  /** Commits made so far, and how many of them are known to be on disk. */
  #commits = 0;
  #durable = 0;
  readonly #waiting: Waiting[] = [];
  #syncing = false;
  #closed = false;
  /** fdatasync calls made (for tests and the bench). */
  syncs = 0;

  constructor(options: DurabilityOptions) {
    this.#walPath = options.walPath;
    this.#syncFile = options.syncFile ?? fdatasync;
    this.#onSyncFailure = options.onSyncFailure ?? crash;
  }

  /**
   * A commit whose COMMIT already waited for the disk: it and everything before it are durable.
   * Waiting callbacks run at the next `afterDurable` (or when their own sync completes), not
   * from inside the committing call.
   */
  committedDurably(): void {
    this.#commits += 1;
    this.#durable = this.#commits;
  }

  /** A commit made without waiting for the disk. */
  committedDeferred(): void {
    this.#commits += 1;
    if (this.#walPath === undefined) this.#durable = this.#commits;
  }

  /**
   * Runs `then` once every commit made so far is on disk, after the callbacks registered
   * before it: at once (synchronously) when they already are. `then` must not throw.
   */
  afterDurable(then: () => void): void {
    this.#waiting.push({ commit: this.#commits, then });
    this.#drain();
    if (this.#waiting.length > 0) this.#sync();
  }

  /** Stops syncing; the caller checkpoints (which syncs) before closing, so waiters may run. */
  close(): void {
    this.#closed = true;
    this.#durable = this.#commits;
    this.#drain();
    if (!this.#syncing) this.#closeFile();
  }

  #drain(): void {
    while (this.#waiting.length > 0) {
      const head = this.#waiting[0];
      if (head === undefined || head.commit > this.#durable) return;
      this.#waiting.shift();
      head.then();
    }
  }

  #sync(): void {
    if (this.#syncing || this.#closed) return;
    const covered = this.#commits;
    let fd: number;
    try {
      fd = this.#file();
    } catch (error) {
      this.#onSyncFailure(error instanceof Error ? error : new Error('cannot open the WAL file'));
      return;
    }
    this.#syncing = true;
    this.syncs += 1;
    this.#syncFile(fd, (error) => {
      this.#syncing = false;
      if (error !== null) {
        this.#onSyncFailure(error);
        if (this.#closed) this.#closeFile();
        return;
      }
      this.#durable = Math.max(this.#durable, covered);
      this.#drain();
      if (this.#closed) this.#closeFile();
      else if (this.#waiting.length > 0) this.#sync();
    });
  }

  #file(): number {
    // Opened on first use: SQLite creates the WAL file with the first write. The descriptor
    // stays valid across checkpoints (SQLite truncates or rewrites the file, never replaces it
    // while the connection is open).
    this.#fd ??= openSync(this.#walPath ?? '', 'r');
    return this.#fd;
  }

  #closeFile(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
