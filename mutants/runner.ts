/**
 * Runs mutants one at a time: checks that every patch still applies (a stale patch fails loudly
 * instead of judging the unchanged gateway), asks `judge` for the focused run's result and turns
 * it into a row. Starting the copy and the run is the caller's (run-mutants.ts), so the unit
 * tests can drive this with made-up results and no servers.
 */
import { PatchDoesNotApply } from '../harness/sut/source-variant.ts';
import { checkPatches, fitsBudget, judgeRun, type JudgedRun, type MutantRow } from './judge.ts';
import type { Mutant } from './mutant.ts';

export interface RunnerDeps {
  /** The tree the patches must apply to. */
  readonly root: string;
  /** The focused `agentconf run` of one mutant's copy. */
  readonly judge: (mutant: Mutant) => Promise<JudgedRun>;
  readonly budgetMinutes?: number;
  /** Called after each mutant (progress lines). */
  readonly onRow?: (row: MutantRow, index: number, total: number) => void;
  readonly now?: () => number;
}

export interface RunnerOutcome {
  readonly rows: readonly MutantRow[];
  /** Mutants the budget left out. */
  readonly skipped: readonly Mutant[];
}

async function runOne(mutant: Mutant, deps: RunnerDeps): Promise<MutantRow['verdict']> {
  try {
    checkPatches(mutant, deps.root);
    return judgeRun(mutant, await deps.judge(mutant));
  } catch (error) {
    if (error instanceof PatchDoesNotApply) return { kind: 'stale', message: error.message };
    return {
      kind: 'error',
      message: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error),
    };
  }
}

export async function runMutants(mutants: readonly Mutant[], deps: RunnerDeps): Promise<RunnerOutcome> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const rows: MutantRow[] = [];
  let longest = 0;
  for (const [index, mutant] of mutants.entries()) {
    if (!fitsBudget((now() - started) / 1000, longest, deps.budgetMinutes)) {
      return { rows, skipped: mutants.slice(index) };
    }
    const mutantStarted = now();
    const verdict = await runOne(mutant, deps);
    const seconds = (now() - mutantStarted) / 1000;
    longest = Math.max(longest, seconds);
    const row = { mutant, verdict, seconds };
    rows.push(row);
    deps.onRow?.(row, index, mutants.length);
  }
  return { rows, skipped: [] };
}
