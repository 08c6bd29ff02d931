/**
 * The matrix's junit.xml for CI: one <testsuite> per stack × caller × target, one <testcase> per
 * direction and scenario (classname `<stack>.<caller>.<target>`, name `<direction> <scenario>`).
 * Outcomes map as in the run's junit.xml (runner/reports/junit.ts): failed → <failure> naming
 * side, gateway and requirement; cantTell → <error> (no verdict reached); a cell that could not
 * run or was never merged → one <error> per direction, so a lost CI job is never green.
 */
import { xmlAttribute, xmlText } from '../reports/xml-text.ts';
import type { MatrixData, MatrixDirection, MatrixSlot } from './matrix-model.ts';

interface Testcase {
  readonly xml: string;
  readonly failed: boolean;
  readonly errored: boolean;
}

function testcase(classname: string, name: string, body = ''): string {
  const attributes = `classname='${xmlAttribute(classname)}' name='${xmlAttribute(name)}'`;
  return body === ''
    ? `    <testcase ${attributes}/>`
    : `    <testcase ${attributes}>\n${body}\n    </testcase>`;
}

function directionCases(classname: string, direction: MatrixDirection): Testcase[] {
  if (direction.status !== 'ran') {
    const message = `${direction.cell}: ${direction.reason ?? direction.status}`;
    return [
      {
        xml: testcase(
          classname,
          `${direction.direction} (${direction.status})`,
          `      <error message='${xmlAttribute(message)}' type='${direction.status}'/>`,
        ),
        failed: false,
        errored: true,
      },
    ];
  }
  return direction.scenarios.map((scenario) => {
    const name = `${direction.direction} ${scenario.id}`;
    const out = `      <system-out>${xmlText(`cell ${direction.cell}, seed ${String(direction.seed ?? '?')}; result: ${direction.resultHref ?? '-'}`)}</system-out>`;
    if (scenario.outcome === 'failed') {
      const named = [
        ...new Set(
          scenario.failures.map((failure) => `${failure.side} (${failure.gateway}): ${failure.requirement}`),
        ),
      ].join('; ');
      return {
        xml: testcase(
          classname,
          name,
          `      <failure message='${xmlAttribute(named === '' ? scenario.reason : named)}' type='failed'>${xmlText(scenario.reason)}</failure>\n${out}`,
        ),
        failed: true,
        errored: false,
      };
    }
    if (scenario.outcome === 'cantTell') {
      return {
        xml: testcase(
          classname,
          name,
          `      <error message='${xmlAttribute(scenario.reason)}' type='cantTell'/>\n${out}`,
        ),
        failed: false,
        errored: true,
      };
    }
    return { xml: testcase(classname, name), failed: false, errored: false };
  });
}

function suite(stack: string, slot: MatrixSlot, id: number): { xml: string; cases: Testcase[] } {
  const classname = `${stack}.${slot.caller}.${slot.target}`;
  const cases = slot.directions.flatMap((direction) => directionCases(classname, direction));
  const attributes = [
    `name='${xmlAttribute(`${stack}: ${slot.caller} calls ${slot.target}`)}'`,
    `id='${String(id)}'`,
    `tests='${String(cases.length)}'`,
    `failures='${String(cases.filter((entry) => entry.failed).length)}'`,
    `errors='${String(cases.filter((entry) => entry.errored).length)}'`,
  ].join(' ');
  return {
    xml: `  <testsuite ${attributes}>\n${cases.map((entry) => entry.xml).join('\n')}\n  </testsuite>`,
    cases,
  };
}

export function matrixJunit(data: MatrixData): string {
  const suites = data.stacks.flatMap((stack) => stack.slots.map((slot) => ({ stack: stack.stack, slot })));
  const built = suites.map(({ stack, slot }, index) => suite(stack, slot, index));
  const cases = built.flatMap((entry) => entry.cases);
  const root = [
    `<testsuites name='${xmlAttribute(data.title)}' tests='${String(cases.length)}' failures='${String(cases.filter((entry) => entry.failed).length)}' errors='${String(cases.filter((entry) => entry.errored).length)}'>`,
    ...built.map((entry) => entry.xml),
    '</testsuites>',
  ].join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}
