/**
 * At most `jobs` cells at a time on this machine. Cells are isolated (each its own federation on
 * ephemeral ports, its own data folders), so the only limit is the machine: a pair keeps about
 * one core busy (docs/interop-matrix.md gives the measurements).
 */
export async function forEachLimited<T>(
  items: readonly T[],
  jobs: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
}
