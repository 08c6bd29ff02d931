/**
 * The fixture-world file (docs/gateway-config.md, fixtures/schemas/fixture-world.schema.json):
 * endpoints with their manifests, active versions, per-endpoint overrides and tool runtimes,
 * plus policy grants. This module reads and checks the file and resolves manifest files
 * (relative to the world file); registration/world-provisioning.ts validates the manifests and
 * loads the world into the store. The endpoint-to-runtime map is not stored: it is read from
 * the world at every start, like the rest of the gateway's configuration (#model-boundary: the
 * gateway, not the runtime, knows which endpoint a runtime serves).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import type { Grant } from '../policy/policy-rules.ts';
import type { ToolRuntime } from '../runtime/tool-runtime.ts';
import { validateFixtureWorldSchema } from '../../protocol/json/config-schemas.ts';
import {
  ConfigError,
  describeIoError,
  readJsonFile,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-file.ts';
import { grantsOf, normalizedJid } from './policy-declarations.ts';
import { MAX_WORLD_BYTES, type RawWorld } from '../../protocol/fixture-world-file.ts';

export interface WorldManifest {
  /** JSON pointer of the entry in the world file, for messages. */
  readonly path: string;
  /** The manifest file's absolute path, or 'inline'. */
  readonly origin: string;
  /** The manifest text: the file's bytes, or the inline object serialized. */
  readonly text: string | Uint8Array;
}

export interface WorldEndpoint {
  readonly path: string;
  /** Normalized endpoint bare JID. */
  readonly jid: string;
  readonly versions: readonly WorldManifest[];
  /** The declared active version; null declares the endpoint inactive. */
  readonly active: string | null;
  readonly hidden: boolean;
  readonly restrictedInvocation: boolean;
  /** The name of the tool runtime that executes the endpoint's tools; undefined: none. */
  readonly runtime: string | undefined;
}

export interface FixtureWorld {
  /** The world file (or a label for worlds built in code). */
  readonly source: string;
  readonly endpoints: readonly WorldEndpoint[];
  readonly grants: readonly Grant[];
  /** Normalized endpoint bare JID → runtime name, for the endpoints that name one. */
  readonly endpointRuntimes: ReadonlyMap<string, string>;
}

export interface WorldFileReader {
  readFile(path: string): Uint8Array;
}

const DISK: WorldFileReader = { readFile: (path) => readFileSync(path) };

export function parseFixtureWorld(
  value: JsonValue,
  options: { readonly source: string; readonly baseDir: string; readonly files?: WorldFileReader },
): FixtureWorld {
  const violations = schemaViolations(validateFixtureWorldSchema, value);
  if (violations.length > 0) throw new ConfigError(options.source, violations);
  const raw = value as unknown as RawWorld;
  const files = options.files ?? DISK;
  const seen = new Map<string, string>();
  const endpoints: WorldEndpoint[] = [];
  raw.endpoints.forEach((entry, index) => {
    const path = `/endpoints/${index}`;
    const jid = normalizedJid(entry.jid, `${path}/jid`, violations);
    if (jid !== undefined) {
      const first = seen.get(jid);
      if (first !== undefined)
        violations.push({ path: `${path}/jid`, message: `the same endpoint as ${first}` });
      seen.set(jid, path);
    }
    const versions = entry.versions.flatMap((source, i) =>
      manifestOf(source, `${path}/versions/${i}`, options.baseDir, files, violations),
    );
    endpoints.push({
      path,
      jid: jid ?? '',
      versions,
      active: entry.active ?? null,
      hidden: entry.hidden ?? false,
      restrictedInvocation: entry.restrictedInvocation ?? false,
      runtime: entry.runtime,
    });
  });
  const grants = grantsOf(raw.grants ?? [], '/grants', violations);
  if (violations.length > 0) throw new ConfigError(options.source, violations);
  const endpointRuntimes = new Map<string, string>();
  for (const endpoint of endpoints) {
    if (endpoint.runtime !== undefined) endpointRuntimes.set(endpoint.jid, endpoint.runtime);
  }
  return { source: options.source, endpoints, grants, endpointRuntimes };
}

/**
 * The runtime serving each endpoint, from the world's names and the runtimes the gateway has.
 * A name the gateway does not know is a configuration error (reported with every other such
 * endpoint), not a task failure discovered at the first invocation.
 */
export function resolveEndpointRuntimes(
  world: FixtureWorld,
  available: readonly ToolRuntime[],
): ReadonlyMap<string, ToolRuntime> {
  const byName = new Map(available.map((runtime) => [runtime.name, runtime]));
  const resolved = new Map<string, ToolRuntime>();
  const violations: ConfigViolation[] = [];
  for (const endpoint of world.endpoints) {
    if (endpoint.runtime === undefined) continue;
    const runtime = byName.get(endpoint.runtime);
    if (runtime === undefined) {
      const known = [...byName.keys()].map((name) => JSON.stringify(name)).join(', ') || 'none';
      violations.push({
        path: `${endpoint.path}/runtime`,
        message: `no tool runtime named ${JSON.stringify(endpoint.runtime)} (this gateway has: ${known})`,
      });
    } else {
      resolved.set(endpoint.jid, runtime);
    }
  }
  if (violations.length > 0) throw new ConfigError(world.source, violations);
  return resolved;
}

function manifestOf(
  source: { readonly file: string } | { readonly manifest: JsonObject },
  path: string,
  baseDir: string,
  files: WorldFileReader,
  violations: ConfigViolation[],
): WorldManifest[] {
  if ('manifest' in source) {
    // The world file was parsed strictly, so the inline object is I-JSON; its canonical text
    // goes through the same intake as any submitted manifest.
    return [{ path, origin: 'inline', text: canonicalJson(source.manifest) }];
  }
  const file = resolve(baseDir, source.file);
  try {
    return [{ path, origin: file, text: files.readFile(file) }];
  } catch (error) {
    violations.push({ path: `${path}/file`, message: `cannot read ${file} (${describeIoError(error)})` });
    return [];
  }
}

/** Reads and checks the world file at `path`; throws ConfigError listing every problem. */
export function loadFixtureWorld(path: string, files?: WorldFileReader): FixtureWorld {
  const absolute = resolve(path);
  const value = readJsonFile(absolute, MAX_WORLD_BYTES);
  return parseFixtureWorld(value, {
    source: absolute,
    baseDir: dirname(absolute),
    ...(files === undefined ? {} : { files }),
  });
}
