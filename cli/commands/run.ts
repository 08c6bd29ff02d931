/**
 * agentconf run: the main job. Starts the federation and the gateway under test (the
 * reference gateway by default), runs the conformance suites against it, prints live progress
 * per section and a verdict table per profile, writes the run's results under --out, and exits
 * 0 only when every claimed profile passed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { ALL_SUITES } from '../../suites/index.ts';
import { caseSeed, freshSeed } from '../../suites/framework/seeded-random.ts';
import { selectProvider } from '../../harness/federation/auto-provider.ts';
import { loadBaseline, BaselineError } from '../../runner/baseline.ts';
import { runConformance } from '../../runner/run-conformance.ts';
import { unknownBaselineEntries, type Baseline } from '../../runner/profile-verdicts.ts';
import { selectCases, type CaseSelection } from '../../runner/select-cases.ts';
import { SessionStartFailure, startSession } from '../../runner/run-session.ts';
import {
  runVerdictLine,
  silentProgress,
  summaryTable,
  terminalProgress,
} from '../../runner/terminal-report.ts';
import { isStable, stabilityOf, stabilityText } from '../../runner/stability.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { writeReports } from '../../runner/reports/write-reports.ts';
import { withImpliedProfiles } from '../../protocol/profiles.ts';
import { checkWritableFile, EXIT, readInput, UsageError, type CliIo, type ExitCode } from '../io.ts';
import type { Command } from '../main.ts';
import { parseCommandArgs, type OptionValues } from '../options.ts';
import {
  DEFAULT_SUT,
  DEFAULT_WORLD,
  readExternalFederationFile,
  readSutConfigFile,
  readWorldFile,
} from '../run-inputs.ts';
import type { ExternalFederationConfig } from '../../harness/federation/external-provider.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import { connectionFileOf, writeConnectionFile } from '../../harness/federation/connection-file.ts';
import type { Federation } from '../../harness/federation/server-provider.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { SutInstance } from '../../harness/sut/launch.ts';
import { paceLine, paceOf } from '../../runner/request-pacing.ts';
import { durationText, listenForRunStop, type RunStopper } from '../run-interrupt.ts';
import { defaultTimeoutMs, RUN_SPEC } from '../run-spec.ts';
import { prepareOutDir } from '../out-dir.ts';
import { externalGatewayText } from '../external-gateway-text.ts';
import { writeNotRunStatement, type NotRunStatement } from '../not-run-statement.ts';

/** The spec revision the suites judge against: the registry's, which registry:check ties to the spec. */
function specRevision(): string {
  return committedRegistry().specVersion;
}

/** The suite's version, from package.json: reports name the suite that judged. */
function suiteVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

type RunValues = OptionValues<(typeof RUN_SPEC)['options']>;

/** Everything the run reads before it starts anything, each input checked. */
interface RunInputs {
  readonly config: SutConfig;
  readonly worldPath: string;
  readonly world: JsonValue | undefined;
  readonly external: ExternalFederationConfig | undefined;
  readonly baseline: Baseline | undefined;
  readonly selection: CaseSelection;
}

/**
 * The input files and the selection, checked before anything starts: a bad file, a selection
 * that runs nothing, or a baseline naming cases that do not exist is a mistake in the command
 * (exit 2), not a verdict about the gateway.
 */
