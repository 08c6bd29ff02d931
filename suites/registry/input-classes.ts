/**
 * Input classes per requirement (issue 22, item 3): input-classes.json lists, for testable MUST
 * requirements, the classes of input the spec tells apart (each bound's sides, each principal
 * kind, direction, message kind, surface, terminal path, block state, each permitted alternative)
 * and which cases exercise each. A map beside the registry rather than a field on the cases, so
 * that the classes of one requirement read as one list and a class nobody covers is visible as an
 * empty one. The loader checks the map against the registry and the suites: a class may only be
 * claimed by a case that cites the requirement (otherwise that case's verdict decides nothing
 * about it), and only testable MUST requirements have classes.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  configValidator,
  formatViolation,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import inputClassesSchema from '../../fixtures/schemas/input-classes.schema.json' with { type: 'json' };
import type { Registry } from './registry.ts';
import { textTable } from '../framework/text-table.ts';

export const INPUT_CLASSES_PATH = resolve(import.meta.dirname, 'input-classes.json');

export type ClassKind =
  | 'bound'
  | 'principal'
  | 'target'
  | 'direction'
  | 'message-kind'
  | 'surface'
  | 'terminal-path'
  | 'block-state'
  | 'alternative';

export interface InputClass {
  readonly requirement: string;
  readonly id: string;
  readonly kind: ClassKind;
  readonly summary: string;
  /** Cases that exercise the class (each cites the requirement); empty: a gap. */
  readonly cases: readonly string[];
  readonly note?: string;
}

export class InputClassesError extends Error {
  override readonly name = 'InputClassesError';
  constructor(
    readonly source: string,
    readonly violations: readonly ConfigViolation[],
  ) {
    super(
      [
        `${source}: ${String(violations.length)} problem(s) in the input classes`,
        ...violations.map(formatViolation),
      ].join('\n  '),
    );
  }
}

const validate = configValidator(inputClassesSchema);

interface RawDocument {
  readonly requirements: Record<string, { readonly classes: readonly Omit<InputClass, 'requirement'>[] }>;
}

/** What a case offers the cross-check: its ID and the requirements it cites. */
export interface CitingCase {
  readonly id: string;
  readonly requirements: readonly string[];
}

/**
 * Validates the document and checks it against the registry and the cases; returns the classes
 * in file order, or throws InputClassesError listing every problem.
 */
export function inputClassesFromJson(
  value: JsonValue,
  source: string,
  registry: Registry,
  cases: readonly CitingCase[],
): InputClass[] {
  const violations = schemaViolations(validate, value);
  if (violations.length > 0) throw new InputClassesError(source, violations);
  const raw = value as unknown as RawDocument;
  const known = new Map(registry.requirements.map((entry) => [entry.id, entry]));
  const citing = new Map(cases.map((testCase) => [testCase.id, new Set(testCase.requirements)]));
  const problems: ConfigViolation[] = [];
  const classes: InputClass[] = [];
  for (const [requirement, { classes: list }] of Object.entries(raw.requirements)) {
    const path = `/requirements/${requirement}`;
    const entry = known.get(requirement);
    if (entry === undefined) problems.push({ path, message: 'no such requirement in the registry' });
    else if (entry.level !== 'MUST' || entry.testability.kind === 'not-testable')
      problems.push({
        path,
        message: `classes are for testable MUST requirements (this is a ${entry.level}, ${entry.testability.kind})`,
      });
    const seen = new Set<string>();
    list.forEach((inputClass, index) => {
      if (seen.has(inputClass.id))
        problems.push({
          path: `${path}/classes/${String(index)}/id`,
          message: `class "${inputClass.id}" appears twice`,
        });
      seen.add(inputClass.id);
      for (const caseId of inputClass.cases) {
        const cited = citing.get(caseId);
        if (cited === undefined)
          problems.push({ path: `${path}/classes/${String(index)}/cases`, message: `no case "${caseId}"` });
        else if (!cited.has(requirement))
          problems.push({
            path: `${path}/classes/${String(index)}/cases`,
            message: `case "${caseId}" does not cite ${requirement}, so its verdict decides nothing about this class`,
          });
      }
      classes.push({ requirement, ...inputClass });
    });
  }
  if (problems.length > 0) throw new InputClassesError(source, problems);
  return classes;
}

export function loadInputClasses(
  registry: Registry,
  cases: readonly CitingCase[],
  path: string = INPUT_CLASSES_PATH,
): InputClass[] {
  let value: JsonValue;
  try {
    value = parseStrictJson(readFileSync(path));
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new InputClassesError(path, [
      { path: '', message: error.message, line: error.line, column: error.column },
    ]);
  }
  return inputClassesFromJson(value, path, registry, cases);
}

/** The classes no case exercises, and how many requirements and classes the map holds. */
export interface ClassCoverage {
  readonly classes: readonly InputClass[];
  readonly uncovered: readonly InputClass[];
  readonly requirements: number;
}

export function classCoverageOf(classes: readonly InputClass[]): ClassCoverage {
  return {
    classes,
    uncovered: classes.filter((inputClass) => inputClass.cases.length === 0),
    requirements: new Set(classes.map((inputClass) => inputClass.requirement)).size,
  };
}

/** The report section: one line per class without a case (requirement, kind, class, what it is), then totals. */
export function formatClassCoverage(report: ClassCoverage): string {
  const rows = report.uncovered.map((inputClass) => [
    inputClass.requirement,
    inputClass.kind,
    inputClass.id,
    inputClass.summary,
  ]);
  const lines = textTable(rows, '');
  const covered = report.classes.length - report.uncovered.length;
  const gaps = new Set(report.uncovered.map((inputClass) => inputClass.requirement)).size;
  lines.push(
    `${String(covered)} of ${String(report.classes.length)} input classes of ${String(report.requirements)} MUST requirements are exercised by a case citing the requirement; ` +
      `${String(report.uncovered.length)} are not, in ${String(gaps)} requirements (suites/registry/input-classes.json).`,
  );
  return `input classes without a case:\n${lines.join('\n')}\n`;
}
