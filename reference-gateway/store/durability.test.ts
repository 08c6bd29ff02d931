import { afterEach, describe, expect, it } from 'vitest';
import { DurabilityQueue, type SyncFile } from './durability.ts';
import { tempStoreDir, type TempStoreDir } from './test-support/temp-store.ts';

/** A sync the test completes by hand, so "before" and "after the disk" are observable. */
class ManualSync {
  readonly pending: ((error: NodeJS.ErrnoException | null) => void)[] = [];
  readonly syncFile: SyncFile = (_fd, done) => {
    this.pending.push(done);
  };

  complete(error: NodeJS.ErrnoException | null = null): void {
    const done = this.pending.shift();
    if (done === undefined) throw new Error('no sync is running');
    done(error);
  }
}

let dir: TempStoreDir | undefined;
afterEach(() => {
  dir?.remove();
  dir = undefined;
});

function queueOnFile(sync: ManualSync, onSyncFailure?: (error: Error) => void): DurabilityQueue {
  dir = tempStoreDir();
  // Any existing file will do: the fake sync never touches it.
  const store = dir.open(() => 0);
  store.close();
  return new DurabilityQueue({
    walPath: dir.path,
    syncFile: sync.syncFile,
    ...(onSyncFailure === undefined ? {} : { onSyncFailure }),
  });
}

describe('DurabilityQueue', () => {
  it('runs a callback at once when every commit is already durable', () => {
    const sync = new ManualSync();
    const queue = queueOnFile(sync);
    queue.committedDurably();
    const ran: string[] = [];
    queue.afterDurable(() => ran.push('a'));
    expect(ran).toEqual(['a']);
    expect(sync.pending).toHaveLength(0);
  });

  it('holds callbacks of deferred commits until a sync that started after them completes', () => {
    const sync = new ManualSync();
    const queue = queueOnFile(sync);
    const ran: string[] = [];
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('first'));
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('second'));
    // One sync is running (started for the first commit, before the second was made).
    expect(sync.pending).toHaveLength(1);
    expect(ran).toEqual([]);
    sync.complete();
    // It covered only the first commit; the second needs a sync of its own.
    expect(ran).toEqual(['first']);
    expect(sync.pending).toHaveLength(1);
    sync.complete();
    expect(ran).toEqual(['first', 'second']);
    expect(queue.syncs).toBe(2);
  });

  it('covers every commit made before a sync starts with that one sync', () => {
    const sync = new ManualSync();
    const queue = queueOnFile(sync);
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) queue.committedDeferred();
    for (let i = 0; i < 5; i++) queue.afterDurable(() => ran.push(i));
    sync.complete();
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(queue.syncs).toBe(1);
  });

  it('keeps commit order when a durable commit follows a deferred one', () => {
    const sync = new ManualSync();
    const queue = queueOnFile(sync);
    const ran: string[] = [];
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('deferred'));
    // A FULL commit's fsync covers the whole WAL: both are durable, in their order.
    queue.committedDurably();
    queue.afterDurable(() => ran.push('durable'));
    expect(ran).toEqual(['deferred', 'durable']);
    sync.complete();
    expect(ran).toEqual(['deferred', 'durable']);
  });

  it('reports a failed sync and runs none of the callbacks it would have released', () => {
    const sync = new ManualSync();
    const failures: Error[] = [];
    const queue = queueOnFile(sync, (error) => failures.push(error));
    const ran: string[] = [];
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('a'));
    const error: NodeJS.ErrnoException = Object.assign(new Error('EIO'), { code: 'EIO' });
    sync.complete(error);
    expect(failures).toEqual([error]);
    expect(ran).toEqual([]);
  });

  it('treats a database without a file as durable at commit', () => {
    const queue = new DurabilityQueue({ walPath: undefined });
    const ran: string[] = [];
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('a'));
    expect(ran).toEqual(['a']);
    expect(queue.syncs).toBe(0);
  });

  it('releases the waiting callbacks on close (the closing checkpoint synced everything)', () => {
    const sync = new ManualSync();
    const queue = queueOnFile(sync);
    const ran: string[] = [];
    queue.committedDeferred();
    queue.afterDurable(() => ran.push('a'));
    queue.close();
    expect(ran).toEqual(['a']);
    sync.complete();
    expect(ran).toEqual(['a']);
  });
});

describe('GatewayStore deferred transactions', () => {
  it('commits without waiting, syncs the WAL once, and stays synchronous = FULL otherwise', async () => {
    dir = tempStoreDir();
    const store = dir.open(() => 0);
    try {
      let during: string | undefined;
      store.transactionDeferred(() => {
        store.ledger.increment('durability-test');
        during = store.settings().synchronous;
      });
      expect(during).toBe('normal');
      expect(store.settings().synchronous).toBe('full');
      // Visible to readers at once (committed), reported durable after the WAL sync.
      expect(store.ledger.read('durability-test')).toBe(1);
      await new Promise<void>((resolve) => {
        store.afterDurable(resolve);
      });
      expect(store.walSyncs).toBe(1);
    } finally {
      store.close();
    }
  });
});
