/**
 * `agentconf run` in-process against a variant's SUT file, on the native federation: the exit
 * code, what it printed, its result.json and how long it took. The verdict proofs judge the
 * RunResult, never the printed table.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../cli/test-support/run-cli.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import type { ProfileVerdict } from '../../runner/profile-verdicts.ts';
import type { RunResult } from '../../runner/run-result.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';

export interface AgentconfRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly result: RunResult;
  /** Wall time of the whole command (federation and gateway start included). */
  readonly seconds: number;
}

export interface RunOptions {
  readonly sut: string;
  /** --grep patterns; only for proofs that a variant does NOT pass (a subset never proves a PASS). */
  readonly grep?: readonly string[];
  /** --profile filters; same restriction as grep. */
  readonly profiles?: readonly ProfileId[];
  readonly strict?: boolean;
  /** --deep: the adversarial cases' larger budgets. */
  readonly deep?: boolean;
  readonly seed?: number;
  /** --server-a: the federated callers' server (default: Prosody). */
  readonly serverA?: ServerImplementation;
}

/** Runs `agentconf run --provider native --sut …`; the report directory is removed afterwards. */
export async function runAgentconf(options: RunOptions): Promise<AgentconfRun> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-proof-'));
  const argv = ['run', '--provider', 'native', '--sut', options.sut, '--out', out];
  for (const grep of options.grep ?? []) argv.push('--grep', grep);
  for (const profile of options.profiles ?? []) argv.push('--profile', profile);
  if (options.strict === true) argv.push('--strict');
  if (options.deep === true) argv.push('--deep');
  if (options.seed !== undefined) argv.push('--seed', String(options.seed));
  if (options.serverA !== undefined) argv.push('--server-a', options.serverA);
  const started = performance.now();
  try {
    const { code, stdout, stderr } = await runCli(argv);
    const seconds = (performance.now() - started) / 1000;
    let result: RunResult;
    try {
      result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
    } catch {
      throw new Error(`agentconf run wrote no result.json (exit ${String(code)}):\n${stdout}\n${stderr}`);
    }
    return { code, stdout, stderr, result, seconds };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export function verdictOf(run: AgentconfRun, profile: ProfileId): ProfileVerdict {
  const verdict = run.result.profiles.find((entry) => entry.profile === profile);
  if (verdict === undefined) throw new Error(`no verdict for ${profile}`);
  return verdict;
}

/** The claimed profiles whose verdict is not 'passed', as `profile: verdict (reason)` lines. */
export function unpassedClaims(run: AgentconfRun): string[] {
  return run.result.profiles
    .filter((entry) => entry.claimed && entry.verdict !== 'passed')
    .map((entry) => `${entry.profile}: ${entry.verdict} (${entry.reason ?? ''})`);
}

/** The cases that did not pass (inapplicable and unclaimed ones left out), as `id outcome: reason` lines. */
export function unpassedCases(run: AgentconfRun): string[] {
  return run.result.cases
    .filter((result) => !['passed', 'inapplicable', 'untested'].includes(result.outcome))
    .map((result) => `${result.case.id} ${result.outcome}: ${(result.reason ?? '').split('\n')[0] ?? ''}`);
}

/** What a failed assertion on a run prints: the verdicts, the cases that did not pass, the timing. */
export function describeRun(run: AgentconfRun): string {
  const verdicts = run.result.profiles
    .filter((entry) => entry.claimed)
    .map(
      (entry) =>
        `  ${entry.profile}: ${entry.verdict}${entry.reason === undefined ? '' : ` (${entry.reason})`}`,
    );
  return [
    `exit ${String(run.code)} after ${run.seconds.toFixed(1)} s, seed ${String(run.result.seed)}; passed=${String(run.result.passed)}`,
    'claimed profiles:',
    ...verdicts,
    'cases not passed:',
    ...unpassedCases(run).map((line) => `  ${line}`),
  ].join('\n');
}

/** The IDs of the cases that kept a claimed profile from passing (failed or undecided), sorted. */
export function blockingCases(run: AgentconfRun): string[] {
  const ids = run.result.profiles
    .filter((entry) => entry.claimed)
    .flatMap((entry) => [...entry.failingCases, ...entry.undecidedCases]);
  return [...new Set(ids)].sort();
}

/** The case's result, or an error naming the cases that ran. */
export function caseOf(run: AgentconfRun, id: string): CaseResult {
  const found = run.result.cases.find((result) => result.case.id === id);
  if (found === undefined) throw new Error(`case ${id} did not run`);
  return found;
}

/** The requirements the case's attempts violated (a flake re-run meets a gateway the first attempt left stuck). */
export function violated(run: AgentconfRun, id: string): (string | undefined)[] {
  return caseOf(run, id).attempts.map((attempt) => attempt.violation?.requirement);
}