function readRunInputs(values: RunValues, io: CliIo): RunInputs | ExitCode {
  if ((values.provider === 'external') !== (values.external !== undefined)) {
    throw new UsageError('--provider external and --external FILE go together');
  }
  const config = readSutConfigFile(io, values.sut ?? DEFAULT_SUT);
  if (config === EXIT.usage) return EXIT.usage;
  const worldPath = resolve(values.world ?? DEFAULT_WORLD);
  let world: JsonValue | undefined;
  // admin-iq: the run provisions this world over Administrative Provisioning (runner/admin-fixtures.ts).
  if (config.fixtures === 'world-file' || config.fixtures === 'admin-iq') {
    const read = readWorldFile(io, worldPath);
    if (read === EXIT.usage) return EXIT.usage;
    world = read.world;
  }
  let external: ExternalFederationConfig | undefined;
  if (values.external !== undefined) {
    const read = readExternalFederationFile(io, values.external);
    if (read === EXIT.usage) return EXIT.usage;
    external = read;
  }
  let baseline: Baseline | undefined;
  if (values.baseline !== undefined) {
    try {
      baseline = loadBaseline(readInput(io, values.baseline, '--baseline'), values.baseline);
    } catch (error) {
      if (!(error instanceof BaselineError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return EXIT.usage;
    }
  }
  const selection: CaseSelection = {
    ...(values.grep.length === 0 ? {} : { grep: values.grep }),
    profiles: values.profile,
  };
  const selectedCount = selectCases(ALL_SUITES, selection).reduce(
    (sum, selected) => sum + selected.cases.length,
    0,
  );
  if (selectedCount === 0) {
    const asked = [...values.grep.map((g) => `--grep ${g}`), ...values.profile.map((p) => `--profile ${p}`)];
    throw new UsageError(
      `${asked.join(' ')} selects no case (case IDs: agentconf run prints them per section)`,
    );
  }
  const unknown = unknownBaselineEntries(
    ALL_SUITES.flatMap((suite) => suite.cases.map((testCase) => testCase.id)),
    baseline,
  );
  if (unknown.length > 0) {
    io.err(
      `invalid: ${values.baseline ?? 'the baseline'} names cases the suites do not have: ${unknown.join(', ')}\n`,
    );
    return EXIT.usage;
  }
  const claimedProfiles = new Set(withImpliedProfiles(config.profiles));
  for (const profile of values.profile.filter((p) => !claimedProfiles.has(p))) {
    io.err(`warning: --profile ${profile}: ${config.name} does not claim it, so its cases will not run\n`);
  }
  return { config, worldPath, world, external, baseline, selection };
}

/** Where a stopped run stopped: the first case it did not run for that reason. */
function stoppedWhere(result: RunResult, stopper: RunStopper): string {
  if (stopper.stoppedDuring === 'start-up') return 'during start-up, before any case';
  // The stop's own reason, not result.interrupted: located() appends this very place to that.
  const first = result.cases.find((c) => c.reason === `not run: ${stopper.reason ?? ''}`);
  return first === undefined ? 'after the last case' : `in case ${first.case.id}`;
}

export const runCommand: Command = {
  spec: RUN_SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(RUN_SPEC, args);
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const inputs = readRunInputs(values, io);
    if (typeof inputs === 'number') return inputs;
    const { config, worldPath, world, external, baseline, selection } = inputs;
    const repeat = values.repeat;
    const seed = values.seed ?? freshSeed();

    const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${generateIdentifier('').slice(0, 6)}`;
    const startedAt = new Date().toISOString();
    // Relative to where the command runs: an installed package must not write into itself.
    const out = resolve(values.out ?? join('reports', runId));
    prepareOutDir(out);
    const log = (line: string): void => {
      io.out(`${line}\n`);
    };
    const connectionFile =
      values['connection-file'] === undefined ? undefined : resolve(values['connection-file']);
    if (connectionFile !== undefined) checkWritableFile(connectionFile, '--connection-file');
    const timeoutMs = values.timeout ?? defaultTimeoutMs(values.deep, repeat);
    const timeoutText = durationText(timeoutMs);
    // From here on something may be starting: Ctrl-C and the limit are handled, not fatal.
    const stopper = listenForRunStop({
      timeoutMs,
      timeoutText,
      say: (line) => {
        io.err(`${line}\n`);
      },
    });
    const notRun = (
      dir: string,
      outcome: NotRunStatement['outcome'],
      reason: string,
      logs: readonly string[],
    ): void => {
      writeNotRunStatement(dir, {
        runId,
        startedAt,
        suiteVersion: suiteVersion(),
        specRevision: specRevision(),
        gateway: config.name,
        outcome,
        reason,
        logs,
      });
    };
    const startingUp = (dir: string): void => {
      stopper.startingUp(() => {
        notRun(dir, 'interrupted-during-start-up', `${stopper.reason ?? 'interrupted'} during start-up`, []);
        io.err(`agentconf run: nothing was judged; ${dir} says so (conformance.md)\n`);
        return Promise.resolve();
      });
    };
    startingUp(out);

    const providerChoice = await selectProvider(values.provider, external === undefined ? {} : { external });
    log(
      `agentconf ${suiteVersion()} for XMPP Agent Gateway ${specRevision()}; seed ${String(seed)} (replay with --seed ${String(seed)})`,
    );
    log(providerChoice.reason);
    const pace = paceOf(config.limits, values.rate);
    if (pace !== undefined) log(paceLine(pace));
    /** Hands a gateway the harness does not start its connection details, before the run waits for it. */
    const onServersUp = async (federation: Federation, sut: SutInstance): Promise<void> => {
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
      log(externalGatewayText(details, connectionFile));
    };
    const runOnce = async (
      repetitionSeed: number,
      repetitionId: string,
      quiet: boolean,
      dir: string,
    ): Promise<RunResult> => {
      startingUp(dir);
      let session;
      try {
        session = await startSession({
          provider: providerChoice.provider,
          config,
          ...(world === undefined ? {} : { world }),
          log: quiet ? () => undefined : log,
          onServersUp,
          ...(pace === undefined ? {} : { pace }),
          logsDirOnFailure: join(dir, 'logs'),
          // Only the system tools these cases declare are installed (harness/system-tools.ts).
          cases: selectCases(ALL_SUITES, selection).flatMap((selected) => selected.cases),
        });
      } catch (error) {
        if (error instanceof SessionStartFailure) notRun(dir, 'could-not-start', error.message, error.logs);
        throw error;
      }
      stopper.casesRunning();
      try {
        return await runConformance({
          runId: repetitionId,
          session,
          config,
          suites: ALL_SUITES,
          selection,
          seed: repetitionSeed,
          strict: values.strict,
          deep: values.deep,
          ...(baseline === undefined ? {} : { baseline }),
          suiteVersion: suiteVersion(),
          specRevision: specRevision(),
          progress: quiet
            ? silentProgress
            : terminalProgress((text) => {
                io.out(text);
              }, values.verbose),
          ...(pace === undefined ? {} : { pace }),
          interrupt: stopper,
        });
      } finally {
        stopper.writingReports();
        // The gateway's output and the servers' logs go with the reports, before the stop removes them.
        mkdirSync(dir, { recursive: true });
        await session.keepLogs(join(dir, 'logs')).catch((error: unknown) => {
          io.err(
            `agentconf run: the logs could not be kept: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        });
        await session.stop();
      }
    };
    /** A run the limit stopped names where, in its reports as on the terminal. */
    const located = (result: RunResult): RunResult =>
      stopper.kind === 'timeout' && result.interrupted !== undefined
        ? { ...result, interrupted: `${result.interrupted} (${stoppedWhere(result, stopper)})` }
        : result;
    const writeRun = async (result: RunResult, dir: string): Promise<void> => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
      const reports = await writeReports(result, dir, { allureHtml: values['allure-html'] });
      for (const note of reports.notes) log(note);
    };
    /** The exit code of a run that was stopped early, after one line saying why and where. */
    const stoppedExit = (result: RunResult): ExitCode => {
      if (stopper.kind !== 'timeout') return EXIT.interrupted;
      io.err(
        `agentconf run: the ${timeoutText} time limit (--timeout) was reached ${stoppedWhere(result, stopper)}; the partial report is in ${out}\n`,
      );
      return EXIT.couldNotRun;
    };

    try {
      return await runAll();
    } catch (error) {
      if (!(error instanceof SessionStartFailure)) throw error;
      io.err(`agentconf run: ${error.message}\n`);
      io.err(`agentconf run: nothing was judged; conformance.md and the logs are in ${out}\n`);
      if (values.debug) io.err(`${error.stack ?? ''}\n`);
      return EXIT.couldNotRun;
    } finally {
      stopper.dispose();
    }

    async function runAll(): Promise<ExitCode> {
      if (repeat === 1) {
        const result = located(await runOnce(seed, runId, false, out));
        io.out(summaryTable(result));
        await writeRun(result, out);
        log(`results: ${out} (the gateway's and the servers' logs in logs/)`);
        if (result.interrupted !== undefined) return stoppedExit(result);
        if (result.abortedBy !== undefined) return EXIT.couldNotRun;
        return result.passed ? EXIT.ok : EXIT.invalid;
      }
      // --repeat: each repetition is a whole run (its own federation, gateway and seed), as N
      // separate invocations would be; one line each, then the stability table.
      const runs: RunResult[] = [];
      for (let index = 0; index < repeat; index += 1) {
        const repetitionSeed = index === 0 ? seed : caseSeed(seed, `repetition-${String(index + 1)}`);
        const dir = join(out, `repetition-${String(index + 1)}`);
        const result = located(await runOnce(repetitionSeed, `${runId}-${String(index + 1)}`, true, dir));
        runs.push(result);
        log(
          `repetition ${String(index + 1)}/${String(repeat)}, seed ${String(repetitionSeed)}: ${String(result.cases.length)} cases in ${(result.durationMs / 1000).toFixed(1)} s, ${runVerdictLine(result)}`,
        );
        await writeRun(result, dir);
        if (result.interrupted !== undefined) {
          log(`results: ${out} (stopped during repetition ${String(index + 1)})`);
          return stoppedExit(result);
        }
      }
      const stability = stabilityOf(runs);
      io.out(stabilityText(stability));
      writeFileSync(join(out, 'stability.json'), `${JSON.stringify(stability, null, 2)}\n`);
      log(`results: ${out}`);
      return isStable(stability) ? EXIT.ok : EXIT.invalid;
    }
  },
};
