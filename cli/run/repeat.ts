/**
 * --repeat N: each repetition is a whole run (its own federation, gateway and seed), as N separate
 * invocations would be, in a folder of its own; one line each, then the stability table. The
 * first repetition keeps the run's seed, so it replays a single run with that seed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { caseSeed } from '../../suites/framework/seeded-random.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { isStable, stabilityOf, stabilityText } from '../../runner/stability.ts';
import { runVerdictLine } from '../../runner/terminal-report.ts';
import { EXIT, type ExitCode } from '../io.ts';
import type { RunContext } from './context.ts';
import { runOnce, type Repetition } from './one-run.ts';
import type { RunPlan } from './plan.ts';
import { located, stoppedExit, writeRunResults } from './report.ts';

/** The repetitions of a --repeat run, numbered from 1. */
export function repetitionsOf(plan: RunPlan): Repetition[] {
  return Array.from({ length: plan.repeat }, (_, index) => {
    const number = String(index + 1);
    return {
      seed: index === 0 ? plan.seed : caseSeed(plan.seed, `repetition-${number}`),
      runId: `${plan.runId}-${number}`,
      dir: join(plan.out, `repetition-${number}`),
      quiet: true,
    };
  });
}

function repetitionLine(index: number, repeat: number, repetition: Repetition, result: RunResult): string {
  return `repetition ${String(index + 1)}/${String(repeat)}, seed ${String(repetition.seed)}: ${String(result.cases.length)} cases in ${(result.durationMs / 1000).toFixed(1)} s, ${runVerdictLine(result)}`;
}

/** Runs every repetition, stopping at the first one interrupted; 0 only when every case kept one outcome. */
export async function runRepeated(context: RunContext): Promise<ExitCode> {
  const { plan, log } = context;
  const runs: RunResult[] = [];
  for (const [index, repetition] of repetitionsOf(plan).entries()) {
    const result = located(await runOnce(context, repetition), context.stopper);
    runs.push(result);
    log(repetitionLine(index, plan.repeat, repetition, result));
    await writeRunResults(context, result, repetition.dir);
    if (result.interrupted !== undefined) {
      log(`results: ${plan.out} (stopped during repetition ${String(index + 1)})`);
      return stoppedExit(context, result);
    }
  }
  const stability = stabilityOf(runs);
  context.io.out(stabilityText(stability));
  writeFileSync(join(plan.out, 'stability.json'), `${JSON.stringify(stability, null, 2)}\n`);
  log(`results: ${plan.out}`);
  return isStable(stability) ? EXIT.ok : EXIT.invalid;
}
