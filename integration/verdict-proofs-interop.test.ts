// Issue 24, Done when: a pair with a broken side fails the right cell, naming the side and the
// requirement; the other direction, whose target is a permitted variant, still passes. One
// `agentconf interop` run: gateway A is a permitted variant calling out (IQ errors echo the
// request, which #errors allows), gateway B a broken one without a call-out (directory and tool
// collections in UTF-16 order, which #list-agents forbids, and each progress update raising the
// revision by two, which #events forbids).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DirectionResult } from '../runner/interop/run-interop.ts';
import { runCli } from '../cli/test-support/run-cli.ts';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import {
  buildGatewayVariant,
  ECHO_IN_ERRORS,
  variantPatches,
  type BuiltVariant,
  type SutFile,
} from './variants/gateway-variants.ts';

describe('an interop pair with a broken target B and a permitted target A', () => {
  let permitted: BuiltVariant;
  let broken: BuiltVariant;
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  const direction = (name: string): DirectionResult =>
    JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as DirectionResult;
  const scenario = (name: string, id: string) => {
    const found = direction(name).scenarios.find((entry) => entry.id === id);
    if (found === undefined) throw new Error(`no scenario ${id} in ${name}`);
    return found;
  };

  beforeAll(async () => {
    permitted = buildGatewayVariant({ ...ECHO_IN_ERRORS, base: 'reference-gateway-caller.json' });
    broken = buildGatewayVariant({
      name: 'utf16-order',
      change:
        'directory, search and tool collections sorted and positioned by UTF-16 code units; progress skips a revision',
      patches: [
        ...variantPatches('utf16-order'),
        ...readPatchFile('mutants/patches/progress-skips-a-revision.patch'),
      ],
    });
    out = mkdtempSync(join(tmpdir(), 'agentconf-interop-proof-'));
    run = await runCli([
      'interop',
      '--sut',
      permitted.sutFile,
      '--sut',
      broken.sutFile,
      '--seed',
      '7',
      '--out',
      out,
    ]);
    console.info(`[verdict proof] interop ${ECHO_IN_ERRORS.name} × utf16-order:\n${run.stdout}`);
  }, 420_000);

  afterAll(() => {
    permitted.remove();
    broken.remove();
    rmSync(out, { recursive: true, force: true });
  });

  it('FAILS discovery and retrieval A→B, naming target B and the byte-order requirements', () => {
    for (const [id, requirement] of [
      ['discovery', 'list-agents.octet-order'],
      ['retrieval', 'list-tools.name-byte-order'],
    ] as const) {
      const verdict = scenario('A-to-B', id);
      expect(verdict.outcome, run.stdout).toBe('failed');
      expect(verdict.reason).toContain(`target B: ${requirement}`);
      expect(verdict.failures.every((failure) => failure.side === 'target B')).toBe(true);
    }
    expect(run.stdout).toMatch(/A-to-B:[\s\S]*discovery\s+failed\s+target B: list-agents\.octet-order/);
  });

  it('PASSES every suite-judged scenario B→A, whose target only does what the spec allows', () => {
    for (const id of ['discovery', 'retrieval', 'hidden-vs-missing']) {
      expect(scenario('B-to-A', id).outcome, run.stdout).toBe('passed');
    }
  });

  it('FAILS events A→B naming target B, whose progress skips a revision, while invocation passes', () => {
    const events = scenario('A-to-B', 'events');
    expect(events.outcome, run.stdout).toBe('failed');
    expect(events.reason).toMatch(/^target B: events\.revision-increments/);
    expect(events.failures.map((failure) => failure.side)).toEqual(['target B']);
    expect(scenario('A-to-B', 'invocation').outcome, run.stdout).toBe('passed');
  });

  it('never passes what it did not observe (B declares no call-out), and exits 1 when a scenario is not passed', () => {
    for (const id of ['invocation', 'events', 'recovery', 'cancellation-input']) {
      const verdict = scenario('B-to-A', id);
      expect(verdict.outcome).toBe('cantTell');
      expect(verdict.reason).toMatch(/declares no call-out interface/);
    }
    for (const name of ['A-to-B', 'B-to-A']) expect(direction(name).passed).toBe(false);
    expect(run.code).toBe(1);
  });
});

/** The reference gateway with its call-out on, as fixtures/sut/reference-gateway-caller.json has it. */
function callingOut(sut: SutFile): void {
  sut['caller'] = { gatewayTool: { endpoint: 'caller@agents.example', tool: 'conformance.call-out' } };
  (sut.launch.files['gateway.json'] as Record<string, unknown>)['callOut'] = {
    endpoint: 'caller@{componentDomain}',
    iqTimeoutSeconds: 3,
  };
}

