/**
 * Repeats synchronous tasks after warm-up and reports each one's median and minimum wall time.
 * Several tasks are measured side by side, one run of each in turn, so that load from elsewhere
 * on a shared machine falls on all of them alike and their ratio stays meaningful.
 */
export interface Measurement {
  readonly label: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
}

export interface Task {
  readonly label: string;
  readonly run: () => void;
}

export function measureSideBySide(tasks: readonly Task[], { warmup = 3, runs = 31 } = {}): Measurement[] {
  for (const task of tasks) for (let i = 0; i < warmup; i++) task.run();
  const samples = tasks.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    tasks.forEach((task, index) => {
      const start = process.hrtime.bigint();
      task.run();
      samples[index]?.push(Number(process.hrtime.bigint() - start) / 1e6);
    });
  }
  return tasks.map((task, index) => {
    const sorted = (samples[index] ?? []).sort((a, b) => a - b);
    return {
      label: task.label,
      runs,
      medianMs: sorted[Math.floor(runs / 2)] ?? Number.NaN,
      minMs: sorted[0] ?? Number.NaN,
    };
  });
}
