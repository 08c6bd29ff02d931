// GroupCommitter riders: work that joins the next group transaction (the previous group's
// dispatch), committed with it or told that it was not.
import { afterEach, describe, expect, it } from 'vitest';
import { tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import { GroupCommitter } from './group-commit.ts';

let dir: TempStoreDir | undefined;
afterEach(() => {
  dir?.remove();
  dir = undefined;
});

describe('GroupCommitter riders', () => {
  it('runs a rider inside the waiting group transaction, before the admissions, then after its COMMIT', async () => {
    dir = tempStoreDir();
    const store = dir.open(() => Date.now());
    const committer = new GroupCommitter(store);
    const order: string[] = [];
    const admitted = committer.submit(() => {
      order.push('admission');
      return store.ledger.increment('admission');
    });
    expect(committer.waiting).toBe(1);
    committer.ride({
      work: () => {
        order.push('rider');
        store.ledger.increment('rider');
      },
      committed: () => order.push('rider committed'),
      failed: () => order.push('rider failed'),
    });
    expect(await admitted).toBe(1);
    expect(order).toEqual(['rider', 'admission', 'rider committed']);
    expect(committer.commits).toBe(1);
    expect(committer.waiting).toBe(0);
    expect(store.ledger.read('rider')).toBe(1);
  });

  it('tells the rider when the group transaction did not commit, and nothing of the group stays', async () => {
    dir = tempStoreDir();
    const store = dir.open(() => Date.now());
    const committer = new GroupCommitter(store);
    const outcome: string[] = [];
    const admitted = committer.submit(() => store.ledger.increment('admission'));
    committer.ride({
      work: () => {
        store.ledger.increment('rider');
        throw new Error('the group transaction fails');
      },
      committed: () => outcome.push('committed'),
      failed: () => outcome.push('failed'),
    });
    await expect(admitted).rejects.toThrow('the group transaction fails');
    expect(outcome).toEqual(['failed']);
    expect([store.ledger.read('admission'), store.ledger.read('rider')]).toEqual([0, 0]);
  });
});
