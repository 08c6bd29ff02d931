/** Repeats a synchronous task after warm-up and reports the median and minimum wall time. */
export interface Measurement {
  readonly label: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
}

export function measure(label: string, task: () => void, { warmup = 3, runs = 15 } = {}): Measurement {
  for (let i = 0; i < warmup; i++) task();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    task();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return {
    label,
    runs,
    medianMs: samples[Math.floor(runs / 2)] ?? Number.NaN,
    minMs: samples[0] ?? Number.NaN,
  };
}
