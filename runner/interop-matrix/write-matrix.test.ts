// The matrix files from cell folders, without running a pair: cells written as `--cell` writes
// them (cell.json and each direction's result.json), assembled as `--merge` assembles them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { validateJunit } from '../reports/test-support/junit-schema.ts';
import { cellDir, findCellDirs, type CellRecord } from './cell-record.ts';
import { DuplicateCellError, type MatrixData } from './matrix-model.ts';
import { parsePlan } from './plan.ts';
import { matrixSummary, writeMatrix } from './write-matrix.ts';

const root = mkdtempSync(join(tmpdir(), 'agentconf-matrix-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const plan = parsePlan(
  JSON.stringify({ gateways: { good: 'good.json', broken: 'broken.json' }, stacks: ['prosody', 'ejabberd'] }),
  join(root, 'plan.json'),
);

type Outcome = 'passed' | 'failed' | 'cantTell';

function scenario(id: string, outcome: Outcome, failure?: { side: string; requirement: string }) {
  return {
    id,
    title: id,
    outcome,
    reason: failure === undefined ? `${id} ${outcome}` : `${failure.side}: ${failure.requirement}`,
    failures:
      failure === undefined ? [] : [{ ...failure, caseId: `${failure.requirement}.case`, message: 'no' }],
    cases: [],
  };
}

/** A cell folder as run-cell.ts leaves it; `directions` maps A-to-B / B-to-A to their scenarios. */
function writeCell(
  out: string,
  id: string,
  gateways: [string, string],
  directions: Record<string, ReturnType<typeof scenario>[]> | 'could-not-run',
): void {
  const dir = cellDir(out, id);
  mkdirSync(dir, { recursive: true });
  const names = Object.keys(directions === 'could-not-run' ? {} : directions);
  const record: CellRecord = {
    cell: id,
    stack: id.startsWith('ejabberd') ? 'ejabberd' : 'prosody',
    gateways: {
      a: { id: gateways[0], name: `${gateways[0]} gw` },
      b: { id: gateways[1], name: `${gateways[1]} gw` },
    },
    seed: 7,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 20_000,
    status: directions === 'could-not-run' ? 'could-not-run' : 'ran',
    ...(directions === 'could-not-run' ? { error: 'gateway A exited with code 1' } : {}),
    directions: names,
  };
  writeFileSync(join(dir, 'cell.json'), JSON.stringify(record));
  writeFileSync(join(dir, 'cell.log'), 'log\n');
  if (directions === 'could-not-run') return;
  for (const name of names) {
    mkdirSync(join(dir, name), { recursive: true });
    const [caller, target] = name === 'A-to-B' ? (['a', 'b'] as const) : (['b', 'a'] as const);
    writeFileSync(
      join(dir, name, 'result.json'),
      JSON.stringify({
        direction: name,
        caller: { side: caller },
        target: { side: target },
        scenarios: directions[name],
      }),
    );
  }
}

const passing = () => [scenario('discovery', 'passed'), scenario('invocation', 'passed')];

/** Cells as three machines would leave them: two CI jobs' --out folders and one cell folder. */
function threeMachines(): string[] {
  const jobA = join(root, 'job-a');
  const jobB = join(root, 'job-b');
  const jobC = join(root, 'job-c');
  writeCell(jobA, 'prosody.good.good', ['good', 'good'], { 'A-to-B': passing(), 'B-to-A': passing() });
  writeCell(jobA, 'prosody.good.broken', ['good', 'broken'], {
    'A-to-B': [
      scenario('discovery', 'failed', { side: 'target B', requirement: 'list-agents.octet-order' }),
      scenario('invocation', 'passed'),
    ],
    'B-to-A': [scenario('discovery', 'passed'), scenario('invocation', 'cantTell')],
  });
  writeCell(jobB, 'prosody.broken.broken', ['broken', 'broken'], 'could-not-run');
  writeCell(jobC, 'ejabberd.good.good', ['good', 'good'], { 'A-to-B': passing(), 'B-to-A': passing() });
  // ejabberd.good.broken and ejabberd.broken.broken: never merged (a lost job).
  return [jobA, jobB, cellDir(jobC, 'ejabberd.good.good')];
}

describe('the matrix from merged cell folders', () => {
  const out = join(root, 'matrix');
  const cellDirs = threeMachines().flatMap(findCellDirs);
  const data = writeMatrix(plan, cellDirs, out, '2026-01-01T00:00:00.000Z');
  const stored = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as MatrixData;
  const slot = (stack: string, caller: string, target: string) => {
    const found = stored.stacks
      .find((entry) => entry.stack === stack)
      ?.slots.find((entry) => entry.caller === caller && entry.target === target);
    if (found === undefined) throw new Error(`no slot ${stack} ${caller} → ${target}`);
    return found;
  };

  it('places each direction in its caller row and target column; the diagonal holds both', () => {
    expect(stored).toEqual(data);
    expect(slot('prosody', 'good', 'broken').outcome).toBe('failed');
    expect(slot('prosody', 'broken', 'good').outcome).toBe('cantTell');
    expect(slot('prosody', 'good', 'good').directions.map((direction) => direction.direction)).toEqual([
      'A-to-B',
      'B-to-A',
    ]);
    expect(slot('prosody', 'good', 'good').outcome).toBe('passed');
  });

  it('names the failing side with its gateway and requirement, and links the result and log', () => {
    const [direction] = slot('prosody', 'good', 'broken').directions;
    expect(direction?.scenarios[0]?.failures).toEqual([
      {
        side: 'target B',
        gateway: 'broken',
        requirement: 'list-agents.octet-order',
        caseId: 'list-agents.octet-order.case',
      },
    ]);
    expect(direction?.resultHref).toBe('../job-a/cells/prosody.good.broken/A-to-B/result.json');
    expect(direction?.logHref).toBe('../job-a/cells/prosody.good.broken/cell.log');
  });

  it('never passes a cell that could not run or was not merged', () => {
    expect(slot('prosody', 'broken', 'broken')).toMatchObject({
      outcome: 'notRun',
      directions: [
        { status: 'could-not-run', reason: 'gateway A exited with code 1' },
        { status: 'could-not-run' },
      ],
    });
    expect(slot('ejabberd', 'good', 'broken').directions[0]?.status).toBe('missing');
    expect(slot('ejabberd', 'broken', 'good').outcome).toBe('notRun');
    expect(stored.totals).toEqual({ passed: 2, failed: 1, cantTell: 1, notRun: 4 });
    expect(stored.passed).toBe(false);
    expect(matrixSummary(data)).toContain(
      'prosody: good calls broken: failed (discovery: target B (broken) list-agents.octet-order)',
    );
    expect(matrixSummary(data)).toContain('prosody: broken calls good: cantTell (invocation cantTell)');
  });

  it('draws one table per stack, each slot with its marks, failures and links', () => {
    const page = readFileSync(join(out, 'matrix.html'), 'utf8');
    expect(page.match(/<table>/g)).toHaveLength(2);
    expect(page).toContain('server A ejabberd, server B prosody');
    expect(page).toContain('target B (broken): list-agents.octet-order');
    expect(page).toContain('href="../job-a/cells/prosody.good.broken/A-to-B/result.json"');
    expect(page).toContain('href="../job-b/cells/prosody.broken.broken/cell.log"');
    expect(page).toContain('<span class="mark notRun">could not run</span>');
    expect(page).toContain('<span class="mark notRun">not run</span>');
  });

  it('writes a junit.xml the JUnit schema accepts, failing the failure and erroring the undecided', async () => {
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    const verdict = await validateJunit(junit);
    expect(verdict.valid, verdict.output).toBe(true);
    expect(junit).toMatch(
      /<testcase classname='prosody\.good\.broken' name='A-to-B discovery'>\s*<failure message='target B \(broken\): list-agents\.octet-order'/,
    );
    expect(junit).toMatch(/name='B-to-A invocation'>\s*<error message='invocation cantTell' type='cantTell'/);
    expect(junit).toMatch(/name='A-to-B \(missing\)'>\s*<error/);
    expect(junit).toMatch(
      /^<testsuites name='XMPP Agent Gateway interop matrix' tests='\d+' failures='1' errors='7'>/m,
    );
  });

  it('refuses a cell merged twice, and one the plan does not have', () => {
    expect(() => writeMatrix(plan, [...cellDirs, cellDirs[0] ?? ''], join(root, 'twice'), 'now')).toThrow(
      DuplicateCellError,
    );
    const stray = join(root, 'stray');
    writeCell(stray, 'prosody.good.other', ['good', 'other'], 'could-not-run');
    expect(() => writeMatrix(plan, findCellDirs(stray), join(root, 'stray-out'), 'now')).toThrow(
      /has no cell prosody\.good\.other/,
    );
  });
});
