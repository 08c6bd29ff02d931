/**
 * The input files `federation up` and `run` share — the SUT config, the fixture world and the
 * external federation — read and checked before anything starts. Each reader prints every
 * problem of its file and returns EXIT.invalid instead of a value, so a bad file stops a run
 * with a readable message and no half-started servers.
 */
import { JsonRejection } from '../protocol/json/json-rejection.ts';
import { isJsonObject, type JsonValue } from '../protocol/json/json-value.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { ConfigError } from '../protocol/json/config-file.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import type { ExternalFederationConfig } from '../harness/federation/external-provider.ts';
import {
  formatViolation,
  parseSutConfig,
  SutConfigError,
  type SutConfig,
} from '../harness/sut/sut-config.ts';
import { EXIT, readInput, type CliIo } from './io.ts';

type Invalid = typeof EXIT.invalid;

export function readSutConfigFile(io: CliIo, path: string): SutConfig | Invalid {
  try {
    return parseSutConfig(readInput(io, path), path);
  } catch (error) {
    if (!(error instanceof SutConfigError)) throw error;
    io.err(`invalid: ${error.source}: ${String(error.violations.length)} problem(s) in the SUT config\n`);
    for (const violation of error.violations) io.err(`  ${formatViolation(violation)}\n`);
    return EXIT.invalid;
  }
}

/**
 * The world with its manifests inlined: it is copied into the gateway's run directory, where
 * manifest paths relative to the world file would name nothing.
 */
export function readWorldFile(io: CliIo, path: string): { readonly world: JsonValue } | Invalid {
  try {
    return { world: inlineWorldFile(path) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`invalid: ${error.message}\n`);
    return EXIT.invalid;
  }
}

/**
 * The external provider's config as a JSON file (see ExternalFederationConfig). Only the outline is
 * checked here; the provider itself names each wrong value when the federation starts.
 */
function externalConfig(value: JsonValue): ExternalFederationConfig {
  const servers = isJsonObject(value) ? value['servers'] : undefined;
  if (
    !isJsonObject(value) ||
    !isJsonObject(servers) ||
    !isJsonObject(servers['a']) ||
    !isJsonObject(servers['b']) ||
    !isJsonObject(value['component']) ||
    !Array.isArray(value['accounts']) ||
    typeof value['caCertPath'] !== 'string'
  ) {
    throw new TypeError(
      'an external federation config is an object with servers.a, servers.b, component, accounts and caCertPath',
    );
  }
  return value as unknown as ExternalFederationConfig;
}

export function readExternalFederationFile(io: CliIo, path: string): ExternalFederationConfig | Invalid {
  try {
    return externalConfig(parseStrictJson(readInput(io, path)));
  } catch (error) {
    if (!(error instanceof JsonRejection || error instanceof TypeError)) throw error;
    io.err(`invalid: ${path}: ${error.message}\n`);
    return EXIT.invalid;
  }
}
