/**
 * The input files `federation up` and `run` share — the SUT config, the fixture world and the
 * external federation — read and checked before anything starts, and their defaults. A file that
 * cannot be read is a UsageError; one that is invalid has every problem printed and the reader
 * returns EXIT.usage instead of a value, so a bad file stops the command with a readable message
 * and no half-started servers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '../protocol/json/json-value.ts';
import { ConfigError } from '../protocol/json/config-file.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import type { ExternalFederationConfig } from '../harness/federation/external-provider.ts';
import { parseConnectionFile } from '../harness/federation/connection-file.ts';
import {
  formatViolation,
  parseSutConfig,
  parseSutFile,
  type CallerSutConfig,
  SutConfigError,
  type SutConfig,
} from '../harness/sut/sut-config.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { checkReadableFile, EXIT, readInput, UsageError, type CliIo } from './io.ts';

type Invalid = typeof EXIT.usage;

/** The gateway `run` judges when no --sut names one. */
export const DEFAULT_SUT = join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json');
/** The fixture world of a world-file or admin-iq gateway when no --world names one. */
export const DEFAULT_WORLD = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');

/** --provider external names its servers with --external FILE; neither makes sense alone. */
export function checkExternalProvider(provider: string, externalFile: string | undefined): void {
  if ((provider === 'external') !== (externalFile !== undefined)) {
    throw new UsageError('--provider external and --external FILE go together');
  }
}

/**
 * The SUT file at `path` when it declares only a caller (an MCP bridge, docs/caller.md); anything
 * else — a gateway's file, an unreadable or invalid one — is left to readSutConfigFile to read
 * and report.
 */
export function callerOnlySut(path: string | undefined): CallerSutConfig | undefined {
  if (path === undefined) return undefined;
  try {
    const file = parseSutFile(readFileSync(path), path);
    return file.kind === 'mcp-caller' ? file.config : undefined;
  } catch {
    return undefined;
  }
}

export function readSutConfigFile(io: CliIo, path: string): SutConfig | Invalid {
  try {
    return parseSutConfig(readInput(io, path, '--sut'), path);
  } catch (error) {
    if (!(error instanceof SutConfigError)) throw error;
    io.err(`invalid: ${error.source}: ${String(error.violations.length)} problem(s) in the SUT config\n`);
    for (const violation of error.violations) io.err(`  ${formatViolation(violation)}\n`);
    return EXIT.usage;
  }
}

/**
 * The world with its manifests inlined: it is copied into the gateway's run directory, where
 * manifest paths relative to the world file would name nothing.
 */
export function readWorldFile(io: CliIo, path: string): { readonly world: JsonValue } | Invalid {
  checkReadableFile(path, '--world');
  try {
    return { world: inlineWorldFile(path) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`invalid: ${error.message}\n`);
    return EXIT.usage;
  }
}

/**
 * The external provider's config: a connection file (fixtures/schemas/federation-connection.schema.json),
 * as `federation up --connection-file` writes it or a person writes it for servers they run.
 * Every problem is printed; the provider itself names wrong values the schema cannot see.
 */
export function readExternalFederationFile(io: CliIo, path: string): ExternalFederationConfig | Invalid {
  try {
    return parseConnectionFile(readInput(io, path, '--external'), path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(
      `invalid: ${error.source}: ${String(error.violations.length)} problem(s) in the external federation file\n`,
    );
    for (const violation of error.violations) io.err(`  ${formatViolation(violation)}\n`);
    return EXIT.usage;
  }
}
