// examples/external-gateway/run.sh, run as a user runs it: the reference gateway certified as a
// gateway the harness does not start (its own process under a supervisor, configured from the
// connection file, fixtures over admin-iq, conformance tools served by the harness over MCP). It
// must pass every claimed profile, exit 0, keep the gateway's output with the reports, and decide
// as many MUST cases per profile as the default run of the reference gateway does: the operator's
// commands (external: kill, freeze, thaw, storageFault) and the harness's fault proxy on the
// component link leave no MUST case to a gateway the harness launches. Without those commands the
// cases that need them cannot tell, each naming the command, and no profile passes.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import type { ConformanceReport } from '../runner/reports/conformance-report.ts';
import type { RunResult } from '../runner/run-result.ts';
import { runAgentconf, type AgentconfRun } from './variants/run-agentconf.ts';
import { runScript, type ScriptRun } from './test-support/script-run.ts';

const EXAMPLE = join(REPO_ROOT, 'examples/external-gateway');

function runExample(out: string, sut?: string, args: readonly string[] = []): Promise<ScriptRun> {
  return runScript(join(EXAMPLE, 'run.sh'), [out, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...(sut === undefined ? {} : { AGENTCONF_SUT: sut }) },
  });
}

function readJson(file: string, run: ScriptRun): unknown {
  if (!existsSync(file))
    throw new Error(`run.sh wrote no ${file} (exit ${String(run.code)}):\n${run.output}`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Decided (passed or failed) MUST cases per claimed profile. */
function decidedMust(
  profiles: readonly { profile?: string; id?: string; counts?: Record<string, Record<string, number>> }[],
) {
  return Object.fromEntries(
    profiles.flatMap((entry) => {
      const must = entry.counts?.['MUST'];
      if (must === undefined) return [];
      return [[entry.id ?? entry.profile ?? '', (must['passed'] ?? 0) + (must['failed'] ?? 0)]];
    }),
  );
}

/** The example's cases that act on the gateway's process or surroundings, and what an external gateway needs for each. */
const NEEDS_OPERATOR_COMMAND: Readonly<Record<string, string>> = {
  'invocation.crash-on-the-wire': 'external.kill',
  'invocation.durable-across-crash': 'external.kill',
  'invocation.storage-fault-no-accepted': 'external.storageFault',
  'cancellation.frozen-gateway-timeout-local': 'external.freeze',
};
const NEEDS_FAULT_PROXY = [
  'cancellation.reason-line-ends',
  'events.component-link-cut',
  'i18n.sender-jid-turkish-i',
  'invocation.s2s-fault-identical-retry',
  'json-encoding.cdata-split-arguments',
  'security.restricted-xml-on-component-link',
  'task-recovery.server-restart',
];

describe('examples/external-gateway/run.sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentconf-example-'));
  const out = join(dir, 'reports');
  const bareOut = join(dir, 'reports-without-commands');
  let example: ScriptRun;
  let report: ConformanceReport;
  let reference: AgentconfRun;
  let bare: ScriptRun;

  beforeAll(async () => {
    example = await runExample(out);
    report = readJson(join(out, 'conformance.json'), example) as ConformanceReport;
    reference = await runAgentconf({ sut: join(REPO_ROOT, 'fixtures/sut/reference-gateway.json') });
    // The same gateway, its SUT file without the operator's commands (the locale kept), on the
    // cases that need them only: what an operator who gives none gets.
    const sut = JSON.parse(readFileSync(join(EXAMPLE, 'sut.json'), 'utf8')) as Record<string, unknown>;
    const { locale } = sut['external'] as { locale: string };
    delete sut['$schema'];
    const bareSut = join(dir, 'sut-without-commands.json');
    writeFileSync(bareSut, JSON.stringify({ ...sut, external: { locale } }));
    const grep = Object.keys(NEEDS_OPERATOR_COMMAND).flatMap((id) => ['--grep', id]);
    bare = await runExample(bareOut, bareSut, ['--seed', '7', ...grep]);
  }, 900_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes every claimed profile and exits 0, the gateway configured from the connection file', () => {
    expect(example.code, example.output).toBe(0);
    expect(report.passed).toBe(true);
    expect(report.fixtures).toBe('admin-iq');
    expect(example.output).toContain('conformance tools: served by the harness at http://127.0.0.1:');
    expect(example.output).toContain('external gateway: started');
    // The operator checklist is printed once; cases waiting for an item name only its ID.
    expect(example.output.split('fixtures: operator checklist').length - 1).toBe(1);
    expect(readFileSync(join(out, 'logs', 'external-gateway.log'), 'utf8')).toContain(
      'agents.example online via',
    );
  });

  it('decides as many MUST cases per profile as the default run, the crash, storage and link cases included', () => {
    expect(reference.code, reference.stdout).toBe(0);
    const result = readJson(join(out, 'result.json'), example) as RunResult;
    const outcomes = Object.fromEntries(result.cases.map((entry) => [entry.case.id, entry.outcome]));
    for (const id of [...Object.keys(NEEDS_OPERATOR_COMMAND), ...NEEDS_FAULT_PROXY]) {
      expect(outcomes[id], id).toBe('passed');
    }
    const undecidedMust = result.cases.filter(
      (entry) =>
        entry.case.level === 'MUST' && (entry.outcome === 'inapplicable' || entry.outcome === 'cantTell'),
    );
    const defaultUndecided = reference.result.cases.filter(
      (entry) =>
        entry.case.level === 'MUST' && (entry.outcome === 'inapplicable' || entry.outcome === 'cantTell'),
    );
    expect(undecidedMust.map((entry) => entry.case.id).sort()).toEqual(
      defaultUndecided.map((entry) => entry.case.id).sort(),
    );
    const defaultRun = decidedMust(reference.result.profiles.filter((verdict) => verdict.claimed));
    const external = decidedMust(report.profiles.filter((statement) => statement.claimed));
    expect(external).toEqual(defaultRun);
  });

  it("without the operator's commands, the cases that need them cannot tell, naming the command, and no profile passes", () => {
    const result = readJson(join(bareOut, 'result.json'), bare) as RunResult;
    const bareReport = readJson(join(bareOut, 'conformance.json'), bare) as ConformanceReport;
    expect(bare.code, bare.output).not.toBe(0);
    expect(bareReport.passed).toBe(false);
    for (const [id, command] of Object.entries(NEEDS_OPERATOR_COMMAND)) {
      const entry = result.cases.find((caseResult) => caseResult.case.id === id);
      expect(entry?.outcome, id).toBe('cantTell');
      expect(entry?.reason, id).toContain(command);
    }
    const taskExecution = bareReport.profiles.find((statement) => statement.id === 'task-execution');
    expect(taskExecution?.verdict).not.toBe('passed');
  });
});
