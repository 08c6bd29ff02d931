/**
 * Reads a run's conformance.json back (for agentconf matrix and the tests): strict JSON, then
 * the committed schema, every problem at once at its JSON pointer. A file from an unknown format
 * version is refused rather than misread.
 */
import {
  configValidator,
  formatViolation,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-problems.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import conformanceSchema from '../../fixtures/schemas/conformance-report.schema.json' with { type: 'json' };
import type { ConformanceReport } from './conformance-report.ts';

export class ConformanceReportError extends Error {
  override readonly name = 'ConformanceReportError';
  constructor(
    readonly source: string,
    readonly violations: readonly ConfigViolation[],
  ) {
    super(
      [
        `${source}: ${String(violations.length)} problem(s) in the conformance report`,
        ...violations.map(formatViolation),
      ].join('\n  '),
    );
  }
}

const validateConformance = configValidator(conformanceSchema);

// A full run with many failures quotes many stanzas: well above the manifest-sized defaults.
const REPORT_LIMITS = {
  maxBytes: 256 * 1024 * 1024,
  maxStringLength: 16 * 1024 * 1024,
  maxValues: 16 * 1024 * 1024,
};

/** Schema violations of an already parsed document (empty when it is a valid report). */
export function conformanceViolations(value: JsonValue): ConfigViolation[] {
  return schemaViolations(validateConformance, value);
}

export function parseConformanceReport(text: Uint8Array | string, source: string): ConformanceReport {
  let value: JsonValue;
  try {
    value = parseStrictJson(text, REPORT_LIMITS);
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new ConformanceReportError(source, [
      { path: '', message: error.message, line: error.line, column: error.column },
    ]);
  }
  const violations = conformanceViolations(value);
  if (violations.length > 0) throw new ConformanceReportError(source, violations);
  return value as unknown as ConformanceReport;
}
