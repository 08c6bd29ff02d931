/**
 * Readable problems in the gateway's JSON files (the config and the fixture world): every
 * problem at once, each at the JSON pointer of what is wrong, in words a person can act on.
 * JSON Schema errors become such problems in protocol/json/config-problems.ts (shared with the
 * SUT config); semantic rules add their own.
 */
import { readFileSync } from 'node:fs';
import { formatViolation, type ConfigViolation } from './config-problems.ts';
import { JsonRejection } from './json-rejection.ts';
import type { JsonValue } from './json-value.ts';
import { parseStrictJson } from './strict-json.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    /** The file (or a label) the problems are in. */
    readonly source: string,
    readonly violations: readonly ConfigViolation[],
  ) {
    super([`${source}: ${violations.length} problem(s)`, ...violations.map(formatViolation)].join('\n  '));
  }
}

/** Reads and strictly parses a JSON file (duplicate member names are errors, as everywhere). */
export function readJsonFile(path: string, maxBytes: number): JsonValue {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new ConfigError(path, [{ path: '', message: `cannot read the file (${describeIoError(error)})` }]);
  }
  try {
    return parseStrictJson(bytes, { maxBytes, maxValues: Infinity, maxArrayElements: Infinity });
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new ConfigError(path, [
      { path: '', message: `not acceptable JSON (${error.rule})`, line: error.line, column: error.column },
    ]);
  }
}

/** Strictly parses the JSON text of a config from `source`; not JSON is a ConfigError at its position. */
export function parseConfigJson(text: Uint8Array | string, source: string): JsonValue {
  try {
    return parseStrictJson(text);
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new ConfigError(source, [
      { path: '', message: `not JSON (${error.rule})`, line: error.line, column: error.column },
    ]);
  }
}

export function describeIoError(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

export { formatViolation, pointerToken, schemaViolations, type ConfigViolation } from './config-problems.ts';
