/**
 * One whole run: its own federation and gateway, the selected cases against them, then the logs
 * kept beside the reports and everything stopped. A run that never reached its cases leaves a
 * not-run statement in its folder instead of results.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Federation } from '../../harness/federation/server-provider.ts';
import { connectionFileOf, writeConnectionFile } from '../../harness/federation/connection-file.ts';
import type { SutInstance } from '../../harness/sut/launch.ts';
import { ALL_SUITES } from '../../suites/index.ts';
import { runConformance } from '../../runner/run-conformance.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { SessionStartFailure, startSession, type RunSession } from '../../runner/run-session.ts';
import { silentProgress, terminalProgress } from '../../runner/terminal-report.ts';
import { externalGatewayText } from '../external-gateway-text.ts';
import { writeNotRunStatement, type NotRunStatement } from '../not-run-statement.ts';
import type { RunContext } from './context.ts';
import { ALL_CALLER_SUITES } from '../../suites/caller/index.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { assessmentsPassed } from '../../runner/assessment-verdicts.ts';
import { callerProgress, silentCallerProgress } from '../../runner/caller-report.ts';
import { runCallers } from '../../runner/run-callers.ts';

/** One repetition of the run (the only one without --repeat). */
export interface Repetition {
  readonly seed: number;
  readonly runId: string;
  /** Where its results go. */
  readonly dir: string;
  /** --repeat prints one line per repetition instead of the live progress. */
  readonly quiet: boolean;
}

/** What start-up needs before the servers' provider is chosen. */
type StartUpContext = Pick<RunContext, 'plan' | 'io' | 'stopper'>;

export function writeNotRun(
  context: StartUpContext,
  dir: string,
  outcome: NotRunStatement['outcome'],
  reason: string,
  logs: readonly string[],
): void {
  const { plan } = context;
  writeNotRunStatement(dir, {
    runId: plan.runId,
    startedAt: plan.startedAt,
    suiteVersion: plan.suiteVersion,
    specRevision: plan.specRevision,
    gateway: plan.inputs.config.name,
    outcome,
    reason,
    logs,
  });
}

/** From here until the cases run, Ctrl-C leaves a statement in `dir` saying nothing was judged. */
export function startingUp(context: StartUpContext, dir: string): void {
  const { stopper, io } = context;
  stopper.startingUp(() => {
    writeNotRun(
      context,
      dir,
      'interrupted-during-start-up',
      `${stopper.reason ?? 'interrupted'} during start-up`,
      [],
    );
    io.err(`agentconf run: nothing was judged; ${dir} says so (conformance.md)\n`);
    return Promise.resolve();
  });
}

/** Hands a gateway the harness does not start its connection details, before the run waits for it. */
async function onServersUp(context: RunContext, federation: Federation, sut: SutInstance): Promise<void> {
  const { config, worldPath } = context.plan.inputs;
  const { connectionFile } = context.plan;
  const external = sut.process === undefined;
  if (!external && connectionFile === undefined) return;
  const details = connectionFileOf(federation, {
    name: config.name,
    ...(config.adminJid === undefined ? {} : { adminJid: config.adminJid }),
    ...(config.fixtures === 'world-file' ? { worldFile: worldPath } : {}),
    startupSeconds: config.timeouts.startupSeconds,
    ...(sut.facts.conformanceToolsUrl === undefined
      ? {}
      : { conformanceToolsUrl: sut.facts.conformanceToolsUrl }),
  });
  if (connectionFile !== undefined) await writeConnectionFile(connectionFile, details);
  if (!external) return;
  // The operator checklist is already printed: startSession prints it once, before this.
  context.log(externalGatewayText(details, connectionFile));
}

