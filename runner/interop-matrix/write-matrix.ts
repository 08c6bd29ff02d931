/**
 * The matrix files from cell folders: matrix.json (the data), matrix.html (the page) and
 * junit.xml, all in one folder, links relative to it. The same step ends a local run and
 * assembles cells run elsewhere (`--merge`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readCellRecord } from './cell-record.ts';
import { matrixJunit } from './matrix-junit.ts';
import { matrixModel, type MatrixData, type MatrixScenario } from './matrix-model.ts';
import { matrixPage } from './matrix-page.ts';
import type { InteropPlan } from './plan.ts';

export const MATRIX_FILES = { data: 'matrix.json', page: 'matrix.html', junit: 'junit.xml' } as const;

export function writeMatrix(
  plan: InteropPlan,
  cellDirs: readonly string[],
  out: string,
  generatedAt: string,
): MatrixData {
  const cells = cellDirs.map((dir) => ({ dir, record: readCellRecord(dir) }));
  const data = matrixModel({ plan, cells, pageDir: out, generatedAt });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, MATRIX_FILES.data), `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(join(out, MATRIX_FILES.page), matrixPage(data));
  writeFileSync(join(out, MATRIX_FILES.junit), matrixJunit(data));
  return data;
}

/** Why a scenario did not pass, in a few words: its failures' sides and requirements. */
function scenarioWhy(scenario: MatrixScenario): string {
  if (scenario.outcome !== 'failed') return `${scenario.id} ${scenario.outcome}`;
  const named = new Set(
    scenario.failures.map((failure) => `${failure.side} (${failure.gateway}) ${failure.requirement}`),
  );
  return `${scenario.id}: ${named.size === 0 ? scenario.reason : [...named].join(', ')}`;
}

/** One line per slot that did not pass: where to look first. */
export function matrixSummary(data: MatrixData): string[] {
  const lines: string[] = [];
  for (const stack of data.stacks) {
    for (const slot of stack.slots) {
      if (slot.outcome === 'passed') continue;
      const why = slot.directions.flatMap((direction) =>
        direction.status === 'ran'
          ? direction.scenarios.filter((scenario) => scenario.outcome !== 'passed').map(scenarioWhy)
          : [`${direction.direction} ${direction.status}`],
      );
      // The diagonal's two directions often say the same: once is enough.
      lines.push(
        `${stack.stack}: ${slot.caller} calls ${slot.target}: ${slot.outcome} (${[...new Set(why)].join('; ')})`,
      );
    }
  }
  return lines;
}
