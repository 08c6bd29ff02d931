// agentconf interop-matrix without a pair that gets far: the plan's checks, --list, and a whole
// local run (--jobs, one child process per cell, then the merge) whose gateway A exits at once,
// so every cell is "could not run" within seconds. Pairs that run: integration/interop-matrix.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { REPO_ROOT } from '../../harness/repo-root.ts';
import type { MatrixData } from '../../runner/interop-matrix/matrix-model.ts';
import { runCli } from '../test-support/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentconf-interop-matrix-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writePlan(name: string, plan: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(plan));
  return path;
}

/** The reference gateway's SUT file with a launch that exits 1 before it connects. */
function deadGateway(): string {
  const sut = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
  ) as {
    name: string;
    launch: { command: string[]; cwd?: string };
  };
  sut.name = 'exits at once';
  sut.launch.command = ['node', '-e', 'process.exit(1)'];
  delete sut.launch.cwd;
  const path = join(dir, 'dead.json');
  writeFileSync(path, JSON.stringify(sut));
  return path;
}

describe('agentconf interop-matrix (arguments and plan)', () => {
  it('lists the sample plan’s cells as a JSON array, for a CI matrix', async () => {
    const result = await runCli([
      'interop-matrix',
      join(REPO_ROOT, 'examples', 'interop-matrix', 'plan.json'),
      '--list',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      'prosody.reference-caller.reference-caller',
      'prosody.reference-caller.reference',
      'prosody.reference.reference',
      'ejabberd.reference-caller.reference-caller',
      'ejabberd.reference-caller.reference',
      'ejabberd.reference.reference',
    ]);
  });

  it("the recipes' fixed cell lists are the sample plan's", async () => {
    const recipes = join(REPO_ROOT, 'examples', 'interop-matrix');
    const listed = await runCli(['interop-matrix', join(recipes, 'plan.json'), '--list']);
    const cells = JSON.parse(listed.stdout) as string[];
    const gitlab = parse(readFileSync(join(recipes, 'gitlab-ci.yml'), 'utf8')) as {
      'interop-cell': { parallel: { matrix: { AGENTCONF_CELL: string[] }[] } };
    };
    expect(gitlab['interop-cell'].parallel.matrix[0]?.AGENTCONF_CELL).toEqual(cells);
    const [cellJob] = readFileSync(join(recipes, 'kubernetes-jobs.yaml'), 'utf8')
      .split(/^---$/m)
      .map((document) => parse(document) as { spec: { completions?: number } });
    expect(cellJob?.spec.completions).toBe(cells.length);
  });

  it('refuses a bad plan with every problem at its pointer, before starting anything', async () => {
    const plan = writePlan('bad.json', { gateways: { x: 'nowhere.json' }, stacks: ['prosody', 'prosody'] });
    const result = await runCli(['interop-matrix', plan]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('1 problem(s) in the interop plan\n  /stacks/1: repeats item 0\n');
    const missing = await runCli([
      'interop-matrix',
      writePlan('missing.json', { gateways: { x: 'nowhere.json' } }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`/gateways/x: no SUT file at ${join(dir, 'nowhere.json')}`);
  });

  it('takes one mode at a time, a known cell, and merge folders that hold cells', async () => {
    const plan = writePlan('one.json', { gateways: { x: 'x.json' } });
    const both = await runCli(['interop-matrix', plan, '--cell', 'prosody.x.x', '--merge', dir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--cell, --merge and --list each make a different run/);
    const unknown = await runCli(['interop-matrix', plan, '--cell', 'ejabberd.x.x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/has no cell "ejabberd\.x\.x".*prosody\.x\.x/);
    mkdirSync(join(dir, 'empty'));
    const empty = await runCli(['interop-matrix', plan, '--merge', join(dir, 'empty')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/holds no cell/);
  });
});

describe('agentconf interop-matrix, a local run whose gateway cannot start', () => {
  it('runs each cell as a child, --jobs at a time, and marks every slot not run, never passed', async () => {
    const plan = writePlan('dead-plan.json', {
      gateways: { dead: deadGateway(), ref: join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json') },
      stacks: ['prosody', 'ejabberd'],
      selfPairs: false,
      seed: 3,
    });
    const out = join(dir, 'out');
    const result = await runCli(['interop-matrix', plan, '--jobs', '2', '--out', out]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/2 cells \(2 gateways × 2 stacks\), 2 at a time; seed 3/);
    expect(result.stdout).toMatch(/\[\d\/2\] ejabberd\.dead\.ref: could not run/);
    const data = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as MatrixData;
    expect(data.totals).toEqual({ passed: 0, failed: 0, cantTell: 0, notRun: 4 });
    for (const slot of data.stacks.flatMap((stack) => stack.slots)) {
      expect(slot.directions[0]?.status).toBe('could-not-run');
      expect(slot.directions[0]?.reason).toMatch(/exits at once exited/);
    }
    expect(readFileSync(join(out, 'cells', 'prosody.dead.ref', 'cell.log'), 'utf8')).toMatch(
      /seed 3\n.*servers up/,
    );
    expect(existsSync(join(out, 'matrix.html'))).toBe(true);
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(/errors='4'/);

    // The same cells merged elsewhere: the links follow the page.
    const merged = await runCli(['interop-matrix', plan, '--merge', out, '--out', join(dir, 'merged')]);
    expect(merged.code).toBe(1);
    const again = JSON.parse(readFileSync(join(dir, 'merged', 'matrix.json'), 'utf8')) as MatrixData;
    expect(again.stacks[0]?.slots[0]?.directions[0]?.logHref).toBe('../out/cells/prosody.dead.ref/cell.log');
  }, 120_000);
});
