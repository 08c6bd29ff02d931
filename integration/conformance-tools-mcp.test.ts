/**
 * #mcp-mapping, #invocation, #events, #interactive-input, #cancellation: the task suites pass
 * against the reference gateway when its conformance endpoint is MCP-hosted: the gateway starts
 * `agentconf conformance-tools` over stdio (fixtures/sut/reference-gateway-mcp.json), generates
 * the endpoint's manifest from tools/list (it must equal the world's conformance.json byte for
 * byte, or the gateway does not start) and runs every task as a tools/call. The ledger lives in
 * the MCP server's file, so it survives the crash-and-restart cases.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processIo, type CliIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';

const SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway-mcp.json');
const SECTIONS = ['invocation', 'events', 'cancellation', 'interactive-input'];

interface RunSummary {
  readonly cases: readonly { readonly case: { readonly id: string }; readonly outcome: string }[];
  readonly profiles: readonly {
    readonly profile: string;
    readonly claimed: boolean;
    readonly verdict: string;
  }[];
}

let out: string;
let code: number;
let stdout = '';
let stderr = '';
let result: RunSummary;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'agentconf-mcp-run-'));
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: processIo.readFile,
  };
  const argv = ['run', '--provider', 'native', '--sut', SUT, '--out', join(out, 'reports')];
  for (const section of SECTIONS) argv.push('--grep', section);
  code = await main(argv, io);
  result = JSON.parse(readFileSync(join(out, 'reports', 'result.json'), 'utf8')) as RunSummary;
}, 300_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('#mcp-mapping: the conformance tools hosted over MCP', () => {
  it('every selected task case passes, and the run exits 0', () => {
    const unpassed = result.cases
      .filter((entry) => entry.outcome !== 'passed')
      .map((entry) => `${entry.case.id}: ${entry.outcome}`);
    expect(unpassed, `${stdout}\n${stderr}`).toEqual([]);
    for (const section of SECTIONS) {
      expect(result.cases.some((entry) => entry.case.id.startsWith(`${section}.`))).toBe(true);
    }
    expect(code, `${stdout}\n${stderr}`).toBe(0);
  });

  it('the task profiles the selection reaches pass (partially: the selection is a subset)', () => {
    const verdicts = Object.fromEntries(result.profiles.map((entry) => [entry.profile, entry.verdict]));
    expect(verdicts['task-execution']).toMatch(/pass/i);
    expect(verdicts['interactive-tasks']).toMatch(/pass/i);
  });

  it('the tools ran in the MCP server, on the ledger file of the run', () => {
    const log = readFileSync(join(out, 'reports', 'logs', 'gateway.log'), 'utf8');
    // One line per server process: the first start and the restart after the crash case.
    const starts =
      log.match(/^conformance-tools: MCP on stdio; ledger \S+conformance-ledger\.jsonl$/gm) ?? [];
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(log).not.toMatch(/cannot start the MCP-hosted endpoints/);
  });

  it('the suites read the ledger out of band, from the file, not through the counter tool', () => {
    const transcript = readFileSync(
      join(out, 'reports', 'transcripts', 'invocation.replay-same-task.txt'),
      'utf8',
    );
    expect(transcript).toMatch(
      /ledger \S+: 1, read from the conformance tools' ledger file \S+conformance-ledger\.jsonl, read by the harness \(out of band\)/,
    );
    expect(transcript).not.toMatch(/counter tool/);
  });
});
