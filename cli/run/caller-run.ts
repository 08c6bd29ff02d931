/**
 * `agentconf run --sut FILE` for a SUT file that declares only a caller (an MCP bridge,
 * docs/caller.md): the federation with the fake target, the caller suites, and the same
 * result.json, reports and summary as a gateway run, with no profile claimed and the caller's
 * assessments (not spec profiles) judged. Exits 0 only when every assessment run passed.
 */
import { join, resolve } from 'node:path';

import { selectProvider } from '../../harness/federation/auto-provider.ts';
import type { Federation } from '../../harness/federation/server-provider.ts';
import type { CallerSutConfig } from '../../harness/sut/sut-config.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { assessmentsPassed } from '../../runner/assessment-verdicts.ts';
import { callerProgress } from '../../runner/caller-report.ts';
import { profileVerdicts } from '../../runner/profile-verdicts.ts';
import { runCallers, type CallerRunResult } from '../../runner/run-callers.ts';
import type { RunResult } from '../../runner/run-result.ts';
import { summaryTable } from '../../runner/terminal-report.ts';
import { ALL_CALLER_SUITES } from '../../suites/caller/index.ts';
import { freshSeed } from '../../suites/framework/seeded-random.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { EXIT, type CliIo, type ExitCode } from '../io.ts';
import { prepareOutDir } from '../out-dir.ts';
import type { RunValues } from './checked-inputs.ts';
import { suiteVersion } from './plan.ts';
import { writeReports } from '../../runner/reports/write-reports.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { runServersOf, serversText, type RunServers } from '../../runner/server-stack.ts';
import { requestedServerStack } from '../server-stack.ts';

/** The run's result: no profile claimed, the caller's cases and assessments; passed only when they all did. */
export function runResultOf(
  config: CallerSutConfig,
  values: RunValues,
  facts: {
    runId: string;
    startedAt: string;
    started: number;
    setupMs: number;
    seed: number;
    provider: string;
    servers: RunServers;
    callers: CallerRunResult;
  },
): RunResult {
  const { callers } = facts;
  const total = ALL_CALLER_SUITES.reduce((sum, suite) => sum + suite.cases.length, 0);
  return {
    runId: facts.runId,
    startedAt: facts.startedAt,
    durationMs: performance.now() - facts.started,
    setupMs: facts.setupMs,
    seed: facts.seed,
    strict: values.strict,
    deep: false,
    suiteVersion: suiteVersion(),
    specRevision: committedRegistry().specVersion,
    provider: facts.provider,
    servers: facts.servers,
    subject: {
      name: config.name,
      ...(config.version === undefined ? {} : { version: config.version }),
      ...(config.homepage === undefined ? {} : { homepage: config.homepage }),
      gatewayJid: '',
      profiles: [],
      features: [],
    },
    cases: [],
    selection: {
      grep: values.grep,
      profiles: [],
      selectedCases: callers.cases.length,
      totalCases: total,
    },
    partial: callers.partial,
    preflight: [],
    fixtures: 'manual',
    profiles: profileVerdicts([], { claimed: new Set(), strict: values.strict }),
    baseline: {},
    staleBaseline: [],
    unknownBaseline: [],
    passed: assessmentsPassed(callers.assessments),
    caller: { kind: 'mcp', name: config.name },
    callerCases: callers.cases,
    assessments: callers.assessments,
  };
}

/** 0 only when every assessment run passed; 1 when one failed or could not be decided. */
export function callerRunExit(result: RunResult): ExitCode {
  return result.passed ? EXIT.ok : EXIT.invalid;
}

export async function runCallerOnly(
  values: RunValues,
  config: CallerSutConfig,
  io: CliIo,
): Promise<ExitCode> {
  const seed = values.seed ?? freshSeed();
  const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${generateIdentifier('').slice(0, 6)}`;
  const out = resolve(values.out ?? join('reports', runId));
  prepareOutDir(out);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const log = (line: string): void => {
    io.out(`${line}\n`);
  };
  log(
    `agentconf ${suiteVersion()} caller suites for XMPP Agent Gateway ${committedRegistry().specVersion}; seed ${String(seed)} (replay with --seed ${String(seed)})`,
  );
  const stack = requestedServerStack(values);
  const choice = await selectProvider(values.provider, { servers: stack });
  log(choice.reason);
  log(`caller under test: ${config.name} (assessments caller-side and mcp-bridge, not spec profiles)`);
  let federation: Federation | undefined;
  try {
    federation = await choice.provider.start(stack.a === undefined ? {} : { serverA: stack.a });
    log(`federation: ${serversText(runServersOf(federation))}`);
    const setupMs = performance.now() - started;
    const callers = await runCallers({
      federation,
      declaration: config.caller,
      timeouts: config.timeouts,
      suites: ALL_CALLER_SUITES,
      grep: values.grep,
      seed,
      strict: values.strict,
      registry: committedRegistry(),
      progress: callerProgress((text) => {
        io.out(text);
      }),
    });
    const result = runResultOf(config, values, {
      runId,
      startedAt,
      started,
      setupMs,
      seed,
      provider: choice.name,
      servers: runServersOf(federation),
      callers,
    });
    io.out(summaryTable(result));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    const reports = await writeReports(result, out, { allureHtml: values['allure-html'] });
    for (const note of reports.notes) log(note);
    log(`results: ${out}`);
    return callerRunExit(result);
  } finally {
    await federation?.stop();
  }
}
