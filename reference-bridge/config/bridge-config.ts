/**
 * The bridge's config file (fixtures/schemas/mcp-bridge-config.schema.json, docs/mcp-bridge.md):
 * read strictly, checked by ajv with every problem at its JSON pointer, then the rules a schema
 * cannot say (JIDs by RFC 7622, one entry per endpoint) and the defaults filled in.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import bridgeConfigSchema from '../../fixtures/schemas/mcp-bridge-config.schema.json' with { type: 'json' };
import { bareJidOf, normalizeBareJid, parseJid } from '../../protocol/jid/index.ts';
import {
  ConfigError,
  readJsonFile,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-file.ts';
import { createConfigAjv } from '../../protocol/json/config-problems.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';

const MAX_CONFIG_BYTES = 1_048_576;
const DEFAULT_IQ_TIMEOUT_SECONDS = 10;
const DEFAULT_POLL_SECONDS = 5;

const validateBridgeConfigSchema: ValidateFunction = createConfigAjv().compile(bridgeConfigSchema);

export interface XmppAccountConfig {
  /** The bare JID the bridge authenticates as. */
  readonly bareJid: string;
  readonly localpart: string;
  readonly domain: string;
  /** The resource to bind; absent: the server picks one. */
  readonly resource?: string;
  readonly password: string;
  readonly host: string;
  readonly port: number;
  readonly tls: 'direct' | 'starttls';
  /** PEM text of an extra CA to trust (read from the config's `ca` file). */
  readonly ca?: string;
}

export interface EndpointConfig {
  /** Normalized bare JID. */
  readonly jid: string;
  /** The version to pin; absent: the active one when first listed. */
  readonly version?: string;
}

export interface BridgeConfig {
  readonly xmpp: XmppAccountConfig;
  readonly endpoints: readonly EndpointConfig[];
  /** Local limit of one tools/call in milliseconds; undefined: none. */
  readonly callTimeoutMs?: number;
  readonly iqTimeoutMs: number;
  readonly pollMs: number;
}

interface RawConfig {
  readonly xmpp: {
    readonly jid: string;
    readonly password: string;
    readonly host?: string;
    readonly port?: number;
    readonly tls?: 'direct' | 'starttls';
    readonly ca?: string;
  };
  readonly endpoints: readonly { readonly jid: string; readonly version?: string }[];
  readonly timeoutSeconds?: number;
  readonly iqTimeoutSeconds?: number;
  readonly pollSeconds?: number;
}

function jidViolation(path: string, check: () => void): ConfigViolation[] {
  try {
    check();
    return [];
  } catch (error) {
    return [{ path, message: `not a valid JID (${error instanceof Error ? error.message : String(error)})` }];
  }
}

function semanticViolations(raw: RawConfig): ConfigViolation[] {
  const violations = jidViolation('/xmpp/jid', () => parseJid(raw.xmpp.jid));
  if (raw.xmpp.ca !== undefined && raw.xmpp.tls === 'starttls') {
    violations.push({ path: '/xmpp/ca', message: 'a CA file needs direct TLS ("tls": "direct")' });
  }
  const seen = new Map<string, number>();
  raw.endpoints.forEach((endpoint, index) => {
    const path = `/endpoints/${String(index)}/jid`;
    const problems = jidViolation(path, () => normalizeBareJid(endpoint.jid));
    violations.push(...problems);
    if (problems.length > 0) return;
    const jid = normalizeBareJid(endpoint.jid);
    const earlier = seen.get(jid);
    if (earlier !== undefined) {
      violations.push({ path, message: `the same endpoint as /endpoints/${String(earlier)}: list it once` });
    }
    seen.set(jid, index);
  });
  return violations;
}

function readCa(path: string, configPath: string): string {
  const absolute = resolve(dirname(configPath), path);
  try {
    return readFileSync(absolute, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new ConfigError(configPath, [{ path: '/xmpp/ca', message: `cannot read ${absolute} (${code})` }]);
  }
}

/** Checks a parsed config document; `source` names it in problems and anchors a relative `ca`. */
export function bridgeConfigOf(value: JsonValue, source: string): BridgeConfig {
  const problems = schemaViolations(validateBridgeConfigSchema, value);
  if (problems.length > 0) throw new ConfigError(source, problems);
  const raw = value as unknown as RawConfig;
  const semantic = semanticViolations(raw);
  if (semantic.length > 0) throw new ConfigError(source, semantic);
  const jid = parseJid(raw.xmpp.jid);
  const tls = raw.xmpp.tls ?? 'direct';
  const domain = jid.domainpart;
  return {
    xmpp: {
      bareJid: bareJidOf(raw.xmpp.jid),
      localpart: jid.localpart ?? '',
      domain,
      ...(jid.resourcepart === undefined ? {} : { resource: jid.resourcepart }),
      password: raw.xmpp.password,
      host: raw.xmpp.host ?? domain,
      port: raw.xmpp.port ?? (tls === 'direct' ? 5223 : 5222),
      tls,
      ...(raw.xmpp.ca === undefined ? {} : { ca: readCa(raw.xmpp.ca, source) }),
    },
    endpoints: raw.endpoints.map((endpoint) => ({
      jid: normalizeBareJid(endpoint.jid),
      ...(endpoint.version === undefined ? {} : { version: endpoint.version }),
    })),
    ...(raw.timeoutSeconds === undefined ? {} : { callTimeoutMs: raw.timeoutSeconds * 1000 }),
    iqTimeoutMs: (raw.iqTimeoutSeconds ?? DEFAULT_IQ_TIMEOUT_SECONDS) * 1000,
    pollMs: (raw.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000,
  };
}

/** Reads and checks the config file; throws ConfigError listing every problem. */
export function loadBridgeConfig(path: string): BridgeConfig {
  const absolute = resolve(path);
  return bridgeConfigOf(readJsonFile(absolute, MAX_CONFIG_BYTES), absolute);
}
