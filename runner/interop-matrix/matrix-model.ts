/**
 * The matrix as data (matrix.json; the page and JUnit are drawn from it): per stack, a slot per
 * caller × target holding the directions that had that caller and that target — one for two
 * different gateways, two on the diagonal (a gateway against a second instance of itself) — each
 * with its scenarios' outcomes and the side and requirement that broke. A slot whose cell is
 * missing from the merged folders, or whose pair could not start, says so: never a pass.
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import { INTEROP_SCENARIOS } from '../../suites/interop/scenarios.ts';
import { directionName, INTEROP_DIRECTIONS, type DirectionResult } from '../interop/run-interop.ts';
import type { ScenarioOutcome } from '../interop/scenario-verdicts.ts';
import { CELL_LOG, CellRecordError, type CellRecord } from './cell-record.ts';
import { planCells, type InteropPlan } from './plan.ts';

export interface MatrixFailure {
  /** As the interop run names it: "target B", "caller A". */
  readonly side: string;
  /** The plan's ID of the gateway on that side. */
  readonly gateway: string;
  readonly requirement: string;
  readonly caseId: string;
}

export interface MatrixScenario {
  readonly id: string;
  readonly outcome: ScenarioOutcome;
  readonly reason: string;
  readonly failures: readonly MatrixFailure[];
}

/** One direction of one cell, as the slot of its caller and target shows it. */
export interface MatrixDirection {
  readonly cell: string;
  /** A-to-B or B-to-A. */
  readonly direction: string;
  readonly status: 'ran' | 'could-not-run' | 'missing';
  readonly reason?: string;
  readonly seed?: number;
  readonly durationMs?: number;
  readonly scenarios: readonly MatrixScenario[];
  /** Relative to the page: the direction's result.json (with every transcript) and the cell's log. */
  readonly resultHref?: string;
  readonly logHref?: string;
}

export type SlotOutcome = ScenarioOutcome | 'notRun';

export interface MatrixSlot {
  readonly caller: string;
  readonly target: string;
  readonly outcome: SlotOutcome;
  readonly directions: readonly MatrixDirection[];
}

export interface MatrixStack {
  readonly stack: ServerImplementation;
  readonly servers: string;
  readonly slots: readonly MatrixSlot[];
}

export interface MatrixData {
  readonly title: string;
  readonly generatedAt: string;
  readonly gateways: readonly { readonly id: string; readonly name?: string }[];
  readonly scenarios: readonly { readonly id: string; readonly title: string }[];
  readonly stacks: readonly MatrixStack[];
  readonly passed: boolean;
  readonly totals: Readonly<Record<SlotOutcome, number>>;
}

export interface FoundCell {
  readonly dir: string;
  readonly record: CellRecord;
}

/** A URL path from the page's folder to a file, each segment escaped. */
export function href(fromDir: string, to: string): string {
  return relative(fromDir, to).split(sep).map(encodeURIComponent).join('/');
}

/** failed beats cantTell beats passed: a slot passes a scenario only when every direction did. */
const OUTCOME_RANK: Readonly<Record<SlotOutcome, number>> = { passed: 0, cantTell: 1, notRun: 2, failed: 3 };

export function worstOutcome(outcomes: readonly SlotOutcome[]): SlotOutcome {
  if (outcomes.length === 0) return 'notRun';
  return outcomes.reduce((worst, outcome) => (OUTCOME_RANK[outcome] > OUTCOME_RANK[worst] ? outcome : worst));
}

function readDirection(path: string): DirectionResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CellRecordError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const direction = value as Partial<DirectionResult> | null;
  if (
    direction === null ||
    typeof direction !== 'object' ||
    !Array.isArray(direction.scenarios) ||
    typeof direction.caller?.side !== 'string' ||
    typeof direction.target?.side !== 'string'
  )
    throw new CellRecordError(`${path}: not a direction result of agentconf interop`);
  return direction as DirectionResult;
}

/** "target B" → the gateway on side b. */
function gatewayOfSide(side: string, record: CellRecord): string {
  const letter = side.trim().slice(-1).toLowerCase();
  return letter === 'a' || letter === 'b' ? record.gateways[letter].id : side;
}

function ranDirections(
  found: FoundCell,
  pageDir: string,
): { key: [string, string]; direction: MatrixDirection }[] {
  const { record, dir } = found;
  return record.directions.map((name) => {
    const path = join(dir, name, 'result.json');
    const result = readDirection(path);
    const scenarios = result.scenarios.map((scenario) => ({
      id: scenario.id,
      outcome: scenario.outcome,
      reason: scenario.reason,
      failures: scenario.failures.map((failure) => ({
        side: failure.side,
        gateway: gatewayOfSide(failure.side, record),
        requirement: failure.requirement,
        caseId: failure.caseId,
      })),
    }));
    return {
      key: [record.gateways[result.caller.side].id, record.gateways[result.target.side].id],
      direction: {
        cell: record.cell,
        direction: name,
        status: 'ran',
        seed: record.seed,
        durationMs: record.durationMs,
        scenarios,
        resultHref: href(pageDir, path),
        logHref: href(pageDir, join(dir, CELL_LOG)),
      },
    };
  });
}

