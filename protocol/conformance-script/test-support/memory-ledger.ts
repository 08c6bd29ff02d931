/** An in-memory ToolLedger that also records the order of increments. */
import type { ToolLedger } from '../../tool-actions.ts';

export class MemoryLedger implements ToolLedger {
  readonly #counts = new Map<string, number>();
  readonly increments: string[] = [];

  increment(key: string): number {
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    this.increments.push(key);
    return count;
  }

  read(key: string): number {
    return this.#counts.get(key) ?? 0;
  }
}
