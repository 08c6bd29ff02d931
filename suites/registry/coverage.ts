/**
 * Requirement coverage: which testable registry entries (black-box or needs-fixture) no suite
 * case cites. A requirement nobody cites is one a gateway can break without any run noticing,
 * so the list is the suite's to-do list; not-testable entries carry their reason in the
 * registry and are only counted.
 */
import type { Registry, Requirement, RequirementLevel } from './registry.ts';
import { textTable } from '../framework/text-table.ts';

export interface CoverageReport {
  /** Requirements a case could check: testability black-box or needs-fixture. */
  readonly testable: readonly Requirement[];
  /** The testable requirements no case and no whole-run check cites, in registry order. */
  readonly uncovered: readonly Requirement[];
  readonly notTestable: number;
}

/**
 * `alsoChecked`: requirements checked outside any one case's own list (the wire checks every
 * case runs, suites/framework/wire-checks.ts). IDs are plain strings: `registry` may be any
 * registry file (--registry), not only the one RequirementId is generated from.
 */
export function coverageOf(
  registry: Registry,
  cases: readonly { readonly requirements: readonly string[] }[],
  alsoChecked: readonly string[] = [],
): CoverageReport {
  const cited = new Set([...alsoChecked, ...cases.flatMap((testCase) => testCase.requirements)]);
  const testable = registry.requirements.filter((entry) => entry.testability.kind !== 'not-testable');
  return {
    testable,
    uncovered: testable.filter((entry) => !cited.has(entry.id)),
    notTestable: registry.requirements.length - testable.length,
  };
}

const STRICTNESS: Readonly<Record<RequirementLevel, number>> = { MUST: 0, SHOULD: 1, MAY: 2 };

/** The uncovered requirements at `level` or stricter (`--fail-on SHOULD` counts MUST too). */
export function uncoveredAtLeast(report: CoverageReport, level: RequirementLevel): Requirement[] {
  return report.uncovered.filter((entry) => STRICTNESS[entry.level] <= STRICTNESS[level]);
}

function testabilityText(entry: Requirement): string {
  const { testability } = entry;
  return testability.kind === 'needs-fixture'
    ? `needs-fixture (${testability.fixtures.join(', ')})`
    : testability.kind;
}

/** One line per uncovered requirement (anchor, level, testability, ID), then the totals. */
export function formatCoverage(report: CoverageReport): string {
  const rows = report.uncovered.map((entry) => [
    `#${entry.anchor}`,
    entry.level,
    testabilityText(entry),
    entry.id,
  ]);
  const lines = textTable(rows, '');
  const covered = report.testable.length - report.uncovered.length;
  const byLevel = (['MUST', 'SHOULD', 'MAY'] as const)
    .map((level) => `${String(report.uncovered.filter((entry) => entry.level === level).length)} ${level}`)
    .join(', ');
  lines.push(
    `${String(covered)} of ${String(report.testable.length)} testable requirements are cited by a case; ` +
      `${String(report.uncovered.length)} are not (${byLevel}); ${String(report.notTestable)} are not-testable.`,
  );
  return `${lines.join('\n')}\n`;
}