/** A cell's directions in the order of its pairs: the gateway on A calls first. */
const DIRECTION_NAMES = INTEROP_DIRECTIONS.map(directionName);

export class DuplicateCellError extends Error {
  override readonly name = 'DuplicateCellError';
}

export interface MatrixModelOptions {
  readonly plan: InteropPlan;
  readonly cells: readonly FoundCell[];
  /** The page's folder: links are relative to it. */
  readonly pageDir: string;
  readonly generatedAt: string;
}

export function matrixModel({ plan, cells, pageDir, generatedAt }: MatrixModelOptions): MatrixData {
  const byId = new Map<string, FoundCell>();
  for (const found of cells) {
    const earlier = byId.get(found.record.cell);
    if (earlier !== undefined)
      throw new DuplicateCellError(
        `cell ${found.record.cell} is in both ${earlier.dir} and ${found.dir}: merge one`,
      );
    byId.set(found.record.cell, found);
  }
  const planned = planCells(plan);
  const strays = [...byId.keys()].filter((id) => !planned.some((cell) => cell.id === id));
  if (strays.length > 0)
    throw new DuplicateCellError(
      `${plan.source} has no cell ${strays.join(', ')}: were these folders made from another plan?`,
    );
  const names = new Map<string, string>();
  const stacks = plan.stacks.map((stack): MatrixStack => {
    const directions = new Map<string, MatrixDirection[]>();
    const add = (caller: string, target: string, direction: MatrixDirection): void => {
      const key = `${caller}\n${target}`;
      directions.set(key, [...(directions.get(key) ?? []), direction]);
    };
    for (const cell of planned.filter((entry) => entry.stack === stack)) {
      const found = byId.get(cell.id);
      const pairs: [string, string][] = [
        [cell.a.id, cell.b.id],
        [cell.b.id, cell.a.id],
      ];
      if (found === undefined) {
        for (const [index, [caller, target]] of pairs.entries())
          add(caller, target, {
            cell: cell.id,
            direction: DIRECTION_NAMES[index] ?? '',
            status: 'missing',
            reason: 'no folder given to --merge holds this cell',
            scenarios: [],
          });
        continue;
      }
      names.set(cell.a.id, found.record.gateways.a.name);
      names.set(cell.b.id, found.record.gateways.b.name);
      if (found.record.status === 'could-not-run') {
        for (const [index, [caller, target]] of pairs.entries())
          add(caller, target, {
            cell: cell.id,
            direction: DIRECTION_NAMES[index] ?? '',
            status: 'could-not-run',
            reason: found.record.error ?? 'the pair could not start',
            seed: found.record.seed,
            durationMs: found.record.durationMs,
            scenarios: [],
            logHref: href(pageDir, join(found.dir, CELL_LOG)),
          });
        continue;
      }
      for (const { key, direction } of ranDirections(found, pageDir)) add(key[0], key[1], direction);
    }
    const slots = plan.gateways.flatMap((caller) =>
      plan.gateways.flatMap((target): MatrixSlot[] => {
        const held = directions.get(`${caller.id}\n${target.id}`);
        if (held === undefined) return [];
        const outcome = worstOutcome(
          held.flatMap((direction) =>
            direction.status === 'ran' ? direction.scenarios.map((scenario) => scenario.outcome) : ['notRun'],
          ),
        );
        return [{ caller: caller.id, target: target.id, outcome, directions: held }];
      }),
    );
    return { stack, servers: `server A ${stack}, server B prosody`, slots };
  });
  const totals: Record<SlotOutcome, number> = { passed: 0, failed: 0, cantTell: 0, notRun: 0 };
  for (const slot of stacks.flatMap((entry) => entry.slots)) totals[slot.outcome] += 1;
  return {
    title: plan.title ?? 'XMPP Agent Gateway interop matrix',
    generatedAt,
    gateways: plan.gateways.map((gateway) => {
      const name = names.get(gateway.id);
      return name === undefined ? { id: gateway.id } : { id: gateway.id, name };
    }),
    scenarios: INTEROP_SCENARIOS.map((scenario) => ({ id: scenario.id, title: scenario.title })),
    stacks,
    passed: totals.failed + totals.cantTell + totals.notRun === 0,
    totals,
  };
}
