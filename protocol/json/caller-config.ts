/**
 * The caller-under-test config (docs/caller.md, fixtures/schemas/caller-config.schema.json):
 * what the suite hands a caller it starts (an MCP bridge) through {config}. It sits in
 * protocol/ because both sides read it: the harness checks what it writes, a caller such as
 * the reference bridge checks what it is given, and neither may import the other.
 */
import callerConfigSchema from '../../fixtures/schemas/caller-config.schema.json' with { type: 'json' };
import { JidError, normalizeBareJid, parseBareJid, parseJid } from '../jid/index.ts';
import { ConfigError, readJsonFile } from './config-file.ts';
import { configValidator, schemaViolations, type ConfigViolation } from './config-problems.ts';
import { JsonRejection } from './json-rejection.ts';
import type { JsonValue } from './json-value.ts';
import { parseStrictJson } from './strict-json.ts';

export interface CallerXmppAccount {
  /** Bare (the caller picks a resource) or full. */
  readonly jid: string;
  readonly password: string;
  readonly host: string;
  /** c2s with STARTTLS; the run's CA comes in the environment (docs/caller.md). */
  readonly port: number;
}

export interface CallerEndpoint {
  readonly jid: string;
  /** Absent: the version active when the caller starts. */
  readonly version?: string;
}

export interface CallerConfig {
  readonly xmpp: CallerXmppAccount;
  readonly endpoints: readonly CallerEndpoint[];
  /** The caller's local wait per tools/call, when the suite sets one. */
  readonly timeoutSeconds?: number;
}

const validate = configValidator(callerConfigSchema);

/** The largest config file read: a few endpoints and an account. */
const MAX_CONFIG_BYTES = 1_048_576;

function jidViolations(value: JsonValue): ConfigViolation[] {
  const config = value as { xmpp?: { jid?: unknown }; endpoints?: unknown };
  const violations: ConfigViolation[] = [];
  const check = (jid: unknown, path: string, bare: boolean): void => {
    if (typeof jid !== 'string') return;
    try {
      if (bare) parseBareJid(jid);
      else parseJid(jid);
    } catch (error) {
      if (!(error instanceof JidError)) throw error;
      violations.push({ path, message: `not a valid ${bare ? 'bare ' : ''}JID (${error.rule})` });
    }
  };
  check(config.xmpp?.jid, '/xmpp/jid', false);
  if (Array.isArray(config.endpoints)) {
    const seen = new Set<string>();
    config.endpoints.forEach((endpoint: { jid?: unknown }, index) => {
      const before = violations.length;
      check(endpoint.jid, `/endpoints/${index}/jid`, true);
      if (typeof endpoint.jid !== 'string' || violations.length > before) return;
      // Two spellings of one JID (case, width) are one endpoint: a caller would pin it twice.
      const normalized = normalizeBareJid(endpoint.jid);
      if (seen.has(normalized)) violations.push({ path: `/endpoints/${index}/jid`, message: 'listed twice' });
      seen.add(normalized);
    });
  }
  return violations;
}

/** Checks a parsed config; throws ConfigError naming every problem at its pointer. */
export function checkCallerConfig(value: JsonValue, source: string): CallerConfig {
  const violations = schemaViolations(validate, value);
  for (const violation of jidViolations(value)) {
    if (!violations.some((known) => known.path === violation.path)) violations.push(violation);
  }
  if (violations.length > 0) throw new ConfigError(source, violations);
  // The schema has vouched for the shape.
  return value as unknown as CallerConfig;
}

/** Parses and checks config text (strict JSON: duplicate member names are errors). */
export function parseCallerConfig(text: string | Uint8Array, source: string): CallerConfig {
  let value: JsonValue;
  try {
    value = parseStrictJson(text, { maxBytes: MAX_CONFIG_BYTES });
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    throw new ConfigError(source, [
      { path: '', message: `not acceptable JSON (${error.rule})`, line: error.line, column: error.column },
    ]);
  }
  return checkCallerConfig(value, source);
}

/** Reads and checks the config file at `path`. */
export function readCallerConfig(path: string): CallerConfig {
  return checkCallerConfig(readJsonFile(path, MAX_CONFIG_BYTES), path);
}
