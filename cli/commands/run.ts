/**
 * agentconf run: the main job. Starts the federation and the gateway under test (the
 * reference gateway by default), runs the conformance suites against it, prints live progress
 * per section and a verdict table per profile, writes the run's results under --out, and exits
 * 0 only when every claimed profile passed.
 *
 * parse (the options and every input file, cli/run/checked-inputs.ts) → plan (cli/run/plan.ts)
 * → execute (one run, cli/run/one-run.ts, or --repeat's, cli/run/repeat.ts) → report
 * (cli/run/report.ts).
 */
import { selectProvider } from '../../harness/federation/auto-provider.ts';
import { SessionStartFailure } from '../../runner/run-session.ts';
import { paceLine } from '../../runner/request-pacing.ts';
import { EXIT, UsageError, type CliIo, type ExitCode } from '../io.ts';
import type { Command } from '../main.ts';
import { parseCommandArgs } from '../options.ts';
import { durationText, listenForRunStop, type RunStopper } from '../run-interrupt.ts';
import { RUN_SPEC } from '../run-spec.ts';
import { readRunInputs, type RunValues } from '../run/checked-inputs.ts';
import type { RunContext } from '../run/context.ts';
import { runOnce, startingUp } from '../run/one-run.ts';
import { planRun, type RunPlan } from '../run/plan.ts';
import { runRepeated } from '../run/repeat.ts';
import { runCallerOnly } from '../run/caller-run.ts';
import { callerOnlySut } from '../run-inputs.ts';
import { located, reportRun } from '../run/report.ts';

function parseRunArgs(args: readonly string[]): RunValues {
  const { values, positionals } = parseCommandArgs(RUN_SPEC, args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  return values;
}

/** Chooses the servers' provider and says what the run is: suite, spec revision, seed, pace. */
async function startRun(plan: RunPlan, io: CliIo, stopper: RunStopper): Promise<RunContext> {
  const log = (line: string): void => {
    io.out(`${line}\n`);
  };
  const { external } = plan.inputs;
  const providerChoice = await selectProvider(plan.provider, {
    servers: plan.servers,
    ...(external === undefined ? {} : { external }),
  });
  const context: RunContext = { plan, io, stopper, provider: providerChoice.provider, log };
  log(
    `agentconf ${plan.suiteVersion} for XMPP Agent Gateway ${plan.specRevision}; seed ${String(plan.seed)} (replay with --seed ${String(plan.seed)})`,
  );
  log(providerChoice.reason);
  if (plan.pace !== undefined) log(paceLine(plan.pace));
  return context;
}

async function execute(context: RunContext): Promise<ExitCode> {
  const { plan } = context;
  if (plan.repeat > 1) return runRepeated(context);
  const single = { seed: plan.seed, runId: plan.runId, dir: plan.out, quiet: false };
  return reportRun(context, located(await runOnce(context, single), context.stopper));
}

/** A run whose gateway or servers did not start judged nothing: say why, exit 3. */
function couldNotStart(error: SessionStartFailure, plan: RunPlan, io: CliIo): ExitCode {
  io.err(`agentconf run: ${error.message}\n`);
  io.err(`agentconf run: nothing was judged; conformance.md and the logs are in ${plan.out}\n`);
  if (plan.debug) io.err(`${error.stack ?? ''}\n`);
  return EXIT.couldNotRun;
}

async function executeAndReport(plan: RunPlan, io: CliIo): Promise<ExitCode> {
  // From here on something may be starting: Ctrl-C and the limit are handled, not fatal.
  const stopper = listenForRunStop({
    timeoutMs: plan.timeoutMs,
    timeoutText: durationText(plan.timeoutMs),
    say: (line) => {
      io.err(`${line}\n`);
    },
  });
  try {
    startingUp({ plan, io, stopper }, plan.out);
    return await execute(await startRun(plan, io, stopper));
  } catch (error) {
    if (!(error instanceof SessionStartFailure)) throw error;
    return couldNotStart(error, plan, io);
  } finally {
    stopper.dispose();
  }
}

export const runCommand: Command = {
  spec: RUN_SPEC,
  async run(args, io) {
    const values = parseRunArgs(args);
    const caller = callerOnlySut(values.sut);
    if (caller !== undefined) return runCallerOnly(values, caller, io);
    const inputs = readRunInputs(values, io);
    if (typeof inputs === 'number') return inputs;
    return executeAndReport(planRun(values, inputs), io);
  },
};