describe('an interop pair whose caller A invokes with a manifest hash it was never served', () => {
  let brokenCaller: BuiltVariant;
  let goodCaller: BuiltVariant;
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  const verdictOf = (name: string, id: string) => {
    const result = JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as DirectionResult;
    const found = result.scenarios.find((entry) => entry.id === id);
    if (found === undefined) throw new Error(`no ${id} scenario in ${name}`);
    return found;
  };
  const invocation = (name: string) => verdictOf(name, 'invocation');

  beforeAll(async () => {
    // Also a permitted target: progress rate-limited by coalescing (#security asks for a limit;
    // a dropped update takes no revision), which the events scenario B→A must pass.
    brokenCaller = buildGatewayVariant({
      name: 'caller-stale-pin',
      change: "the call-out's invoke carries a manifest hash the target never served; progress coalesced",
      patches: [...variantPatches('caller-stale-pin'), ...variantPatches('progress-coalescing')],
      sut: callingOut,
    });
    goodCaller = buildGatewayVariant({
      name: 'calling-out',
      change: 'call-out on',
      patches: [],
      sut: callingOut,
    });
    out = mkdtempSync(join(tmpdir(), 'agentconf-interop-proof-'));
    run = await runCli([
      'interop',
      '--sut',
      brokenCaller.sutFile,
      '--sut',
      goodCaller.sutFile,
      '--seed',
      '7',
      '--out',
      out,
    ]);
    console.info(`[verdict proof] interop caller-stale-pin × calling-out:\n${run.stdout}`);
  }, 420_000);

  afterAll(() => {
    brokenCaller.remove();
    goodCaller.remove();
    rmSync(out, { recursive: true, force: true });
  });

  it('FAILS invocation A→B naming caller A and the pinning requirement, not the target that refused', () => {
    const verdict = invocation('A-to-B');
    expect(verdict.outcome, run.stdout).toBe('failed');
    expect(verdict.reason).toMatch(/^caller A: manifest-retrieval\.client-pins-version/);
    expect(verdict.failures.map((failure) => failure.side)).toEqual(['caller A']);
  });

  it('PASSES invocation and events B→A, where the correct caller calls the broken one, which coalesces progress', () => {
    expect(invocation('B-to-A').outcome, run.stdout).toBe('passed');
    expect(verdictOf('B-to-A', 'events').outcome, run.stdout).toBe('passed');
  });
});

// Issue 24's two example broken pairs, in one run: gateway B's target forgets a request once its
// task settled, so the repeat of an invoke whose <accepted/> was lost starts another task
// (mutants/patches/replay-forgets-settled.patch); gateway B's caller repeats a lost invoke under
// a new request ID (integration/variants/patches/bridge-retries-new-id.patch: the call-out runs
// the same caller engine as the MCP bridge), and it reports a remote task cancelled on
// <cancel-accepted/> alone (bridge-cancel-accepted-as-cancelled.patch). Gateway A is the reference
// gateway calling out;
// both derive from fixtures/sut/reference-gateway-caller.json.
describe('an interop pair whose gateway B replays no settled task, retries under a new request ID and reports cancel-accepted as cancelled', () => {
  let broken: BuiltVariant;
  let good: BuiltVariant;
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  const scenario = (name: string, id: string) => {
    const result = JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as DirectionResult;
    const found = result.scenarios.find((entry) => entry.id === id);
    if (found === undefined) throw new Error(`no scenario ${id} in ${name}`);
    return found;
  };
  /** The scenario failed, its reason leads with `named` ("side: requirement"), and it names nothing else. */
  const expectFailedNaming = (name: string, id: string, named: string): void => {
    const verdict = scenario(name, id);
    expect(verdict.outcome, run.stdout).toBe('failed');
    expect(verdict.reason.startsWith(named), verdict.reason).toBe(true);
    expect(new Set(verdict.failures.map((failure) => `${failure.side}: ${failure.requirement}`))).toEqual(
      new Set([named]),
    );
  };

  beforeAll(async () => {
    broken = buildGatewayVariant({
      name: 'forgets-replays-retries-new-id',
      change:
        'a settled task is no longer replayed; the call-out repeats a lost invoke under a new request ID and takes <cancel-accepted/> for cancellation',
      patches: [
        ...readPatchFile('mutants/patches/replay-forgets-settled.patch'),
        ...variantPatches('bridge-retries-new-id'),
        ...variantPatches('bridge-cancel-accepted-as-cancelled'),
      ],
      base: 'reference-gateway-caller.json',
    });
    good = buildGatewayVariant({
      name: 'reference-calling-out',
      change: 'none',
      patches: [],
      base: 'reference-gateway-caller.json',
    });
    out = mkdtempSync(join(tmpdir(), 'agentconf-interop-proof-'));
    run = await runCli([
      'interop',
      '--sut',
      good.sutFile,
      '--sut',
      broken.sutFile,
      '--seed',
      '7',
      '--out',
      out,
    ]);
    console.info(
      `[verdict proof] interop reference-calling-out × forgets-replays-retries-new-id:\n${run.stdout}`,
    );
  }, 420_000);

  afterAll(() => {
    broken.remove();
    good.remove();
    rmSync(out, { recursive: true, force: true });
  });

  it('FAILS recovery A→B naming target B, which started a second task for a lost <accepted/>', () => {
    // Both recovery calls may meet it: the cut link can lose an <accepted/> too.
    expectFailedNaming('A-to-B', 'recovery', 'target B: invocation.replay-same-task');
  });

  it('FAILS recovery B→A naming caller B, which repeated a lost invoke under a new request ID', () => {
    expectFailedNaming('B-to-A', 'recovery', 'caller B: invocation.caller-retries-identically');
  });

  it('FAILS cancellation-input B→A naming caller B, which reported cancelled what the target did not settle so', () => {
    expectFailedNaming(
      'B-to-A',
      'cancellation-input',
      'caller B: mcp-mapping.cancel-accepted-not-cancellation',
    );
  });

  it('PASSES every other scenario, in both directions', () => {
    for (const [name, others] of [
      ['A-to-B', ['cancellation-input']],
      ['B-to-A', []],
    ] as const) {
      for (const id of ['discovery', 'retrieval', 'hidden-vs-missing', 'invocation', 'events', ...others]) {
        expect(scenario(name, id).outcome, `${name} ${id}\n${run.stdout}`).toBe('passed');
      }
    }
    expect(run.code).toBe(1);
  });
});
