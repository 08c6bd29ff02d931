// agentconf interop with two reference gateways that call out (fixtures/sut/reference-gateway-caller.json):
// the suite-judged scenarios and the invocation through each caller's conformance call-out pass in
// both directions, and so do events, recovery and cancellation/input: the run exits 0.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../cli/test-support/run-cli.ts';
import type { DirectionResult } from '../runner/interop/run-interop.ts';

const SUT = 'fixtures/sut/reference-gateway-caller.json';

describe('agentconf interop, reference gateways calling out', () => {
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  const direction = (name: string): DirectionResult =>
    JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as DirectionResult;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'agentconf-interop-'));
    run = await runCli(['interop', '--sut', SUT, '--sut', SUT, '--seed', '7', '--out', out]);
  }, 300_000);

  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it.each(['A-to-B', 'B-to-A'])('%s: every scenario passes, on evidence', (name) => {
    const outcomes = Object.fromEntries(direction(name).scenarios.map((entry) => [entry.id, entry.outcome]));
    expect(outcomes, run.stdout).toEqual({
      discovery: 'passed',
      retrieval: 'passed',
      'hidden-vs-missing': 'passed',
      invocation: 'passed',
      events: 'passed',
      recovery: 'passed',
      'cancellation-input': 'passed',
    });
    const invocation = direction(name).scenarios.find((entry) => entry.id === 'invocation');
    expect(invocation?.reason).toMatch(/invoked conformance@agents\.example(\.com)? across s2s/);
  });

  it('prints a table per direction and exits 0, since every scenario passed', () => {
    expect(run.stdout).toMatch(/A-to-B: .*calls.*\n[\s\S]*invocation\s+passed/);
    expect(run.stdout).toMatch(/B-to-A: .*calls.*\n[\s\S]*invocation\s+passed/);
    expect(run.stdout).toMatch(/interop: passed \(seed 7\)/);
    expect(run.code).toBe(0);
  });
});
