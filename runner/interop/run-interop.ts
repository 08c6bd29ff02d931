/**
 * An interop run: the pair (pair-gateways.ts), then each direction in turn — A→B (gateway A's
 * side calls, gateway B is the target), then B→A — each judged scenario by scenario
 * (suites/interop/scenarios.ts), each with its result.json and a table. The run passes only when
 * every scenario of both directions passed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { ALL_SUITES } from '../../suites/index.ts';
import { INTEROP_SCENARIOS, judgesScenario } from '../../suites/interop/scenarios.ts';
import { textTable } from '../../suites/framework/text-table.ts';
import { runConformance, type RunProgress } from '../run-conformance.ts';
import type { RunResult } from '../run-result.ts';
import { runServersOf, type RunServers } from '../server-stack.ts';
import { startPairGateways, type PairGateways } from './pair-gateways.ts';
import { judgedBySuites, type ScenarioVerdict } from './scenario-verdicts.ts';
import { targetSession } from './target-session.ts';
import { callOutJudgeOf } from './call-out-judges.ts';

export interface InteropDirection {
  readonly caller: PairSide;
  readonly target: PairSide;
}

/** A→B first, then B→A. */
export const INTEROP_DIRECTIONS: readonly InteropDirection[] = [
  { caller: 'a', target: 'b' },
  { caller: 'b', target: 'a' },
];

export function directionName({ caller, target }: InteropDirection): string {
  return `${caller.toUpperCase()}-to-${target.toUpperCase()}`;
}

export interface DirectionResult {
  readonly direction: string;
  readonly caller: { readonly side: PairSide; readonly name: string; readonly domain: string };
  readonly target: { readonly side: PairSide; readonly name: string; readonly domain: string };
  readonly servers: RunServers;
  readonly seed: number;
  readonly passed: boolean;
  readonly scenarios: readonly ScenarioVerdict[];
  /** The suite run behind the suite-judged scenarios (every case result, transcripts included). */
  readonly run: RunResult;
}

export interface InteropResult {
  readonly passed: boolean;
  readonly directions: readonly DirectionResult[];
}

export interface RunInteropOptions {
  readonly suts: Readonly<Record<PairSide, SutConfig>>;
  readonly referenceWorld: JsonValue;
  readonly serverA?: ServerImplementation;
  readonly seed: number;
  readonly suiteVersion: string;
  readonly specRevision: string;
  /** Each direction's result.json goes to `<out>/<direction>/`. */
  readonly out?: string;
  readonly log: (line: string) => void;
  readonly progress: RunProgress;
}

/** The IDs of every case a suite-judged scenario counts (the runner selects by substring). */
export function scenarioCaseIds(): string[] {
  return ALL_SUITES.flatMap((suite) => suite.cases)
    .filter((testCase) => INTEROP_SCENARIOS.some((scenario) => judgesScenario(scenario, testCase)))
    .map((testCase) => testCase.id);
}

async function runDirection(
  pair: PairGateways,
  direction: InteropDirection,
  options: RunInteropOptions,
): Promise<DirectionResult> {
  const { caller, target } = direction;
  const targetLabel = `target ${target.toUpperCase()}`;
  const config = options.suts[target];
  const session = await targetSession(pair, target, config, options.referenceWorld, options.log);
  let run: RunResult;
  try {
    run = await runConformance({
      runId: generateIdentifier('interop-'),
      session,
      config,
      suites: ALL_SUITES,
      selection: { grep: scenarioCaseIds() },
      seed: options.seed,
      strict: false,
      suiteVersion: options.suiteVersion,
      specRevision: options.specRevision,
      progress: options.progress,
    });
  } finally {
    await session.stop();
  }
  const scenarios: ScenarioVerdict[] = [];
  for (const scenario of INTEROP_SCENARIOS) {
    if (scenario.callOut !== true) scenarios.push(judgedBySuites(scenario, run.cases, targetLabel));
    else scenarios.push(await callOutJudgeOf(scenario.id)(scenario, pair, direction, options.suts));
  }
  const side = (of: PairSide) => ({
    side: of,
    name: options.suts[of].name,
    domain: pair.gateways[of].facts.componentDomain,
  });
  return {
    direction: directionName(direction),
    caller: side(caller),
    target: side(target),
    servers: runServersOf(pair.federation),
    seed: options.seed,
    passed: scenarios.every((scenario) => scenario.outcome === 'passed'),
    scenarios,
    run,
  };
}

/** One direction as a table: scenario, outcome, and why (the side and requirement that broke). */
export function directionTable(result: DirectionResult): string {
  const header = `${result.direction}: ${result.caller.name} (${result.caller.domain}) calls ${result.target.name} (${result.target.domain}); servers A ${result.servers.a}, B ${result.servers.b}; seed ${String(result.seed)}`;
  const rows = result.scenarios.map((scenario) => [scenario.id, scenario.outcome, scenario.reason]);
  return [header, ...textTable([['scenario', 'outcome', 'why'], ...rows]), ''].join('\n');
}

function writeDirection(out: string, result: DirectionResult): void {
  const dir = join(out, result.direction);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
}

export async function runInterop(options: RunInteropOptions): Promise<InteropResult> {
  const pair = await startPairGateways({
    suts: options.suts,
    referenceWorld: options.referenceWorld,
    ...(options.serverA === undefined ? {} : { serverA: options.serverA }),
    log: options.log,
  });
  try {
    const directions: DirectionResult[] = [];
    for (const direction of INTEROP_DIRECTIONS) {
      options.log(`interop: ${directionName(direction)}`);
      const result = await runDirection(pair, direction, options);
      if (options.out !== undefined) writeDirection(options.out, result);
      directions.push(result);
    }
    return { passed: directions.every((direction) => direction.passed), directions };
  } finally {
    await pair.stop();
  }
}
