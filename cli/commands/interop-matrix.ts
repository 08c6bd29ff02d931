/**
 * agentconf interop-matrix PLAN.json: every pair of a plan's gateways on every server stack
 * (runner/interop-matrix/), one HTML matrix with JSON and JUnit beside it. Here the cells run as
 * child processes, --jobs at a time; elsewhere (CI jobs, containers) each runs with --cell ID and
 * --merge assembles their folders (docs/interop-matrix.md).
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

import { ConfigError, formatViolation } from '../../protocol/json/config-file.ts';
import { cellDir, CellRecordError, findCellDirs } from '../../runner/interop-matrix/cell-record.ts';
import { forEachLimited } from '../../runner/interop-matrix/cell-pool.ts';
import { DuplicateCellError } from '../../runner/interop-matrix/matrix-model.ts';
import {
  missingPlanFiles,
  parsePlan,
  planCell,
  planCells,
  UnknownCellError,
  type InteropPlan,
  type MatrixCell,
} from '../../runner/interop-matrix/plan.ts';
import { runCell } from '../../runner/interop-matrix/run-cell.ts';
import { MATRIX_FILES, matrixSummary, writeMatrix } from '../../runner/interop-matrix/write-matrix.ts';
import { freshSeed } from '../../suites/framework/seeded-random.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { agentconfExitCode } from '../agentconf-child.ts';
import { EXIT, readInput, UsageError, type CliIo, type ExitCode } from '../io.ts';
import type { Command } from '../main.ts';
import { parseCommandArgs, type CommandSpec } from '../options.ts';
import { DEFAULT_WORLD, readSutConfigFile, readWorldFile } from '../run-inputs.ts';
import { suiteVersion } from '../run/plan.ts';
import { SEED_OPTION } from '../run-spec.ts';

const SPEC = {
  name: 'interop-matrix',
  summary: "every pair of a plan's gateways on every server stack, as one HTML matrix with JSON and JUnit",
  usage: [
    'interop-matrix PLAN.json',
    'interop-matrix PLAN.json --cell ID',
    'interop-matrix PLAN.json --merge DIR...',
    'interop-matrix PLAN.json --list',
  ],
  options: {
    out: {
      type: 'string',
      valueName: 'DIR',
      description:
        'the matrix folder: matrix.html, matrix.json, junit.xml, and each cell in cells/<ID>/ (--cell writes only its cell)',
      defaultText: 'reports/interop-matrix under the current directory',
    },
    jobs: {
      type: 'integer',
      valueName: 'N',
      min: 1,
      max: 64,
      default: 1,
      description: 'cells run at once on this machine (each pair keeps about one core busy)',
    },
    cell: {
      type: 'string',
      valueName: 'ID',
      description:
        'run only this cell (<stack>.<gateway A>.<gateway B>, or its 0-based index in --list) into DIR/cells/<ID>/',
    },
    merge: {
      type: 'string',
      multiple: true,
      valueName: 'DIR',
      description:
        'run nothing: assemble the matrix from the cells in these folders (each a cell folder or an --out folder)',
    },
    list: {
      type: 'boolean',
      description: "print the plan's cell IDs as a JSON array (for a CI matrix) and exit",
    },
    seed: {
      ...SEED_OPTION,
      description: "every cell's seed, over the plan's",
      defaultText: "the plan's, else a fresh one, printed",
    },
  },
  example: 'interop-matrix examples/interop-matrix/plan.json --jobs 2',
  notes:
    'Exit 0 when every scenario of every slot passed; 1 when one failed, could not be decided, or its cell did not run (the matrix says which); 2 for a bad plan or arguments; 3 when a --cell pair could not start.',
} as const satisfies CommandSpec;

function count(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function readPlan(io: CliIo, path: string): InteropPlan | typeof EXIT.usage {
  try {
    return parsePlan(readInput(io, path), path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`invalid: ${error.source}: ${String(error.violations.length)} problem(s) in the interop plan\n`);
    for (const violation of error.violations) io.err(`  ${formatViolation(violation)}\n`);
    return EXIT.usage;
  }
}

/** Every SUT file the cells need, checked before anything starts: a typo must not cost a half-run event. */
function checkSuts(io: CliIo, plan: InteropPlan, cells: readonly MatrixCell[]): boolean {
  const missing = missingPlanFiles(plan, cells);
  if (missing.length > 0) {
    io.err(`invalid: ${plan.source}: ${String(missing.length)} problem(s) in the interop plan\n`);
    for (const violation of missing) io.err(`  ${formatViolation(violation)}\n`);
    return false;
  }
  const needed = new Set(cells.flatMap((cell) => [cell.a.sutFile, cell.b.sutFile]));
  let valid = true;
  for (const path of needed) {
    if (readSutConfigFile(io, path) === EXIT.usage) valid = false;
  }
  if (readWorldFile(io, plan.world ?? DEFAULT_WORLD) === EXIT.usage) valid = false;
  return valid;
}

