import { describe, expect, it } from 'vitest';

import { runSchedule, type ScheduledCase } from './case-schedule.ts';

/** Lets every promise callback queued so far run (no clock involved). */
const settle = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/** Cases the test ends by hand, recording which were running at each start. */
function controlled(kinds: readonly ('alone' | 'alongside')[]) {
  const running = new Set<number>();
  const startedWith: number[][] = [];
  const ends: (() => void)[] = [];
  const cases: ScheduledCase<string>[] = kinds.map((kind, index) => ({
    alone: kind === 'alone',
    start: () => {
      startedWith[index] = [...running];
      running.add(index);
      return new Promise<string>((resolve) => {
        ends[index] = () => {
          running.delete(index);
          resolve(`case ${String(index)}`);
        };
      });
    },
  }));
  return { cases, running, startedWith, end: (index: number) => ends[index]?.() };
}

describe('runSchedule', () => {
  it('with one job runs each case only once the one before it has ended', async () => {
    const { cases, running, end } = controlled(['alongside', 'alongside', 'alongside']);
    const reported: string[] = [];
    const schedule = runSchedule(cases, 1, (result) => reported.push(result));
    for (const index of [0, 1, 2]) {
      await settle();
      expect([...running]).toEqual([index]);
      end(index);
    }
    expect(await schedule).toEqual(['case 0', 'case 1', 'case 2']);
    expect(reported).toEqual(['case 0', 'case 1', 'case 2']);
  });

  it('runs up to `jobs` alongside, an alone case by itself, and reports in declaration order', async () => {
    const { cases, running, startedWith, end } = controlled([
      'alongside',
      'alongside',
      'alongside',
      'alone',
      'alongside',
      'alongside',
    ]);
    const reported: number[] = [];
    const schedule = runSchedule(cases, 2, (_, index) => reported.push(index));
    await settle();
    expect([...running]).toEqual([0, 1]);
    end(1);
    await settle();
    expect([...running]).toEqual([0, 2]);
    expect(reported).toEqual([]);
    end(2);
    await settle();
    // The alone case waits for case 0 too.
    expect([...running]).toEqual([0]);
    end(0);
    await settle();
    expect(reported).toEqual([0, 1, 2]);
    expect([...running]).toEqual([3]);
    end(3);
    await settle();
    expect([...running]).toEqual([4, 5]);
    end(5);
    await settle();
    expect(reported).toEqual([0, 1, 2, 3]);
    end(4);
    expect(await schedule).toHaveLength(6);
    expect(reported).toEqual([0, 1, 2, 3, 4, 5]);
    expect(startedWith[3]).toEqual([]);
    expect(startedWith[4]).toEqual([]);
  });

  it('starts nothing more once a case fails to run, and rejects after the started ones end', async () => {
    const { cases, running, end } = controlled(['alongside', 'alongside', 'alongside']);
    const failing: ScheduledCase<string>[] = cases.map((scheduled, index) =>
      index === 1 ? { alone: false, start: () => Promise.reject(new Error('no caller')) } : scheduled,
    );
    const schedule = runSchedule(failing, 3, () => undefined);
    schedule.catch(() => undefined);
    await settle();
    expect([...running]).toEqual([0]);
    end(0);
    await expect(schedule).rejects.toThrow('no caller');
  });

  it('refuses a job count that is not a whole number of at least one', async () => {
    await expect(runSchedule([], 0, () => undefined)).rejects.toThrow('jobs must be');
  });
});
