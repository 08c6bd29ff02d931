/**
 * Validators of our own fixed JSON Schemas (configs, worlds, the registry, the normative manifest
 * and event schemas), compiled once per schema per machine instead of once per process. Ajv turns
 * a schema into JavaScript, and for the larger ones that is most of a process's start-up spent
 * on validation (the fixture world: 80–220 ms, measured with a 1-case run's CPU profile); the
 * runner, the gateway (started several times a run) and every spawned CLI paid it again. The
 * first compile writes Ajv's standalone code (ajv/dist/standalone) into the package's
 * node_modules/.cache/agentconf/ajv, keyed by the Ajv version, the options and the schemas'
 * text; later processes require that file (about 1 ms). Standalone code sets `errors` exactly as
 * the compiled function does (fixed-validator.test.ts compares them). The cache is an
 * optimisation only: when it cannot be read or written (a read-only install), the schema is
 * compiled as before. It sits inside node_modules so that the code's own requires of Ajv's
 * runtime helpers resolve to the installed Ajv.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Ajv2020, AnySchema, Options, ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'agentconf', 'ajv');

/**
 * Ajv's compiler, required on first use: a process whose validators are all cached (a gateway,
 * the runner) never loads it (20–30 ms of every start).
 */
export function ajv2020Class(): typeof Ajv2020 {
  return (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020;
}

type StandaloneCode = (ajv: Ajv2020, validate: ValidateFunction) => string;

function standaloneCode(ajv: Ajv2020, validate: ValidateFunction): string {
  const loaded = require('ajv/dist/standalone/index.js') as { default?: StandaloneCode } | StandaloneCode;
  // The CommonJS default export arrives as `default` or as the module itself.
  const code = typeof loaded === 'function' ? loaded : loaded.default;
  if (code === undefined) throw new Error('ajv/dist/standalone exports no function');
  return code(ajv, validate);
}

export interface FixedSchema {
  /** Ajv options; `code.source` is added for the standalone copy. */
  readonly options: Options;
  /** Schemas added first, for `$ref`s by `$id`. */
  readonly refs?: readonly AnySchema[];
  /** The schema to compile, or the URI (an added schema's `$id`, a `#/$defs/…` reference) to compile. */
  readonly root: AnySchema | string;
}

export interface FixedValidatorOptions {
  /** Where standalone copies live (tests); undefined: the package's cache; false: compile only. */
  readonly cacheDir?: string | false;
}

function keyOf(fixed: FixedSchema): string {
  return createHash('sha256')
    .update(JSON.stringify([AJV_VERSION, fixed.options, fixed.refs ?? [], fixed.root]))
    .digest('hex')
    .slice(0, 32);
}

function compile(fixed: FixedSchema): { ajv: Ajv2020; validate: ValidateFunction } {
  const Ajv = ajv2020Class();
  const ajv = new Ajv({ ...fixed.options, code: { ...fixed.options.code, source: true } });
  for (const schema of fixed.refs ?? []) ajv.addSchema(schema);
  if (typeof fixed.root !== 'string') return { ajv, validate: ajv.compile(fixed.root) };
  const validate = ajv.getSchema(fixed.root);
  if (validate === undefined) throw new Error(`no schema answers to ${fixed.root}`);
  return { ajv, validate };
}

function readCached(file: string): ValidateFunction | undefined {
  try {
    const loaded = require(file) as ValidateFunction | { default: ValidateFunction };
    return typeof loaded === 'function' ? loaded : loaded.default;
  } catch {
    return undefined;
  }
}

function writeCached(dir: string, file: string, code: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: processes starting together never require half a file.
    const partial = `${file}.${String(process.pid)}.${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 8)}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  } catch {
    // A read-only install: the next process compiles again.
  }
}

/** The validator of a fixed schema: its standalone copy when cached, else compiled (and cached). */
export function fixedValidator(fixed: FixedSchema, options: FixedValidatorOptions = {}): ValidateFunction {
  const dir = options.cacheDir ?? CACHE_DIR;
  if (dir === false || process.env['AGENTCONF_NO_SCHEMA_CACHE'] === '1') return compile(fixed).validate;
  const file = join(dir, `${keyOf(fixed)}.cjs`);
  const cached = readCached(file);
  if (cached !== undefined) return cached;
  const { ajv, validate } = compile(fixed);
  writeCached(dir, file, standaloneCode(ajv, validate));
  return validate;
}
