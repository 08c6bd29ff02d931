// Issue 24, item 2: `agentconf run --server-a ejabberd` runs the reference gateway with ejabberd
// serving example.com and records that stack in every report. A focused set of cases: one that
// crosses s2s from ejabberd's callers, the presence subscription ejabberd used to end the session
// of (harness bug: no mod_roster), and a blocking case, which on ejabberd cannot tell (the
// server behaviour docs/federation.md "Server stacks" documents) and says why instead of failing.
// ~10 s here (ejabberd boots in ~3 s; the first run on a machine may install it from Debian).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../cli/test-support/run-cli.ts';
import type { RunResult } from '../runner/run-result.ts';

const CASES = [
  'gateway-info.identity-federated',
  'identity-presence.subscribe-visible-federated',
  'messaging.blocked-domain-offline',
];

describe('agentconf run --server-a ejabberd', () => {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-ejabberd-run-'));
  let run: { code: number; stdout: string; stderr: string };
  let result: RunResult;

  beforeAll(async () => {
    const argv = ['run', '--server-a', 'ejabberd', '--seed', '7', '--out', out];
    for (const id of CASES) argv.push('--grep', id);
    run = await runCli(argv);
    result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  }, 600_000);

  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it('runs natively (auto asks no Docker engine) and says which server serves which role', () => {
    expect(run.stdout).toContain('auto: native processes (ejabberd runs natively only');
    expect(run.stdout).toMatch(
      /federation: native \(server A ejabberd, server B prosody, hostile prosody\), servers ready/,
    );
  });

  it('records the stack in result.json, conformance.json and conformance.md', () => {
    const stack = { a: 'ejabberd', b: 'prosody', hostile: 'prosody' };
    expect(result.servers).toEqual(stack);
    const statement = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as {
      servers?: unknown;
    };
    expect(statement.servers).toEqual(stack);
    expect(readFileSync(join(out, 'conformance.md'), 'utf8')).toMatch(
      /\| Mode \| .*native federation \(server A ejabberd, server B prosody, hostile prosody\) \|/,
    );
  });

  it('passes the federated cases with callers on ejabberd', () => {
    const outcomes = Object.fromEntries(result.cases.map((c) => [c.case.id, c.outcome]));
    expect(outcomes['gateway-info.identity-federated'], run.stdout).toBe('passed');
    expect(outcomes['identity-presence.subscribe-visible-federated'], run.stdout).toBe('passed');
  });

  it('cannot tell a blocking case there, naming the server and what decides it, never failing it', () => {
    const blocking = result.cases.find((c) => c.case.id === 'messaging.blocked-domain-offline');
    expect(blocking?.outcome, run.stdout).toBe('cantTell');
    const reason = blocking?.attempts.at(-1)?.reason ?? '';
    expect(reason).toMatch(
      /^example\.com \(server A\) runs ejabberd, which offers the gateway no block-state query/,
    );
    expect(reason).toMatch(/run it with --server-a prosody$/);
    expect(result.profiles.find((p) => p.profile === 'human-messaging')?.verdict).toBe('incomplete');
    expect(run.code).toBe(1);
  });
});
