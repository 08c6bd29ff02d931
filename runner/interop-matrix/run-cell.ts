/**
 * One cell of the matrix: the pair run of `agentconf interop` (runner/interop/run-interop.ts) for
 * the cell's two gateways on its stack, written into the cell's folder with its record and log.
 * The same code runs a cell on this machine (`interop-matrix PLAN`, one child process per cell)
 * and on any other (`interop-matrix PLAN --cell ID`, a CI job): the folder is the whole hand-over.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { PairSide } from '../../harness/federation/pair-side.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { directionTable, runInterop, type InteropResult } from '../interop/run-interop.ts';
import { silentProgress } from '../terminal-report.ts';
import { CELL_LOG, CELL_RECORD, cellDir, type CellRecord } from './cell-record.ts';
import type { MatrixCell } from './plan.ts';

export interface RunCellOptions {
  readonly cell: MatrixCell;
  readonly suts: Readonly<Record<PairSide, SutConfig>>;
  readonly referenceWorld: JsonValue;
  readonly seed: number;
  readonly suiteVersion: string;
  readonly specRevision: string;
  /** The matrix output folder; the cell writes `<out>/cells/<cell ID>/` and nothing else. */
  readonly out: string;
  /** Each line as it is logged (the cell also keeps them in cell.log). */
  readonly log: (line: string) => void;
  /** Injected so a record is reproducible in tests. */
  readonly now?: () => number;
}

export interface CellOutcome {
  readonly record: CellRecord;
  readonly dir: string;
  /** Absent when the pair could not start. */
  readonly result?: InteropResult;
}

export async function runCell(options: RunCellOptions): Promise<CellOutcome> {
  const { cell } = options;
  const now = options.now ?? Date.now;
  const dir = cellDir(options.out, cell.id);
  // A rerun of the cell replaces it: a stale direction must not survive beside a new record.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = now();
  // The log's time stamps show where a cell's time goes (start-up, each direction).
  const log = (line: string): void => {
    const stamp = `[${((now() - started) / 1000).toFixed(1).padStart(6)} s] `;
    appendFileSync(
      join(dir, CELL_LOG),
      `${stamp}${line.replaceAll('\n', `\n${' '.repeat(stamp.length)}`)}\n`,
    );
    options.log(line);
  };
  log(
    `cell ${cell.id}: ${cell.a.id} (${options.suts.a.name}) on server A ${cell.stack}, ${cell.b.id} (${options.suts.b.name}) on server B prosody; seed ${String(options.seed)}`,
  );
  let result: InteropResult | undefined;
  let error: string | undefined;
  try {
    result = await runInterop({
      suts: options.suts,
      referenceWorld: options.referenceWorld,
      serverA: cell.stack,
      seed: options.seed,
      suiteVersion: options.suiteVersion,
      specRevision: options.specRevision,
      out: dir,
      log,
      progress: silentProgress,
    });
    for (const direction of result.directions) log(`\n${directionTable(direction)}`);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
    log(`cell ${cell.id}: the pair could not run: ${error}`);
  }
  const record: CellRecord = {
    cell: cell.id,
    stack: cell.stack,
    gateways: {
      a: { id: cell.a.id, name: options.suts.a.name },
      b: { id: cell.b.id, name: options.suts.b.name },
    },
    seed: options.seed,
    startedAt: new Date(started).toISOString(),
    durationMs: now() - started,
    status: result === undefined ? 'could-not-run' : 'ran',
    ...(error === undefined ? {} : { error }),
    directions: result === undefined ? [] : result.directions.map((direction) => direction.direction),
  };
  writeFileSync(join(dir, CELL_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  return { record, dir, ...(result === undefined ? {} : { result }) };
}
