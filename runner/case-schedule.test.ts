import { describe, expect, it } from 'vitest';

import type { Company } from './case-concurrency.ts';
import { runSchedule, type ScheduledCase } from './case-schedule.ts';

/** Lets every promise callback queued so far run (no clock involved). */
const settle = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/** Cases the test ends by hand, recording which were running at each start. */
function controlled(kinds: readonly Company[]) {
  const running = new Set<number>();
  const startedWith: number[][] = [];
  const ends: (() => void)[] = [];
  const cases: ScheduledCase<string>[] = kinds.map((kind, index) => ({
    company: kind,
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
    const { cases, running, end } = controlled(['any', 'any', 'any']);
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

  it('with one job keeps declaration order whatever the companies', async () => {
    const { cases, running, end } = controlled(['readers', 'any', 'none', 'any']);
    const schedule = runSchedule(cases, 1, () => undefined);
    for (const index of [0, 1, 2, 3]) {
      await settle();
      expect([...running]).toEqual([index]);
      end(index);
    }
    expect(await schedule).toHaveLength(4);
  });

  it('runs up to `jobs` alongside, an alone case by itself, and reports in declaration order', async () => {
    const { cases, running, startedWith, end } = controlled(['any', 'any', 'any', 'any']);
    const reported: number[] = [];
    const schedule = runSchedule(cases, 2, (_, index) => reported.push(index));
    await settle();
    expect([...running]).toEqual([0, 1]);
    end(1);
    await settle();
    expect([...running]).toEqual([0, 2]);
    expect(reported).toEqual([]);
    end(0);
    await settle();
    expect(reported).toEqual([0, 1]);
    expect([...running]).toEqual([2, 3]);
    end(3);
    end(2);
    expect(await schedule).toHaveLength(4);
    expect(reported).toEqual([0, 1, 2, 3]);
    expect(startedWith[3]).toEqual([2]);
  });

  it('runs the read-only cases beside a case that admits them, and none beside one alone', async () => {
    const { cases, running, startedWith, end } = controlled(['any', 'none', 'any', 'readers', 'any', 'none']);
    const reported: number[] = [];
    const schedule = runSchedule(cases, 3, (_, index) => reported.push(index));
    await settle();
    // The main lane's first case is alone: no reader starts before it, whatever their order.
    expect([...running]).toEqual([1]);
    end(1);
    await settle();
    // Beside the task case, up to jobs - 1 readers, taken in declaration order.
    expect([...running]).toEqual([3, 0, 2]);
    end(0);
    await settle();
    expect([...running]).toEqual([3, 2, 4]);
    end(3);
    await settle();
    // The next alone case waits for the readers to drain, and no reader starts meanwhile.
    expect([...running]).toEqual([2, 4]);
    end(2);
    end(4);
    await settle();
    expect([...running]).toEqual([5]);
    expect(startedWith[5]).toEqual([]);
    end(5);
    expect(await schedule).toHaveLength(6);
    expect(reported).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('never runs two cases of the main lane at once', async () => {
    const { cases, running, end } = controlled(['readers', 'readers', 'any']);
    const schedule = runSchedule(cases, 4, () => undefined);
    await settle();
    expect([...running]).toEqual([0, 2]);
    end(2);
    await settle();
    expect([...running]).toEqual([0]);
    end(0);
    await settle();
    expect([...running]).toEqual([1]);
    end(1);
    expect(await schedule).toHaveLength(3);
  });

  it('starts nothing more once a case fails to run, and rejects after the started ones end', async () => {
    const { cases, running, end } = controlled(['any', 'any', 'any']);
    const failing: ScheduledCase<string>[] = cases.map((scheduled, index) =>
      index === 1 ? { company: 'any', start: () => Promise.reject(new Error('no caller')) } : scheduled,
    );
    const schedule = runSchedule(failing, 2, () => undefined);
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
