/**
 * agentconf run: the main job. Starts the federation and the gateway under test (the
 * reference gateway by default), runs the conformance suites against it, prints live progress
 * per section and a verdict table per profile, writes the run's results under --out, and exits
 * 0 only when every claimed profile passed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { ALL_SUITES } from '../../suites/index.ts';
import { caseSeed, freshSeed, isSeed } from '../../suites/framework/seeded-random.ts';
import {
  isProviderChoice,
  PROVIDER_CHOICES,
  selectProvider,
} from '../../harness/federation/auto-provider.ts';
import { loadBaseline, BaselineError } from '../../runner/baseline.ts';
import { runConformance } from '../../runner/run-conformance.ts';
import { unknownBaselineEntries, type Baseline } from '../../runner/profile-verdicts.ts';
import { selectCases, type CaseSelection } from '../../runner/select-cases.ts';
import { checklistLines, SessionStartFailure, startSession } from '../../runner/run-session.ts';
import { operatorChecklist, unconfirmedItems } from '../../runner/admin-fixtures.ts';
import {
  runVerdictLine,
  silentProgress,
  summaryTable,
  terminalProgress,
} from '../../runner/terminal-report.ts';
import { isStable, stabilityOf, stabilityText } from '../../runner/stability.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { writeReports } from '../../runner/reports/write-reports.ts';
import { isProfileId, withImpliedProfiles, type ProfileId } from '../../protocol/profiles.ts';
import { checkWritableFile, EXIT, readInput, UsageError, type ExitCode } from '../io.ts';
import type { Command } from '../main.ts';
import { readExternalFederationFile, readSutConfigFile, readWorldFile } from '../run-inputs.ts';
import type { ExternalFederationConfig } from '../../harness/federation/external-provider.ts';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import {
  connectionFileOf,
  writeConnectionFile,
  type ConnectionFile,
} from '../../harness/federation/connection-file.ts';
import type { Federation } from '../../harness/federation/server-provider.ts';
import type { SutInstance } from '../../harness/sut/launch.ts';
import { paceLine, paceOf } from '../../runner/request-pacing.ts';
import { textTable } from '../../runner/text-table.ts';
import { listenForInterrupt } from '../run-interrupt.ts';

const SPEC_REVISION = '0.0.5';
const DEFAULT_SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json');
const DEFAULT_WORLD = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');

/** The suite's version, from package.json: reports name the suite that judged. */
function suiteVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

