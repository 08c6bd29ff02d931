/**
 * Readable problems in the gateway's JSON files (the config and the fixture world): every
 * problem at once, each at the JSON pointer of what is wrong, in words a person can act on.
 * JSON Schema errors from ajv are turned into such problems here; semantic rules add their own.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';

export interface ConfigViolation {
  /** RFC 6901 pointer into the file ('' is the whole document). */
  readonly path: string;
  readonly message: string;
  /** For JSON syntax errors. */
  readonly line?: number;
  readonly column?: number;
}

export function formatViolation(violation: ConfigViolation): string {
  const at = violation.line === undefined ? '' : ` (line ${violation.line}, column ${violation.column ?? 0})`;
  return `${violation.path === '' ? '/' : violation.path}${at}: ${violation.message}`;
}

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

export function pointerToken(name: string | number): string {
  return String(name).replaceAll('~', '~0').replaceAll('/', '~1');
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

export function describeIoError(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

function param(error: ErrorObject, name: string): unknown {
  return (error.params as Record<string, unknown>)[name];
}

function parentSchema(error: ErrorObject): Record<string, unknown> {
  const schema: unknown = error.parentSchema;
  return typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
}

function describeType(type: unknown): string {
  return String(type)
    .split(',')
    .map((t) => (t === 'object' || t === 'array' || t === 'integer' ? `an ${t}` : `a ${t}`))
    .join(' or ');
}

function allowedMembers(error: ErrorObject): string {
  const properties = parentSchema(error)['properties'];
  return typeof properties === 'object' && properties !== null ? Object.keys(properties).join(', ') : '';
}

function violationOf(error: ErrorObject): ConfigViolation | undefined {
  const path = error.instancePath;
  const limit = param(error, 'limit');
  switch (error.keyword) {
    case 'if':
      return undefined; // The failing branch reports the actual problem.
    case 'oneOf':
    case 'anyOf': {
      const description = parentSchema(error)['description'];
      return { path, message: typeof description === 'string' ? description : `violates "${error.keyword}"` };
    }
    case 'required': {
      const member = String(param(error, 'missingProperty'));
      return { path: `${path}/${pointerToken(member)}`, message: `"${member}" is required` };
    }
    case 'additionalProperties': {
      const member = String(param(error, 'additionalProperty'));
      return {
        path: `${path}/${pointerToken(member)}`,
        message: `unknown member "${member}"; allowed here: ${allowedMembers(error)}`,
      };
    }
    case 'type':
      return { path, message: `must be ${describeType(param(error, 'type'))}` };
    case 'pattern':
      return { path, message: `must match ${String(param(error, 'pattern'))}` };
    case 'minLength':
      return {
        path,
        message: limit === 1 ? 'must not be empty' : `must have at least ${String(limit)} characters`,
      };
    case 'maxLength':
      return { path, message: `must have at most ${String(limit)} characters` };
    case 'minItems':
      return { path, message: `must have at least ${String(limit)} item(s)` };
    case 'uniqueItems':
      return {
        path: `${path}/${String(param(error, 'i'))}`,
        message: `repeats item ${String(param(error, 'j'))}`,
      };
    case 'minimum':
      return { path, message: `must be at least ${String(limit)}` };
    case 'maximum':
      return { path, message: `must be at most ${String(limit)}` };
    case 'exclusiveMinimum':
      return { path, message: `must be greater than ${String(limit)}` };
    default:
      return { path, message: error.message ?? `violates "${error.keyword}"` };
  }
}

/**
 * A failing oneOf/anyOf explains itself with its schema's description; the errors of its
 * branches (each branch's own "required …") would only confuse, so they are dropped.
 */
function coveredByComposite(error: ErrorObject, composites: readonly ErrorObject[]): boolean {
  return composites.some(
    (composite) =>
      composite !== error &&
      error.schemaPath.startsWith(`${composite.schemaPath}/`) &&
      error.instancePath.startsWith(composite.instancePath),
  );
}

/** What the JSON Schema says about `value`, as violations; duplicates dropped. */
export function schemaViolations(validate: ValidateFunction, value: JsonValue): ConfigViolation[] {
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const composites = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  const seen = new Set<string>();
  const violations: ConfigViolation[] = [];
  for (const error of errors) {
    if (coveredByComposite(error, composites)) continue;
    const violation = violationOf(error);
    if (violation === undefined) continue;
    const key = `${violation.path}\n${violation.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}
