import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { ConfigError } from '../../protocol/json/config-file.ts';
import { missingPlanFiles, parsePlan, planCell, planCells, UnknownCellError } from './plan.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentconf-plan-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function problems(text: string): string[] {
  try {
    parsePlan(text, join(dir, 'plan.json'));
  } catch (error) {
    if (error instanceof ConfigError)
      return error.violations.map((violation) => `${violation.path}: ${violation.message}`);
    throw error;
  }
  return [];
}

describe('an interop plan', () => {
  it('makes one cell per unordered pair per stack, diagonal included, first gateway on server A', () => {
    const plan = parsePlan(
      JSON.stringify({
        gateways: { x: 'x.json', y: 'sub/y.json', z: 'z.json' },
        stacks: ['prosody', 'ejabberd'],
      }),
      join(dir, 'plan.json'),
    );
    const cells = planCells(plan);
    expect(cells.map((cell) => cell.id)).toEqual([
      'prosody.x.x',
      'prosody.x.y',
      'prosody.x.z',
      'prosody.y.y',
      'prosody.y.z',
      'prosody.z.z',
      'ejabberd.x.x',
      'ejabberd.x.y',
      'ejabberd.x.z',
      'ejabberd.y.y',
      'ejabberd.y.z',
      'ejabberd.z.z',
    ]);
    const cell = planCell(plan, 'ejabberd.x.y');
    expect(planCell(plan, '7')).toEqual(cells[7]);
    expect(() => planCell(plan, '12')).toThrow(/has no cell "12".*indexes 0 to 11/);
    expect(cell.stack).toBe('ejabberd');
    expect(cell.b.sutFile).toBe(join(dir, 'sub', 'y.json'));
  });

  it('leaves the diagonal out with selfPairs false, and defaults to Prosody alone', () => {
    const plan = parsePlan(
      JSON.stringify({ gateways: { x: 'x.json', y: 'y.json', z: 'z.json' }, selfPairs: false }),
      join(dir, 'plan.json'),
    );
    expect(planCells(plan).map((cell) => cell.id)).toEqual(['prosody.x.y', 'prosody.x.z', 'prosody.y.z']);
  });

  it('refuses an unknown cell, naming the form of the IDs', () => {
    const plan = parsePlan(JSON.stringify({ gateways: { x: 'x.json' } }), join(dir, 'plan.json'));
    expect(() => planCell(plan, 'prosody.x.y')).toThrow(UnknownCellError);
    expect(() => planCell(plan, 'prosody.x.y')).toThrow(/no cell "prosody\.x\.y".*prosody\.x\.x/);
  });

  it('lists every problem at its pointer, in words', () => {
    expect(
      problems(
        JSON.stringify({ gateways: { 'Not An ID': 'a.json' }, stacks: ['openfire', 'prosody'], sed: 7 }),
      ),
    ).toEqual([
      '/sed: unknown member "sed" (did you mean "seed"?); allowed here: $schema, title, gateways, stacks, seed, world, selfPairs',
      '/gateways/Not An ID: "Not An ID" is not a gateway ID: up to 40 lower-case letters and digits, hyphens between them (it names rows, columns and cells)',
      '/stacks/0: "openfire" is not one of "prosody", "ejabberd"',
    ]);
    expect(problems('{"gateways": {}}')).toEqual([
      '/gateways: names no gateway: give each as "ID": "path/to/sut.json"',
    ]);
    expect(problems(JSON.stringify({ gateways: { x: 'x.json' }, selfPairs: false }))).toEqual([
      '/selfPairs: is false with a single gateway, which leaves no pair to run: name a second gateway',
    ]);
    expect(problems('{"gateways": {"x": "a", "x": "b"}}')[0]).toMatch(/^: not JSON/);
  });

  it("names the SUT and world files that are not there, relative to the plan's folder", () => {
    writeFileSync(join(dir, 'here.json'), '{}');
    const plan = parsePlan(
      JSON.stringify({ gateways: { here: 'here.json', gone: 'gone.json' }, world: 'w.json' }),
      join(dir, 'plan.json'),
    );
    expect(missingPlanFiles(plan, planCells(plan))).toEqual([
      {
        path: '/gateways/gone',
        message: `no SUT file at ${join(dir, 'gone.json')} (paths are relative to the plan's folder)`,
      },
      {
        path: '/world',
        message: `no world file at ${join(dir, 'w.json')} (paths are relative to the plan's folder)`,
      },
    ]);
    // Only what the cells use: merging elsewhere needs none of them.
    expect(
      missingPlanFiles(
        plan,
        planCells(plan).filter((cell) => cell.id === 'prosody.here.here'),
      ),
    ).toHaveLength(1);
  });
});
