/**
 * How much work an adversarial case may spend. The default run keeps every family small enough
 * that the whole run stays near half a minute; `agentconf run --deep` raises every budget so a
 * release gate or an interop event can look much harder (more schedules, more samples, more kill
 * points) at the cost of minutes.
 */

/** The scenario families of the adversarial suites, as reports group them. */
export const SCENARIOS = [
  'replay',
  'race',
  'equivalence',
  'timing',
  'rsm-order',
  'schema-hash',
  'crash',
  'link-fault',
  'bad-input',
] as const;

export type Scenario = (typeof SCENARIOS)[number];

export interface Budget {
  /** The run was started with --deep. */
  readonly deep: boolean;
  /**
   * The iteration count for this attempt (`defaultCount` normally, `deepCount` under --deep),
   * recorded as the case's iteration count unless `ran` later says otherwise.
   */
  iterations(defaultCount: number, deepCount: number): number;
  /** Records how many iterations actually ran (a case with an early stop runs fewer). */
  ran(count: number): void;
}

/** One attempt's budget and what it recorded. */
export class AttemptBudget implements Budget {
  readonly deep: boolean;
  #recorded: number | undefined;

  constructor(deep: boolean) {
    this.deep = deep;
  }

  iterations(defaultCount: number, deepCount: number): number {
    for (const count of [defaultCount, deepCount]) {
      if (!Number.isInteger(count) || count < 1)
        throw new RangeError(`an iteration count is a positive integer, not ${String(count)}`);
    }
    const count = this.deep ? deepCount : defaultCount;
    this.#recorded = count;
    return count;
  }

  ran(count: number): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`an iteration count is a non-negative integer, not ${String(count)}`);
    this.#recorded = count;
  }

  /** What the attempt recorded, undefined for a case that never asked for a budget. */
  get recorded(): number | undefined {
    return this.#recorded;
  }
}
