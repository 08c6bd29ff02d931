/**
 * The official JSON-Schema-Test-Suite, draft 2020-12, every non-optional test. This checks the
 * evaluator and the isolation layer (registry.ts) the tool-schema compiler stands on, not the
 * version 0 registration rules: suite schemas use booleans at the root, custom meta-schemas and
 * remote references that tool registration rightly refuses. Remote documents are registered from
 * memory under http://localhost:1234/ as an explicit allowlist; nothing is served or fetched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
// The remotes include documents in other dialects; loading them is test-only.
import '@hyperjump/json-schema/draft-04';
import '@hyperjump/json-schema/draft-06';
import '@hyperjump/json-schema/draft-07';
import '@hyperjump/json-schema/draft-2019-09';
import '@hyperjump/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { JSON_SCHEMA_SUITE_DIR, sharedAvailable } from '../test-support/shared-paths.ts';
import { DIALECT_2020_12 } from './dialect.ts';
import { compileToolSchema } from './compile.ts';
import type { ExternalDocuments } from './registry.ts';
import { compileIsolated, registerExternalDocuments } from './registry.ts';

interface SuiteTest {
  readonly description: string;
  readonly data: JsonValue;
  readonly valid: boolean;
}
interface SuiteCase {
  readonly description: string;
  readonly schema: JsonObject | boolean;
  readonly tests: readonly SuiteTest[];
}

const TESTS_DIR = join(JSON_SCHEMA_SUITE_DIR, 'tests', 'draft2020-12');
const REMOTES_DIR = join(JSON_SCHEMA_SUITE_DIR, 'remotes');
const available = sharedAvailable(TESTS_DIR, 'JSON-Schema-Test-Suite draft2020-12');

/** Dialect of a remote by its folder; hyperjump has no draft 3, so that folder is not served. */
const REMOTE_DIALECTS: Readonly<Record<string, string | undefined>> = {
  'draft2020-12': DIALECT_2020_12,
  'draft2019-09': 'https://json-schema.org/draft/2019-09/schema',
  draft7: 'http://json-schema.org/draft-07/schema',
  draft6: 'http://json-schema.org/draft-06/schema',
  draft4: 'http://json-schema.org/draft-04/schema',
  v1: 'https://json-schema.org/v1',
};

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function remoteDocuments(): Map<string, [string, JsonObject | boolean]> {
  const byDialect = new Map<string, [string, JsonObject | boolean]>();
  for (const entry of readdirSync(REMOTES_DIR, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const path = relative(REMOTES_DIR, join(entry.parentPath, entry.name)).split(sep).join('/');
    const folder = path.includes('/') ? (path.split('/')[0] ?? '') : '';
    const dialect =
      folder === '' ||
      folder === 'baseUriChange' ||
      folder.startsWith('baseUriChangeFolder') ||
      folder === 'nested'
        ? DIALECT_2020_12
        : REMOTE_DIALECTS[folder];
    if (dialect === undefined) continue;
    byDialect.set(`http://localhost:1234/${path}`, [
      dialect,
      readJson(join(REMOTES_DIR, path)) as JsonObject | boolean,
    ]);
  }
  return byDialect;
}

const suite: readonly { readonly file: string; readonly cases: readonly SuiteCase[] }[] = available
  ? readdirSync(TESTS_DIR)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((file) => ({ file, cases: readJson(join(TESTS_DIR, file)) as SuiteCase[] }))
  : [];
const expectedTests = suite.reduce(
  (sum, { cases }) => sum + cases.reduce((count, suiteCase) => count + suiteCase.tests.length, 0),
  0,
);
let passed = 0;
const allowlists: ExternalDocuments[] = [];

describe.skipIf(!available)('JSON-Schema-Test-Suite draft2020-12 (non-optional)', () => {
  beforeAll(async () => {
    const byDialect = new Map<string, [string, JsonObject | boolean][]>();
    for (const [uri, [dialect, document]] of remoteDocuments()) {
      byDialect.set(dialect, [...(byDialect.get(dialect) ?? []), [uri, document]]);
    }
    for (const [dialect, documents] of byDialect) {
      allowlists.push(await registerExternalDocuments(documents, dialect));
    }
  });

  afterAll(async () => {
    for (const allowlist of allowlists) await allowlist.release();
  });

  describe('evaluator (isolated compile)', () => {
    for (const { file, cases } of suite) {
      describe(file, () => {
        cases.forEach((suiteCase, caseIndex) => {
          it(suiteCase.description, async () => {
            // compileIsolated hands back the serialized form restored, exactly what the worker runs.
            const { validator } = await compileIsolated(suiteCase.schema, {
              retrievalUri: `https://json-schema-test-suite.invalid/${file}/${caseIndex}/schema.json`,
              contextDialect: DIALECT_2020_12,
            });
            for (const test of suiteCase.tests) {
              expect(validator(test.data).valid, test.description).toBe(test.valid);
              passed += 1;
            }
          });
        });
      });
    }

    it('ran and passed every test in the files', () => {
      process.stdout.write(`JSON-Schema-Test-Suite draft2020-12: ${passed}/${expectedTests} passed\n`);
      expect(expectedTests).toBeGreaterThan(1000);
      expect(passed).toBe(expectedTests);
    });
  });

  /**
   * The same schemas through compileToolSchema (output direction, so no object-root rule): the
   * registration rules must refuse only what version 0 forbids — boolean roots and custom
   * meta-schemas — and canonicalisation and the $vocabulary handling must not change a verdict.
   * References to the suite's remotes and to the 2020-12 meta-schema (which the evaluator already
   * holds in memory) form the explicit allowlist.
   */
  describe('tool-schema compiler (registration rules on top)', () => {
    for (const { file, cases } of suite) {
      it(file, async () => {
        const externalDocuments: ExternalDocuments = {
          uris: new Set([...allowlists.flatMap((allowlist) => [...allowlist.uris]), DIALECT_2020_12]),
          release: () => Promise.resolve(),
        };
        for (const suiteCase of cases) {
          const dialect = typeof suiteCase.schema === 'object' ? suiteCase.schema['$schema'] : undefined;
          const refusal =
            typeof suiteCase.schema === 'boolean'
              ? 'not-an-object'
              : typeof dialect === 'string' && dialect !== DIALECT_2020_12
                ? 'unsupported-dialect'
                : undefined;
          const compiling = compileToolSchema(suiteCase.schema, { direction: 'output', externalDocuments });
          if (refusal !== undefined) {
            await expect(compiling, suiteCase.description).rejects.toMatchObject({ rule: refusal });
            continue;
          }
          const compiled = await compiling;
          for (const test of suiteCase.tests) {
            expect(compiled.validate(test.data).valid, `${suiteCase.description}: ${test.description}`).toBe(
              test.valid,
            );
          }
        }
      });
    }
  });
});
