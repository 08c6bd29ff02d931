// Issue 24, Done when: `agentconf interop-matrix` over 3 gateway variants × 2 server stacks writes
// the matrix, and a test runs the CI matrix recipe's cell command and `--merge` on its outputs.
// The gateways: the reference gateway calling out (fixtures/sut/reference-gateway-caller.json), a
// permitted variant of it (IQ errors echo the request, which #errors allows) and a broken one
// (collections in UTF-16 order, which #list-agents forbids). The plan leaves the diagonal out
// (selfPairs false: 3 pairs × 2 stacks = 6 cells, about 20 s each alone) to stay near two
// minutes. Each cell runs the GitHub recipe's cell step, as written in
// examples/interop-matrix/github-actions.yml, in a folder of its own (a machine); the folders are
// gathered as download-artifact's merge-multiple gathers them, and the recipe's merge step runs.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { REPO_ROOT } from '../harness/repo-root.ts';
import { forEachLimited } from '../runner/interop-matrix/cell-pool.ts';
import { readCellRecord } from '../runner/interop-matrix/cell-record.ts';
import type { MatrixData, MatrixSlot } from '../runner/interop-matrix/matrix-model.ts';
import {
  buildGatewayVariant,
  ECHO_IN_ERRORS,
  variantPatches,
  type BuiltVariant,
} from './variants/gateway-variants.ts';

const RECIPES = join(REPO_ROOT, 'examples', 'interop-matrix');

interface Step {
  readonly name?: string;
  readonly run?: string;
}
interface Workflow {
  readonly env: Record<string, string>;
  readonly jobs: Record<string, { readonly env?: Record<string, string>; readonly steps: Step[] }>;
}

const workflow = parse(readFileSync(join(RECIPES, 'github-actions.yml'), 'utf8')) as Workflow;

function stepRun(job: string, name: string): string {
  const run = workflow.jobs[job]?.steps.find((step) => step.name === name)?.run;
  if (run === undefined) throw new Error(`github-actions.yml: job ${job} has no step "${name}" with run`);
  return run;
}

const CELL_STEP = stepRun('cell', 'agentconf interop-matrix --cell');
const MERGE_STEP = stepRun('matrix', 'agentconf interop-matrix --merge');

/** A machine: an empty job folder whose ./node_modules/.bin/agentconf is this checkout's. */
function machine(root: string, name: string): string {
  const cwd = join(root, name);
  mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'bin', 'agentconf.js'), join(cwd, 'node_modules', '.bin', 'agentconf'));
  return cwd;
}

/** A step's script as GitHub runs it (bash -eo pipefail), with the job's variables. */
function runStep(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      resolve({ code: code ?? -1, output });
    });
  });
}

