/**
 * What a finished run leaves behind: result.json and the reports in its folder, the summary on
 * the terminal, and the exit code — with a stopped run saying where it stopped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../../runner/run-result.ts';
import { writeReports } from '../../runner/reports/write-reports.ts';
import { summaryTable } from '../../runner/terminal-report.ts';
import { EXIT, type ExitCode } from '../io.ts';
import { durationText, type RunStopper } from '../run-interrupt.ts';
import type { RunContext } from './context.ts';

/** Where a stopped run stopped: the first case it did not run for that reason. */
function stoppedWhere(result: RunResult, stopper: RunStopper): string {
  if (stopper.stoppedDuring === 'start-up') return 'during start-up, before any case';
  // The stop's own reason, not result.interrupted: located() appends this very place to that.
  const first = result.cases.find((c) => c.reason === `not run: ${stopper.reason ?? ''}`);
  return first === undefined ? 'after the last case' : `in case ${first.case.id}`;
}

/** A run the limit stopped names where, in its reports as on the terminal. */
export function located(result: RunResult, stopper: RunStopper): RunResult {
  return stopper.kind === 'timeout' && result.interrupted !== undefined
    ? { ...result, interrupted: `${result.interrupted} (${stoppedWhere(result, stopper)})` }
    : result;
}

export async function writeRunResults(context: RunContext, result: RunResult, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  const reports = await writeReports(result, dir, { allureHtml: context.plan.allureHtml });
  for (const note of reports.notes) context.log(note);
}

/** The exit code of a run that was stopped early, after one line saying why and where. */
export function stoppedExit(context: RunContext, result: RunResult): ExitCode {
  const { stopper, plan } = context;
  if (stopper.kind !== 'timeout') return EXIT.interrupted;
  context.io.err(
    `agentconf run: the ${durationText(plan.timeoutMs)} time limit (--timeout) was reached ${stoppedWhere(result, stopper)}; the partial report is in ${plan.out}\n`,
  );
  return EXIT.couldNotRun;
}

/** A single run's summary, results and exit code: 0 only when every claimed profile passed. */
export async function reportRun(context: RunContext, result: RunResult): Promise<ExitCode> {
  const { out } = context.plan;
  context.io.out(summaryTable(result));
  await writeRunResults(context, result, out);
  context.log(`results: ${out} (the gateway's and the servers' logs in logs/)`);
  if (result.interrupted !== undefined) return stoppedExit(context, result);
  if (result.abortedBy !== undefined) return EXIT.couldNotRun;
  return result.passed ? EXIT.ok : EXIT.invalid;
}
