/**
 * Readable problems in operator-written JSON files (the gateway config, fixture worlds, SUT
 * configs): every problem at once, each at the RFC 6901 pointer of what is wrong, in words a
 * person can act on. Unlike protocol diagnostics these may quote values and allowed names: the
 * reader is the file's author, not a remote peer.
 */
import type { Ajv2020, AnySchema, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { ajv2020Class, fixedValidator } from './fixed-validator.ts';
import { pointerToken } from './json-pointer.ts';
import type { JsonValue } from './json-value.ts';

export { pointerToken };

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

/**
 * An ajv for our own fixed schemas: strict mode catches mistakes in them (strictRequired would
 * refuse the `if`/`then: { required }` and `oneOf: [{ required }]` idioms); verbose gives each
 * error its parent schema (allowed member names, the reason a member is required).
 */
export const CONFIG_AJV_OPTIONS: Options = {
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  verbose: true,
  validateFormats: false,
};

export function createConfigAjv(): Ajv2020 {
  const Ajv = ajv2020Class();
  return new Ajv(CONFIG_AJV_OPTIONS);
}

/** The validator of one of our config schemas (`refs`: schemas it reaches by `$id`), cached per machine. */
export function configValidator(root: AnySchema, refs: readonly AnySchema[] = []): ValidateFunction {
  return fixedValidator({ options: CONFIG_AJV_OPTIONS, root, refs });
}

function param(error: ErrorObject, name: string): unknown {
  return (error.params as Record<string, unknown>)[name];
}

function parentSchema(error: ErrorObject): Record<string, unknown> {
  const schema: unknown = error.parentSchema;
  return typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
}

/** The edit distance of two short names, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest of `candidates` to `name`, when it is close enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const closest = candidates
    .map((candidate) => ({ candidate, d: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .sort((x, y) => x.d - y.d)[0];
  return closest !== undefined && closest.d <= Math.max(2, Math.floor(name.length / 3))
    ? closest.candidate
    : undefined;
}

function unknownMemberMessage(error: ErrorObject, member: string): string {
  const properties = parentSchema(error)['properties'];
  const allowed = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  const closest = closestName(member, allowed);
  const hint = closest === undefined ? '' : ` (did you mean "${closest}"?)`;
  return `unknown member "${member}"${hint}; allowed here: ${allowed.join(', ')}`;
}

function describeType(type: unknown): string {
  return String(type)
    .split(',')
    .map((t) => (t === 'object' || t === 'array' || t === 'integer' ? `an ${t}` : `a ${t}`))
    .join(' or ');
}

function violationOf(error: ErrorObject): ConfigViolation | undefined {
  const path = error.instancePath;
  // A `propertyNames` failure comes as the inner error (naming the member) plus a summary.
  if (error.keyword === 'propertyNames') return undefined;
  const { propertyName } = error;
  if (propertyName !== undefined) {
    return {
      path: `${path}/${pointerToken(propertyName)}`,
      message: `the name "${propertyName}" must match ${String(param(error, 'pattern'))}`,
    };
  }
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
      // The `then` of a conditional requirement says why; other descriptions are documentation.
      const reason = error.schemaPath.includes('/then/') ? parentSchema(error)['description'] : undefined;
      return {
        path: `${path}/${pointerToken(member)}`,
        message: `"${member}" is required${typeof reason === 'string' ? `: ${reason}` : ''}`,
      };
    }
    case 'additionalProperties': {
      const member = String(param(error, 'additionalProperty'));
      return { path: `${path}/${pointerToken(member)}`, message: unknownMemberMessage(error, member) };
    }
    case 'type':
      return { path, message: `must be ${describeType(param(error, 'type'))}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(param(error, 'allowedValue'))}` };
    case 'enum': {
      const allowed = param(error, 'allowedValues');
      const list = Array.isArray(allowed) ? allowed.map((v) => JSON.stringify(v)).join(', ') : '';
      return { path, message: `${JSON.stringify(error.data)} is not one of ${list}` };
    }
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

/**
 * What the JSON Schema says about `value`, as violations; duplicates (same place, same words)
 * dropped. `reword` lets a file type say something better for a particular error.
 */
export function schemaViolations(
  validate: ValidateFunction,
  value: JsonValue,
  reword: (error: ErrorObject) => ConfigViolation | undefined = () => undefined,
): ConfigViolation[] {
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const composites = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  const seen = new Set<string>();
  const violations: ConfigViolation[] = [];
  for (const error of errors) {
    if (coveredByComposite(error, composites)) continue;
    const violation = reword(error) ?? violationOf(error);
    if (violation === undefined) continue;
    const key = `${violation.path}\n${violation.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}