describe('the interop matrix of 3 gateways × 2 stacks, cells run by the CI recipe and merged', () => {
  let root: string;
  let broken: BuiltVariant;
  let permitted: BuiltVariant;
  let cellCodes: Record<string, number>;
  let merge: { code: number; output: string };
  let matrixDir: string;
  const matrix = (): MatrixData =>
    JSON.parse(readFileSync(join(matrixDir, 'matrix.json'), 'utf8')) as MatrixData;
  const slotsWhere = (test: (slot: MatrixSlot) => boolean): MatrixSlot[] =>
    matrix().stacks.flatMap((stack) => stack.slots.filter(test));

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agentconf-interop-matrix-'));
    broken = buildGatewayVariant({
      name: 'utf16-order',
      change: 'directory, search and tool collections sorted and positioned by UTF-16 code units',
      patches: variantPatches('utf16-order'),
      base: 'reference-gateway-caller.json',
    });
    permitted = buildGatewayVariant({ ...ECHO_IN_ERRORS, base: 'reference-gateway-caller.json' });
    const plan = join(root, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({
        gateways: {
          reference: join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway-caller.json'),
          'echo-in-errors': permitted.sutFile,
          'utf16-order': broken.sutFile,
        },
        stacks: ['prosody', 'ejabberd'],
        seed: 7,
        selfPairs: false,
      }),
    );
    const env = { ...workflow.env, AGENTCONF_PLAN: plan };
    const list = await runStep(
      './node_modules/.bin/agentconf interop-matrix "$AGENTCONF_PLAN" --list',
      machine(root, 'lister'),
      env,
    );
    const cells = JSON.parse(list.output) as string[];
    cellCodes = {};
    const started = Date.now();
    // Two machines' worth at a time: one job per cell, each in its own folder.
    await forEachLimited(cells, 2, async (cell) => {
      const cellEnv = Object.fromEntries(
        Object.entries(workflow.jobs['cell']?.env ?? {}).map(([name, value]) => [
          name,
          value.replace('${{ matrix.cell }}', cell),
        ]),
      );
      const job = await runStep(CELL_STEP, machine(root, `job-${cell}`), { ...env, ...cellEnv });
      cellCodes[cell] = job.code;
      if (job.code !== 0 && job.code !== 1)
        console.info(`cell ${cell} exited ${String(job.code)}:\n${job.output}`);
    });
    const seconds = cells.map((cell) => {
      const record = readCellRecord(join(root, `job-${cell}`, 'interop-matrix', 'cells', cell));
      return `${cell} ${(record.durationMs / 1000).toFixed(1)} s`;
    });
    console.info(
      `[interop matrix] ${String(cells.length)} cells, 2 at a time: ${((Date.now() - started) / 1000).toFixed(1)} s (${seconds.join(', ')})`,
    );
    // download-artifact with merge-multiple: every job's interop-matrix/ into one.
    const merger = machine(root, 'merge');
    for (const cell of cells)
      cpSync(join(root, `job-${cell}`, 'interop-matrix'), join(merger, 'interop-matrix'), {
        recursive: true,
      });
    merge = await runStep(MERGE_STEP, merger, env);
    matrixDir = join(merger, 'interop-matrix');
    console.info(merge.output);
  }, 600_000);

  // A failed check keeps what the cells wrote (results, transcripts, logs) under reports/, where
  // CI keeps it: the temporary folder goes with the test.
  let keep = false;
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      keep = true;
    });
  });

  afterAll(() => {
    if (keep) {
      const kept = join(REPO_ROOT, 'reports', 'interop-matrix-test');
      rmSync(kept, { recursive: true, force: true });
      cpSync(root, kept, { recursive: true, filter: (source) => !source.endsWith('node_modules') });
      console.info(`[interop matrix] a check failed: the cells' results and logs are kept in ${kept}`);
    }
    broken.remove();
    permitted.remove();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs every cell to a verdict: exit 1 where the broken gateway is in the pair, 0 only where all passed', () => {
    expect(Object.keys(cellCodes).sort()).toEqual([
      'ejabberd.echo-in-errors.utf16-order',
      'ejabberd.reference.echo-in-errors',
      'ejabberd.reference.utf16-order',
      'prosody.echo-in-errors.utf16-order',
      'prosody.reference.echo-in-errors',
      'prosody.reference.utf16-order',
    ]);
    for (const [cell, code] of Object.entries(cellCodes)) {
      const [stackName, one, other] = cell.split('.');
      const pair = new Set([one, other]);
      const slots = (matrix().stacks.find((stack) => stack.stack === stackName)?.slots ?? []).filter(
        (slot) => pair.has(slot.caller) && pair.has(slot.target),
      );
      expect(slots, cell).toHaveLength(2);
      const allPassed = slots.every((slot) => slot.outcome === 'passed');
      expect(code, cell).toBe(cell.includes('utf16-order') || !allPassed ? 1 : 0);
    }
  });

  it('fails discovery wherever the broken gateway is the target, naming it, its side and the requirement', () => {
    const targeted = slotsWhere((slot) => slot.target === 'utf16-order');
    expect(targeted).toHaveLength(4);
    for (const slot of targeted) {
      expect(slot.outcome).toBe('failed');
      const discovery = slot.directions[0]?.scenarios.find((scenario) => scenario.id === 'discovery');
      expect(discovery?.outcome, JSON.stringify(slot)).toBe('failed');
      expect(discovery?.failures.map((failure) => failure.gateway)).toContain('utf16-order');
      expect(discovery?.failures.map((failure) => failure.requirement)).toContain('list-agents.octet-order');
      expect(discovery?.failures.every((failure) => failure.side.startsWith('target '))).toBe(true);
    }
  });

  it('passes every scenario where a correct or permitted gateway is the target', () => {
    const others = slotsWhere((slot) => slot.target !== 'utf16-order');
    expect(others).toHaveLength(8);
    for (const slot of others) {
      const outcomes = Object.fromEntries(
        (slot.directions[0]?.scenarios ?? []).map((scenario) => [scenario.id, scenario.outcome]),
      );
      expect(outcomes, `${slot.caller} → ${slot.target}: ${JSON.stringify(slot)}`).toEqual({
        'cancellation-input': 'passed',
        discovery: 'passed',
        events: 'passed',
        'hidden-vs-missing': 'passed',
        invocation: 'passed',
        recovery: 'passed',
        retrieval: 'passed',
      });
    }
  });

  it('writes the page, with the failure in words and links to each result, and a junit.xml, exiting 1', () => {
    const page = readFileSync(join(matrixDir, 'matrix.html'), 'utf8');
    expect(page).toMatch(/target [AB] \(utf16-order\): list-agents\.octet-order/);
    expect(page).toContain('href="cells/prosody.reference.utf16-order/A-to-B/result.json"');
    expect(page).toContain('server A ejabberd, server B prosody');
    expect(readFileSync(join(matrixDir, 'junit.xml'), 'utf8')).toMatch(
      /classname='prosody\.reference\.utf16-order' name='A-to-B discovery'>\s*<failure message='[^']*target B \(utf16-order\): list-agents\.octet-order/,
    );
    expect(merge.code, merge.output).toBe(1);
    expect(merge.output).toMatch(/0 not run\)/);
  });

  it('GitLab runs the same cell and merge commands', () => {
    const gitlab = parse(readFileSync(join(RECIPES, 'gitlab-ci.yml'), 'utf8')) as Record<
      string,
      { script?: string[] }
    >;
    expect(gitlab['interop-cell']?.script).toEqual([CELL_STEP.trim()]);
    expect(gitlab['interop-matrix']?.script).toEqual([MERGE_STEP.trim()]);
  });
});
