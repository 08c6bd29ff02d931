/**
 * An interop event's plan (fixtures/schemas/interop-plan.schema.json): the gateways under test,
 * the server stacks, and the cells they make. A cell is one unordered pair of gateways on one
 * stack, run as `agentconf interop` runs a pair: one federation, both directions (the first
 * gateway on server A, the second on server B). Both directions share the pair's start-up, so a
 * cell costs one federation, not two; the matrix places each direction in its caller's row and
 * target's column (docs/interop-matrix.md).
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

import type { ErrorObject } from 'ajv/dist/2020.js';

import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import { ConfigError, parseConfigJson } from '../../protocol/json/config-file.ts';
import {
  configValidator,
  pointerToken,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';
import planSchema from '../../fixtures/schemas/interop-plan.schema.json' with { type: 'json' };

const validatePlan = configValidator(planSchema);

export interface PlanGateway {
  /** The plan's short name for it: rows, columns and cell IDs use it. */
  readonly id: string;
  /** Absolute path of its SUT file. */
  readonly sutFile: string;
}

export interface InteropPlan {
  /** Where the plan was read from (for messages). */
  readonly source: string;
  readonly title?: string;
  readonly gateways: readonly PlanGateway[];
  readonly stacks: readonly ServerImplementation[];
  readonly seed?: number;
  /** Absolute path, when the plan names one. */
  readonly world?: string;
  readonly selfPairs: boolean;
}

export interface MatrixCell {
  /** `<stack>.<gateway A>.<gateway B>`: gateway IDs hold no dots, so it reads back unambiguously. */
  readonly id: string;
  readonly stack: ServerImplementation;
  /** The gateway on server A (the stack's implementation), then the one on server B (Prosody). */
  readonly a: PlanGateway;
  readonly b: PlanGateway;
}

/** The ID pattern said in words, at the ID's own pointer. */
function rewordGatewayId(error: ErrorObject): ConfigViolation | undefined {
  if (error.instancePath === '/gateways' && error.keyword === 'minProperties')
    return { path: '/gateways', message: 'names no gateway: give each as "ID": "path/to/sut.json"' };
  if (error.instancePath !== '/gateways' || error.propertyName === undefined) return undefined;
  if (error.keyword !== 'pattern' && error.keyword !== 'maxLength') return undefined;
  return {
    path: `/gateways/${pointerToken(error.propertyName)}`,
    message: `${JSON.stringify(error.propertyName)} is not a gateway ID: up to 40 lower-case letters and digits, hyphens between them (it names rows, columns and cells)`,
  };
}

interface RawPlan {
  readonly title?: string;
  readonly gateways: Readonly<Record<string, string>>;
  readonly stacks?: readonly ServerImplementation[];
  readonly seed?: number;
  readonly world?: string;
  readonly selfPairs?: boolean;
}

/** Parses and checks a plan; throws ConfigError listing every problem at its JSON pointer. */
export function parsePlan(text: Uint8Array | string, source: string): InteropPlan {
  const value = parseConfigJson(text, source);
  const violations = schemaViolations(validatePlan, value, rewordGatewayId);
  if (violations.length > 0) throw new ConfigError(source, violations);
  // The schema has vouched for the shape.
  const raw = value as unknown as RawPlan;
  const baseDir = dirname(resolve(source));
  const gateways = Object.entries(raw.gateways).map(([id, path]) => ({
    id,
    sutFile: resolve(baseDir, path),
  }));
  const selfPairs = raw.selfPairs ?? true;
  if (!selfPairs && gateways.length < 2) {
    throw new ConfigError(source, [
      {
        path: '/selfPairs',
        message: 'is false with a single gateway, which leaves no pair to run: name a second gateway',
      },
    ]);
  }
  return {
    source,
    ...(raw.title === undefined ? {} : { title: raw.title }),
    gateways,
    stacks: raw.stacks ?? ['prosody'],
    ...(raw.seed === undefined ? {} : { seed: raw.seed }),
    ...(raw.world === undefined ? {} : { world: resolve(baseDir, raw.world) }),
    selfPairs,
  };
}

/** Every cell of the plan: per stack, each gateway with itself (unless selfPairs is false) and with each later one. */
export function planCells(plan: InteropPlan): MatrixCell[] {
  const cells: MatrixCell[] = [];
  for (const stack of plan.stacks) {
    plan.gateways.forEach((a, index) => {
      for (const b of plan.gateways.slice(plan.selfPairs ? index : index + 1)) {
        cells.push({ id: `${stack}.${a.id}.${b.id}`, stack, a, b });
      }
    });
  }
  return cells;
}

/**
 * The files the cells would read and cannot (checked before a run, not when merging: the merging
 * machine need not hold the gateways' SUT files). Each at the plan member naming it.
 */
export function missingPlanFiles(plan: InteropPlan, cells: readonly MatrixCell[]): ConfigViolation[] {
  const used = new Set(cells.flatMap((cell) => [cell.a.id, cell.b.id]));
  const missing: ConfigViolation[] = plan.gateways
    .filter((gateway) => used.has(gateway.id) && !existsSync(gateway.sutFile))
    .map((gateway) => ({
      path: `/gateways/${pointerToken(gateway.id)}`,
      message: `no SUT file at ${gateway.sutFile} (paths are relative to the plan's folder)`,
    }));
  if (plan.world !== undefined && !existsSync(plan.world))
    missing.push({
      path: '/world',
      message: `no world file at ${plan.world} (paths are relative to the plan's folder)`,
    });
  return missing;
}

export class UnknownCellError extends Error {
  override readonly name = 'UnknownCellError';
}

/**
 * The cell with this ID, or at this 0-based index of planCells (a Kubernetes Indexed Job or a
 * CI array knows its index, not the ID): IDs always hold dots, so a plain number is an index.
 */
export function planCell(plan: InteropPlan, id: string): MatrixCell {
  const cells = planCells(plan);
  const found = /^\d+$/.test(id) ? cells[Number(id)] : cells.find((cell) => cell.id === id);
  if (found !== undefined) return found;
  const sample = cells
    .slice(0, 3)
    .map((cell) => cell.id)
    .join(', ');
  throw new UnknownCellError(
    `${plan.source} has no cell ${JSON.stringify(id)}; its ${String(cells.length)} cells (indexes 0 to ${String(cells.length - 1)}) are <stack>.<gateway A>.<gateway B> in plan order (${sample}${cells.length > 3 ? ', …' : ''}; --list prints them all)`,
  );
}
