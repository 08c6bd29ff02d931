/**
 * What one cell leaves behind, wherever it ran: `<out>/cells/<cell ID>/` holding cell.json (this
 * record), cell.log (every line the cell printed) and, when the pair ran, one folder per
 * direction with the result.json `agentconf interop` writes. `--merge` finds cells by their
 * cell.json, so artifacts from many machines can be unpacked side by side.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ServerImplementation } from '../../harness/federation/server-provider.ts';
import type { PairSide } from '../../harness/federation/pair-side.ts';

export const CELL_RECORD = 'cell.json';
export const CELL_LOG = 'cell.log';

export interface CellGateway {
  readonly id: string;
  /** The SUT file's own name for it. */
  readonly name: string;
}

export interface CellRecord {
  readonly cell: string;
  readonly stack: ServerImplementation;
  readonly gateways: Readonly<Record<PairSide, CellGateway>>;
  readonly seed: number;
  readonly startedAt: string;
  readonly durationMs: number;
  /** ran: both directions were judged (see their result.json); could-not-run: the pair did not start. */
  readonly status: 'ran' | 'could-not-run';
  readonly error?: string;
  /** The direction folders, relative to the cell folder (A-to-B, B-to-A). */
  readonly directions: readonly string[];
}

/** The cell folder a run of `cell` writes under the output folder `out`. */
export function cellDir(out: string, cell: string): string {
  return join(out, 'cells', cell);
}

export class CellRecordError extends Error {
  override readonly name = 'CellRecordError';
}

function isRecord(value: unknown): value is CellRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['cell'] === 'string' &&
    typeof record['stack'] === 'string' &&
    (record['status'] === 'ran' || record['status'] === 'could-not-run') &&
    typeof record['gateways'] === 'object' &&
    Array.isArray(record['directions']) &&
    typeof record['seed'] === 'number' &&
    typeof record['durationMs'] === 'number'
  );
}

export function readCellRecord(dir: string): CellRecord {
  const path = join(dir, CELL_RECORD);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CellRecordError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(value)) throw new CellRecordError(`${path}: not a cell record of agentconf interop-matrix`);
  return value;
}

/**
 * The cell folders in `dir`: `dir` itself when it holds a cell.json, else every
 * `dir/cells/<ID>/` that does (an --out folder of a cell or of a whole matrix).
 */
export function findCellDirs(dir: string): string[] {
  if (existsSync(join(dir, CELL_RECORD))) return [dir];
  const cells = join(dir, 'cells');
  if (!existsSync(cells)) return [];
  return readdirSync(cells, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(cells, entry.name, CELL_RECORD)))
    .map((entry) => join(cells, entry.name))
    .sort();
}