async function startRepetitionSession(context: RunContext, repetition: Repetition): Promise<RunSession> {
  const { plan, log } = context;
  const { config, world } = plan.inputs;
  try {
    return await startSession({
      provider: context.provider,
      servers: plan.servers,
      config,
      ...(world === undefined ? {} : { world }),
      log: repetition.quiet ? () => undefined : log,
      onServersUp: (federation, sut) => onServersUp(context, federation, sut),
      ...(plan.pace === undefined ? {} : { pace: plan.pace }),
      logsDirOnFailure: join(repetition.dir, 'logs'),
      // Only the system tools these cases declare are installed (harness/system-tools.ts).
      cases: plan.inputs.cases,
    });
  } catch (error) {
    if (error instanceof SessionStartFailure) {
      writeNotRun(context, repetition.dir, 'could-not-start', error.message, error.logs);
    }
    throw error;
  }
}

/** The account a gateway's call-out tool is invoked as: the one it names, else its adminJid. */
function callOutJidOf(config: RunContext['plan']['inputs']['config']): string | undefined {
  return (config.caller?.kind === 'gateway-tool' ? config.caller.account : undefined) ?? config.adminJid;
}

/**
 * A gateway SUT file that also declares a caller (docs/caller.md) has the caller suites run after
 * the gateway's, on the same federation: an MCP bridge through MCP, the gateway's own call-out
 * tool through the task protocol. Their assessments join the run's verdict.
 */
async function withCallerSuites(
  context: RunContext,
  session: RunSession,
  repetition: Repetition,
  result: RunResult,
): Promise<RunResult> {
  const { config, selection } = context.plan.inputs;
  if (config.caller === undefined || result.interrupted !== undefined) return result;
  const callOutJid = callOutJidOf(config);
  const callers = await runCallers({
    federation: session.federation,
    declaration: config.caller,
    timeouts: config.timeouts,
    ...(callOutJid === undefined ? {} : { gatewayCallerJid: callOutJid }),
    suites: ALL_CALLER_SUITES,
    ...(selection.grep === undefined ? {} : { grep: selection.grep }),
    seed: repetition.seed,
    strict: context.plan.strict,
    registry: committedRegistry(),
    progress: repetition.quiet
      ? silentCallerProgress
      : callerProgress((text) => {
          context.io.out(text);
        }),
    stopReason: () => context.stopper.reason,
  });
  return {
    ...result,
    caller: { kind: config.caller.kind, name: config.name },
    callerCases: callers.cases,
    assessments: callers.assessments,
    passed: result.passed && assessmentsPassed(callers.assessments),
  };
}

async function runCases(
  context: RunContext,
  session: RunSession,
  repetition: Repetition,
): Promise<RunResult> {
  const result = await runGatewayCases(context, session, repetition);
  return await withCallerSuites(context, session, repetition, result);
}

function runGatewayCases(
  context: RunContext,
  session: RunSession,
  repetition: Repetition,
): Promise<RunResult> {
  const { plan, io } = context;
  const { config, baseline, selection } = plan.inputs;
  return runConformance({
    runId: repetition.runId,
    session,
    config,
    suites: ALL_SUITES,
    selection,
    seed: repetition.seed,
    strict: plan.strict,
    deep: plan.deep,
    ...(baseline === undefined ? {} : { baseline }),
    suiteVersion: plan.suiteVersion,
    specRevision: plan.specRevision,
    progress: repetition.quiet
      ? silentProgress
      : terminalProgress((text) => {
          io.out(text);
        }, plan.verbose),
    ...(plan.pace === undefined ? {} : { pace: plan.pace }),
    interrupt: context.stopper,
    jobs: plan.jobs,
  });
}

/** The gateway's output and the servers' logs go with the reports, before the stop removes them. */
async function keepSessionLogs(context: RunContext, session: RunSession, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await session.keepLogs(join(dir, 'logs')).catch((error: unknown) => {
    context.io.err(
      `agentconf run: the logs could not be kept: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  });
}

export async function runOnce(context: RunContext, repetition: Repetition): Promise<RunResult> {
  startingUp(context, repetition.dir);
  const session = await startRepetitionSession(context, repetition);
  context.stopper.casesRunning();
  try {
    return await runCases(context, session, repetition);
  } finally {
    context.stopper.writingReports();
    await keepSessionLogs(context, session, repetition.dir);
    await session.stop();
  }
}