async function runOneCell(
  io: CliIo,
  plan: InteropPlan,
  cell: MatrixCell,
  out: string,
  seed: number,
): Promise<ExitCode> {
  if (!checkSuts(io, plan, [cell])) return EXIT.usage;
  const a = readSutConfigFile(io, cell.a.sutFile);
  if (a === EXIT.usage) return a;
  const b = readSutConfigFile(io, cell.b.sutFile);
  if (b === EXIT.usage) return b;
  const world = readWorldFile(io, plan.world ?? DEFAULT_WORLD);
  if (world === EXIT.usage) return world;
  const outcome = await runCell({
    cell,
    suts: { a, b },
    referenceWorld: world.world,
    seed,
    suiteVersion: suiteVersion(),
    specRevision: committedRegistry().specVersion,
    out,
    log: (line) => {
      io.out(`${line}\n`);
    },
  });
  io.out(`\ncell ${cell.id}: ${outcome.dir}\n`);
  if (outcome.result === undefined) return EXIT.couldNotRun;
  return outcome.result.passed ? EXIT.ok : EXIT.invalid;
}

function assemble(io: CliIo, plan: InteropPlan, cellDirs: readonly string[], out: string): ExitCode {
  let data;
  try {
    data = writeMatrix(plan, cellDirs, out, new Date().toISOString());
  } catch (error) {
    if (!(error instanceof CellRecordError || error instanceof DuplicateCellError)) throw error;
    io.err(`agentconf interop-matrix: ${error.message}\n`);
    return EXIT.usage;
  }
  for (const line of matrixSummary(data)) io.out(`  ${line}\n`);
  const { passed, failed, cantTell, notRun } = data.totals;
  io.out(
    `interop-matrix: ${resolve(out, MATRIX_FILES.page)} (${String(passed)} slots passed, ${String(failed)} failed, ${String(cantTell)} could not tell, ${String(notRun)} not run)\n`,
  );
  return data.passed ? EXIT.ok : EXIT.invalid;
}

/** Each cell as `agentconf interop-matrix PLAN --cell ID`: what a CI job runs, here a child process. */
async function runAllCells(
  io: CliIo,
  planPath: string,
  cells: readonly MatrixCell[],
  out: string,
  seed: number,
  jobs: number,
): Promise<void> {
  let done = 0;
  await forEachLimited(cells, jobs, async (cell) => {
    const started = Date.now();
    // A child that dies before it writes must leave "not run", not an earlier run's record.
    rmSync(cellDir(out, cell.id), { recursive: true, force: true });
    const code = await agentconfExitCode([
      'interop-matrix',
      planPath,
      '--cell',
      cell.id,
      '--out',
      out,
      '--seed',
      String(seed),
    ]);
    done += 1;
    const word =
      code === 0
        ? 'passed'
        : code === 1
          ? 'not passed'
          : code === 3
            ? 'could not run'
            : `exit ${String(code)}`;
    io.out(
      `[${String(done)}/${String(cells.length)}] ${cell.id}: ${word} in ${((Date.now() - started) / 1000).toFixed(1)} s (${cellDir(out, cell.id)})\n`,
    );
  });
}

export const interopMatrixCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? 'name the plan (PLAN.json)'
          : `name one plan, not ${String(positionals.length)}`,
      );
    }
    const modes = [values.cell !== undefined, values.merge.length > 0, values.list].filter(Boolean).length;
    if (modes > 1) throw new UsageError('--cell, --merge and --list each make a different run: give one');
    const planPath = resolve(positionals[0] ?? '');
    const plan = readPlan(io, planPath);
    if (plan === EXIT.usage) return plan;
    const cells = planCells(plan);
    if (values.list) {
      io.out(`${JSON.stringify(cells.map((cell) => cell.id))}\n`);
      return EXIT.ok;
    }
    const out = resolve(values.out ?? 'reports/interop-matrix');
    if (values.merge.length > 0) {
      const cellDirs: string[] = [];
      for (const dir of values.merge) {
        const found = findCellDirs(resolve(dir));
        if (found.length === 0)
          throw new UsageError(`--merge ${dir}: holds no cell (no cell.json in it or in its cells/*/)`);
        cellDirs.push(...found);
      }
      return assemble(io, plan, cellDirs, out);
    }
    const seed = values.seed ?? plan.seed ?? freshSeed();
    if (values.cell !== undefined) {
      let cell: MatrixCell;
      try {
        cell = planCell(plan, values.cell);
      } catch (error) {
        if (error instanceof UnknownCellError) throw new UsageError(error.message);
        throw error;
      }
      return runOneCell(io, plan, cell, out, seed);
    }
    if (!checkSuts(io, plan, cells)) return EXIT.usage;
    io.out(
      `interop-matrix: ${count(cells.length, 'cell')} (${count(plan.gateways.length, 'gateway')} × ${count(plan.stacks.length, 'stack')}), ${String(values.jobs)} at a time; seed ${String(seed)}; results in ${out}\n`,
    );
    await runAllCells(io, planPath, cells, out, seed, values.jobs);
    return assemble(
      io,
      plan,
      cells.flatMap((cell) => findCellDirs(cellDir(out, cell.id))),
      out,
    );
  },
};