export const runCommand: Command = {
  name: 'run',
  usage:
    'run [--sut FILE] [--world FILE] [--profile P]... [--grep ID]... [--strict] [--deep] [--provider P] [--external FILE] [--connection-file PATH] [--rate N] [--baseline FILE] [--seed N] [--repeat N] [--out DIR] [--allure-html] [--debug]',
  summary:
    'run the conformance suites against a gateway (default: the reference gateway) and report per profile',
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: {
        sut: { type: 'string' },
        world: { type: 'string' },
        profile: { type: 'string', multiple: true },
        grep: { type: 'string', multiple: true },
        strict: { type: 'boolean', default: false },
        deep: { type: 'boolean', default: false },
        provider: { type: 'string', default: 'auto' },
        external: { type: 'string' },
        'connection-file': { type: 'string' },
        rate: { type: 'string' },
        baseline: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        verbose: { type: 'boolean', default: false },
        debug: { type: 'boolean', default: false },
        repeat: { type: 'string' },
        'allure-html': { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const provider = values.provider;
    if (!isProviderChoice(provider))
      throw new UsageError(`--provider is one of ${PROVIDER_CHOICES.join(', ')}`);
    if ((provider === 'external') !== (values.external !== undefined)) {
      throw new UsageError('--provider external and --external FILE go together');
    }
    const profiles: ProfileId[] = [];
    for (const profile of values.profile ?? []) {
      if (!isProfileId(profile)) throw new UsageError(`unknown profile ${JSON.stringify(profile)}`);
      profiles.push(profile);
    }
    const repeat = values.repeat === undefined ? 1 : Number(values.repeat);
    if (values.repeat !== undefined && (!/^\d+$/.test(values.repeat) || repeat < 1 || repeat > 1000)) {
      throw new UsageError('--repeat is an integer from 1 to 1000');
    }
    let rate: number | undefined;
    if (values.rate !== undefined) {
      rate = Number(values.rate);
      if (!/^\d+(\.\d+)?$/.test(values.rate) || !(rate > 0)) {
        throw new UsageError('--rate is a number of requests per second greater than 0');
      }
    }
    let seed = freshSeed();
    if (values.seed !== undefined) {
      seed = Number(values.seed);
      if (!/^\d+$/.test(values.seed) || !isSeed(seed))
        throw new UsageError('--seed is an integer from 0 to 4294967295');
    }

    const config = readSutConfigFile(io, values.sut ?? DEFAULT_SUT);
    if (config === EXIT.invalid) return EXIT.usage;
    const worldPath = resolve(values.world ?? DEFAULT_WORLD);
    let world: JsonValue | undefined;
    // admin-iq: the run provisions this world over Administrative Provisioning (runner/admin-fixtures.ts).
    if (config.fixtures === 'world-file' || config.fixtures === 'admin-iq') {
      const read = readWorldFile(io, worldPath);
      if (read === EXIT.invalid) return EXIT.usage;
      world = read.world;
    }
    let external: ExternalFederationConfig | undefined;
    if (values.external !== undefined) {
      const read = readExternalFederationFile(io, values.external);
      if (read === EXIT.invalid) return EXIT.usage;
      external = read;
    }
    let baseline: Baseline | undefined;
    if (values.baseline !== undefined) {
      try {
        baseline = loadBaseline(readInput(io, values.baseline), values.baseline);
      } catch (error) {
        if (!(error instanceof BaselineError)) throw error;
        io.err(`invalid: ${error.message}\n`);
        return EXIT.usage;
      }
    }

    // Decided before anything starts: a selection that runs nothing, or a baseline naming cases
    // that do not exist, is a mistake in the command, not a verdict about the gateway.
    const caseSelection: CaseSelection = {
      ...(values.grep === undefined ? {} : { grep: values.grep }),
      profiles,
    };
    const selectedCount = selectCases(ALL_SUITES, caseSelection).reduce(
      (sum, selected) => sum + selected.cases.length,
      0,
    );
    if (selectedCount === 0) {
      const asked = [
        ...(values.grep ?? []).map((g) => `--grep ${g}`),
        ...profiles.map((p) => `--profile ${p}`),
      ];
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
    for (const profile of profiles.filter((p) => !claimedProfiles.has(p))) {
      io.err(`warning: --profile ${profile}: ${config.name} does not claim it, so its cases will not run\n`);
    }

    const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${generateIdentifier('').slice(0, 6)}`;
    // Relative to where the command runs: an installed package must not write into itself.
    const out = resolve(values.out ?? join('reports', runId));
    prepareOutDir(out);
    const log = (line: string): void => {
      io.out(`${line}\n`);
    };
    const connectionFile =
      values['connection-file'] === undefined ? undefined : resolve(values['connection-file']);
    if (connectionFile !== undefined) checkWritableFile(connectionFile, '--connection-file');
    const providerChoice = await selectProvider(provider, external === undefined ? {} : { external });
    log(
      `agentconf ${suiteVersion()} for XMPP Agent Gateway ${SPEC_REVISION}; seed ${String(seed)} (replay with --seed ${String(seed)})`,
    );
    log(providerChoice.reason);
    const pace = paceOf(config.limits, rate);
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
      // Before the wait: what the protocol cannot provision must be set up before the gateway
      // starts, and the item IDs go into the SUT file's fixturesConfirmed.
      if (config.fixtures === 'admin-iq' && world !== undefined) {
        const items = operatorChecklist(world);
        for (const line of checklistLines(items, unconfirmedItems(items, config.fixturesConfirmed)))
          log(line);
      }
      log(externalGatewayText(details, connectionFile));
    };
    const runOnce = async (
      repetitionSeed: number,
      repetitionId: string,
      quiet: boolean,
      dir: string,
    ): Promise<RunResult> => {
      const session = await startSession({
        provider: providerChoice.provider,
        config,
        ...(world === undefined ? {} : { world }),
        log: quiet ? () => undefined : log,
        onServersUp,
        ...(pace === undefined ? {} : { pace }),
      });
      const interrupt = listenForInterrupt((reason) => {
        io.err(
          `\nagentconf run: ${reason}: stopping and writing the partial report (Ctrl-C again stops at once)\n`,
        );
      });
      try {
        return await runConformance({
          runId: repetitionId,
          session,
          config,
          suites: ALL_SUITES,
          selection: caseSelection,
          seed: repetitionSeed,
          strict: values.strict,
          deep: values.deep,
          ...(baseline === undefined ? {} : { baseline }),
          suiteVersion: suiteVersion(),
          specRevision: SPEC_REVISION,
          progress: quiet
            ? silentProgress
            : terminalProgress((text) => {
                io.out(text);
              }, values.verbose),
          ...(pace === undefined ? {} : { pace }),
          interrupt,
        });
      } finally {
        // The gateway's output and the servers' logs go with the reports, before the stop removes them.
        mkdirSync(dir, { recursive: true });
        await session.keepLogs(join(dir, 'logs')).catch((error: unknown) => {
          io.err(
            `agentconf run: the logs could not be kept: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        });
        await session.stop();
        interrupt.dispose();
      }
    };
    const writeRun = async (result: RunResult, dir: string): Promise<void> => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
      const reports = await writeReports(result, dir, { allureHtml: values['allure-html'] });
      for (const note of reports.notes) log(note);
    };

    try {
      return await runAll();
    } catch (error) {
      if (!(error instanceof SessionStartFailure)) throw error;
      io.err(`agentconf run: ${error.message}\n`);
      if (values.debug) io.err(`${error.stack ?? ''}\n`);
      return EXIT.couldNotRun;
    }

    async function runAll(): Promise<ExitCode> {
      if (repeat === 1) {
        const result = await runOnce(seed, runId, false, out);
        io.out(summaryTable(result));
        await writeRun(result, out);
        log(`results: ${out} (the gateway's and the servers' logs in logs/)`);
        if (result.interrupted !== undefined) return EXIT.interrupted;
        if (result.abortedBy !== undefined) return EXIT.couldNotRun;
        return result.passed ? EXIT.ok : EXIT.invalid;
      }
      // --repeat: each repetition is a whole run (its own federation, gateway and seed), as N
      // separate invocations would be; one line each, then the stability table.
      const runs: RunResult[] = [];
      for (let index = 0; index < repeat; index += 1) {
        const repetitionSeed = index === 0 ? seed : caseSeed(seed, `repetition-${String(index + 1)}`);
        const dir = join(out, `repetition-${String(index + 1)}`);
        const result = await runOnce(repetitionSeed, `${runId}-${String(index + 1)}`, true, dir);
        runs.push(result);
        log(
          `repetition ${String(index + 1)}/${String(repeat)}, seed ${String(repetitionSeed)}: ${String(result.cases.length)} cases in ${(result.durationMs / 1000).toFixed(1)} s, ${runVerdictLine(result)}`,
        );
        await writeRun(result, dir);
        if (result.interrupted !== undefined) {
          log(`results: ${out} (interrupted after repetition ${String(index + 1)})`);
          return EXIT.interrupted;
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

/** What a gateway the harness does not start needs, printed once the servers are up. */
function externalGatewayText(details: ConnectionFile, connectionFile: string | undefined): string {
  const { component, gateway } = details;
  const rows: string[][] = [
    ['host', component.host],
    ['port', String(component.port ?? 5347)],
    ['domain', component.domain ?? ''],
    ['secret', component.secret],
    ['CA file', `${details.caCertPath} (every server certificate chains to it)`],
  ];
  if (gateway?.adminJid !== undefined)
    rows.push(['admin', `${gateway.adminJid} (trust it for Administrative Provisioning)`]);
  if (gateway?.worldFile !== undefined)
    rows.push(['world', `${gateway.worldFile} (load this fixture world)`]);
  if (gateway?.conformanceToolsUrl !== undefined)
    rows.push([
      'tools',
      `${gateway.conformanceToolsUrl} (MCP Streamable HTTP: host these conformance tools as the world's conformance endpoint)`,
    ]);
  return [
    `gateway under test: ${gateway?.name ?? ''} is not started by the harness; connect it as a XEP-0114 component:`,
    ...textTable(rows),
    ...(connectionFile === undefined
      ? []
      : [`connection file: ${connectionFile} (JSON: fixtures/schemas/federation-connection.schema.json)`]),
    `waiting up to ${String(gateway?.startupSeconds ?? 0)} s for it to answer…`,
  ].join('\n');
}

/**
 * The output folder, made and proved writable before anything starts (a run's results must not
 * be lost at its end); an existing non-empty one is refused, since old reports would mix in.
 */
function prepareOutDir(out: string): void {
  if (existsSync(out) && readdirSync(out).length > 0) {
    throw new UsageError(
      `--out ${out} is not empty: give a new or empty folder, so no earlier run's reports mix in`,
    );
  }
  const probe = join(out, '.agentconf-write-check');
  try {
    makeDirectories(out);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'not writable';
    throw new UsageError(`--out ${out} cannot be written (${code})`);
  }
}

/**
 * mkdir -p one level at a time. Node's recursive mkdirSync never returns for a path under /proc
 * (each level reports ENOENT and it retries the parent), so the levels are made here.
 */
function makeDirectories(path: string): void {
  const missing: string[] = [];
  let current = path;
  while (!existsSync(current)) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing) mkdirSync(directory);
}
