/**
 * `agentconf run --repeat N`: the same selection run N times, each with its own seed, and the
 * question a conformance verdict stands on — does the same gateway get the same verdict every
 * time? Per case: how often each outcome came, and the spread of its duration. A case whose
 * outcome changed between repetitions is unstable, whatever the reason (a flaky gateway, a
 * suite that depends on timing, or a seed that changes what is covered), and fails the command.
 */
import type { Outcome } from '../suites/framework/outcome.ts';
import type { RunResult } from './run-result.ts';
import { textTable } from '../suites/framework/text-table.ts';

export interface CaseStability {
  readonly id: string;
  /** How many repetitions ended in each outcome. */
  readonly outcomes: Readonly<Partial<Record<Outcome, number>>>;
  /** Reported flaky (failed, then passed when re-run) in this many repetitions. */
  readonly flaky: number;
  /** Wall time of the case's attempts, milliseconds. */
  readonly durationMs: { readonly min: number; readonly median: number; readonly max: number };
  /** The same outcome, never flaky, in every repetition. */
  readonly stable: boolean;
}

export interface StabilityReport {
  readonly repetitions: number;
  readonly seeds: readonly number[];
  /** Whole-run wall times, milliseconds. */
  readonly runMs: readonly number[];
  /** Repetitions whose run verdict was a pass. */
  readonly passedRuns: number;
  readonly cases: readonly CaseStability[];
}

function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function stabilityOf(runs: readonly RunResult[]): StabilityReport {
  const byCase = new Map<
    string,
    { outcomes: Partial<Record<Outcome, number>>; flaky: number; durations: number[] }
  >();
  for (const run of runs) {
    for (const result of run.cases) {
      const entry = byCase.get(result.case.id) ?? { outcomes: {}, flaky: 0, durations: [] };
      entry.outcomes[result.outcome] = (entry.outcomes[result.outcome] ?? 0) + 1;
      if (result.flaky) entry.flaky += 1;
      entry.durations.push(result.attempts.reduce((sum, attempt) => sum + attempt.durationMs, 0));
      byCase.set(result.case.id, entry);
    }
  }
  const cases = [...byCase.entries()].map(([id, entry]): CaseStability => {
    const durations = entry.durations.toSorted((a, b) => a - b);
    return {
      id,
      outcomes: entry.outcomes,
      flaky: entry.flaky,
      durationMs: { min: durations[0] ?? 0, median: median(durations), max: durations.at(-1) ?? 0 },
      stable:
        Object.keys(entry.outcomes).length === 1 &&
        entry.flaky === 0 &&
        entry.durations.length === runs.length,
    };
  });
  return {
    repetitions: runs.length,
    seeds: runs.map((run) => run.seed),
    runMs: runs.map((run) => run.durationMs),
    passedRuns: runs.filter((run) => run.passed).length,
    cases,
  };
}

export function isStable(report: StabilityReport): boolean {
  return report.passedRuns === report.repetitions && report.cases.every((entry) => entry.stable);
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2);
}

function outcomeText(outcomes: CaseStability['outcomes']): string {
  return Object.entries(outcomes)
    .map(([outcome, count]) => `${outcome} ${String(count)}`)
    .join(', ');
}

/** The terminal summary: unstable cases first, then the slowest and the most spread-out. */
export function stabilityText(report: StabilityReport): string {
  const unstable = report.cases.filter((entry) => !entry.stable);
  const spread = report.cases
    .filter((entry) => entry.stable)
    .toSorted((a, b) => b.durationMs.max - b.durationMs.min - (a.durationMs.max - a.durationMs.min))
    .slice(0, 5);
  const runTimes = report.runMs.toSorted((a, b) => a - b);
  const lines = [
    '',
    `stability over ${String(report.repetitions)} repetitions (seeds ${report.seeds.join(', ')})`,
    `runs: ${String(report.passedRuns)}/${String(report.repetitions)} passed; wall time min ${seconds(runTimes[0] ?? 0)} s, median ${seconds(median(runTimes))} s, max ${seconds(runTimes.at(-1) ?? 0)} s`,
  ];
  const row = (entry: CaseStability): string[] => [
    entry.id,
    `${outcomeText(entry.outcomes)}${entry.flaky > 0 ? `, flaky ${String(entry.flaky)}` : ''}`,
    `${seconds(entry.durationMs.min)} / ${seconds(entry.durationMs.median)} / ${seconds(entry.durationMs.max)}`,
  ];
  const header = ['case', 'outcomes', 'seconds min / median / max'];
  if (unstable.length > 0) {
    lines.push(`UNSTABLE: ${String(unstable.length)} case(s) did not get the same outcome every time`);
    lines.push(textTable([header, ...unstable.map(row)], '  ').join('\n'));
  } else {
    lines.push(`every one of ${String(report.cases.length)} cases had the same outcome in every repetition`);
  }
  if (spread.length > 0) {
    lines.push('widest timing spread among the stable cases:');
    lines.push(textTable([header, ...spread.map(row)], '  ').join('\n'));
  }
  return `${lines.join('\n')}\n`;
}
