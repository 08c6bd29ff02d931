/**
 * The fixture-world file format (docs/gateway-config.md, fixtures/schemas/fixture-world.schema.json):
 * shared by the harness, which copies a world into each run, the suites, which read the
 * endpoints they may test, and the reference gateway, which loads it (its
 * config/fixture-world.ts checks the semantic rules and resolves runtimes).
 */
import { dirname, resolve } from 'node:path';
import { validateFixtureWorldSchema } from './json/config-schemas.ts';
import { ConfigError, readJsonFile, schemaViolations } from './json/config-file.ts';
import type { JsonObject, JsonValue } from './json/json-value.ts';

/** A grant as the world file (and the gateway config) writes it. */
export interface GrantDeclaration {
  readonly domain?: string;
  readonly principal?: string;
  readonly see?: readonly string[];
  readonly invoke?: readonly (string | { readonly endpoint: string; readonly tools: readonly string[] })[];
}

/** A world lists many manifests inline; 64 MiB bounds it while leaving room for that. */
export const MAX_WORLD_BYTES = 64 * 1_048_576;

export interface RawWorld {
  readonly endpoints: readonly {
    readonly jid: string;
    readonly versions: readonly ({ readonly file: string } | { readonly manifest: JsonObject })[];
    readonly active?: string | null;
    readonly hidden?: boolean;
    readonly restrictedInvocation?: boolean;
    readonly runtime?: string;
  }[];
  readonly grants?: readonly GrantDeclaration[];
}

/**
 * The world file at `path` as a JSON value with every `{ "file" }` manifest replaced by the
 * parsed `{ "manifest" }` it names: a world that stays valid wherever it is written (the
 * harness copies the world into each run's data directory). The registered content is the
 * same: manifests are stored as their canonical bytes, whatever the source formatting.
 */
export function inlineWorldFile(path: string): JsonValue {
  const absolute = resolve(path);
  const value = readJsonFile(absolute, MAX_WORLD_BYTES);
  const violations = schemaViolations(validateFixtureWorldSchema, value);
  if (violations.length > 0) throw new ConfigError(absolute, violations);
  const raw = value as unknown as RawWorld;
  const endpoints = raw.endpoints.map((entry, index) => ({
    ...entry,
    versions: entry.versions.map((source, i) => {
      if ('manifest' in source) return source;
      const file = resolve(dirname(absolute), source.file);
      try {
        return { manifest: readJsonFile(file, MAX_WORLD_BYTES) };
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        throw new ConfigError(absolute, [
          { path: `/endpoints/${index}/versions/${i}/file`, message: error.message.replaceAll('\n  ', '; ') },
        ]);
      }
    }),
  }));
  const inlined: JsonObject = { ...(value as JsonObject), endpoints };
  return inlined;
}
