import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import eventSchema from '../../fixtures/schemas/event.schema.json' with { type: 'json' };
import fixtureWorldSchema from '../../fixtures/schemas/fixture-world.schema.json' with { type: 'json' };
import gatewayConfigSchema from '../../fixtures/schemas/gateway-config.schema.json' with { type: 'json' };
import { CONFIG_AJV_OPTIONS } from './config-problems.ts';
import { fixedValidator, type FixedSchema } from './fixed-validator.ts';

// Inside node_modules, as the real cache is: the standalone code requires Ajv's runtime helpers.
const CACHE_PARENT = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
const made: string[] = [];

function cacheDir(): string {
  const dir = mkdtempSync(join(CACHE_PARENT, 'fixed-validator-test-'));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WORLD: FixedSchema = {
  options: CONFIG_AJV_OPTIONS,
  root: fixtureWorldSchema,
  refs: [gatewayConfigSchema],
};
const PROGRESS: FixedSchema = {
  options: { allErrors: true, strict: true, strictNumbers: true, validateFormats: false },
  refs: [eventSchema],
  root: `${eventSchema.$id}#/$defs/progress`,
};

const BAD_WORLDS: unknown[] = [
  {},
  { endpoints: [{ jid: 3 }] },
  { endpoints: [], extra: 1 },
  { endpoints: [{ jid: 'a@b', manifests: 'x', grants: [{ foo: 1 }] }] },
];

function outcomes(validate: ReturnType<typeof fixedValidator>, values: readonly unknown[]): string[] {
  return values.map((value) => `${String(validate(value))} ${JSON.stringify(validate.errors)}`);
}

describe('fixedValidator', () => {
  it('caches standalone code whose verdicts and errors (verbose ones too) equal the compiled function’s', () => {
    const dir = cacheDir();
    const compiled = fixedValidator(WORLD, { cacheDir: false });
    const first = fixedValidator(WORLD, { cacheDir: dir });
    expect(readdirSync(dir).filter((name) => name.endsWith('.cjs'))).toHaveLength(1);
    const cached = fixedValidator(WORLD, { cacheDir: dir });
    expect(cached).not.toBe(first);
    expect(outcomes(cached, BAD_WORLDS)).toEqual(outcomes(compiled, BAD_WORLDS));
    expect(outcomes(cached, BAD_WORLDS).every((line) => line.startsWith('false '))).toBe(true);
  });

  it('compiles a definition by URI reference, cached the same way', () => {
    const dir = cacheDir();
    const values = [{ percent: 50 }, { percent: 'half' }, { message: 7, extra: true }];
    fixedValidator(PROGRESS, { cacheDir: dir });
    const cached = fixedValidator(PROGRESS, { cacheDir: dir });
    expect(outcomes(cached, values)).toEqual(outcomes(fixedValidator(PROGRESS, { cacheDir: false }), values));
  });

  it('keys by options and schemas: another option is another file', () => {
    const dir = cacheDir();
    fixedValidator(WORLD, { cacheDir: dir });
    fixedValidator({ ...WORLD, options: { ...CONFIG_AJV_OPTIONS, verbose: false } }, { cacheDir: dir });
    expect(readdirSync(dir).filter((name) => name.endsWith('.cjs'))).toHaveLength(2);
  });

  it('recompiles over a broken cached file, and compiles where the cache cannot be written', () => {
    const dir = cacheDir();
    fixedValidator(WORLD, { cacheDir: dir });
    const [file] = readdirSync(dir).filter((name) => name.endsWith('.cjs'));
    if (file === undefined) throw new Error('nothing cached');
    writeFileSync(join(dir, file), 'this is not JavaScript (');
    expect(outcomes(fixedValidator(WORLD, { cacheDir: dir }), BAD_WORLDS)).toEqual(
      outcomes(fixedValidator(WORLD, { cacheDir: false }), BAD_WORLDS),
    );
    // A path under a plain file cannot be created, even by root: the cache cannot be written.
    const plainFile = join(cacheDir(), 'not-a-folder');
    writeFileSync(plainFile, '');
    const inReadOnly = join(plainFile, 'cache');
    expect(outcomes(fixedValidator(WORLD, { cacheDir: inReadOnly }), BAD_WORLDS)).toEqual(
      outcomes(fixedValidator(WORLD, { cacheDir: false }), BAD_WORLDS),
    );
  });
});
