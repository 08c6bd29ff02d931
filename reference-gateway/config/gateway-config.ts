/**
 * The gateway's one configuration file (docs/gateway-config.md): read, checked against
 * fixtures/schemas/gateway-config.schema.json and then against the rules a schema cannot
 * express (JIDs normalize, the component domain is not a C2S domain, the secret resolves).
 * Every problem is reported at once, each at its JSON pointer; the secret's value never
 * appears in a message.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import type { EndpointPolicy, Grant, LocalDefaults } from '../policy/policy-rules.ts';
import { ComponentSecret } from './component-secret.ts';
import { validateGatewayConfigSchema } from '../../protocol/json/config-schemas.ts';
import {
  ConfigError,
  describeIoError,
  readJsonFile,
  schemaViolations,
  type ConfigViolation,
} from '../../protocol/json/config-file.ts';
import { DEFAULT_LIMITS, RATE_LIMITED_OPERATIONS, type GatewayLimits } from './limits.ts';
import {
  endpointPolicyOf,
  grantsOf,
  normalizedDomain,
  normalizedJid,
  type EndpointPolicyDeclaration,
  type GrantDeclaration,
} from './policy-declarations.ts';
import { tasksConfigOf, type RawTasksConfig, type TasksConfig } from './task-settings.ts';
import { mcpEndpointsOf, type McpEndpointConfig, type RawMcpEndpoint } from './mcp-endpoints.ts';

export interface ComponentConfig {
  /** Normalized component domain: the gateway's JID and the domain of provisioned endpoints. */
  readonly domain: string;
  readonly host: string;
  readonly port: number;
  readonly secret: ComponentSecret;
}

export interface PolicyConfig {
  readonly local: LocalDefaults;
  readonly grants: readonly Grant[];
  readonly endpoints: readonly EndpointPolicy[];
}

export interface EndpointInfoConfig {
  /** request_replay_seconds of the endpoint-info form (#endpoint-info). */
  readonly requestReplaySeconds: number;
  /** cold_start_supported of the endpoint-info form, emitted as 1/0 (#endpoint-info). */
  readonly coldStartSupported: boolean;
}

export interface HealthConfig {
  readonly host: string;
  /** 0: any free port (the bound address is logged). */
  readonly port: number;
}

/** XEP-0199 inactivity pings on the component stream (#component-deployment). */
export interface KeepaliveConfig {
  readonly idleMs: number;
  readonly timeoutMs: number;
  /** The JID pinged: the XMPP server's domain (normalized). */
  readonly pingTo: string;
}

/** Reconnect backoff after the component stream is lost (#component-deployment). */
export interface ReconnectConfig {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Deadline of one attempt: TCP connect, stream open and handshake. */
  readonly attemptTimeoutMs: number;
}

export interface GatewayConfig {
  /** The file the config was read from (or a label for configs built in code). */
  readonly source: string;
  /** The gateway's disco identity name (#gateway-info). */
  readonly name: string;
  readonly component: ComponentConfig;
  /** Absolute path of the SQLite database. */
  readonly database: string;
  /** Absolute path of the fixture-world file, if any. */
  readonly world: string | undefined;
  /** Normalized C2S domains of the XMPP server. */
  readonly localDomains: readonly string[];
  /** Normalized admin bare JIDs. */
  readonly admins: readonly string[];
  readonly selfRegistration: boolean;
  readonly policy: PolicyConfig;
  readonly limits: GatewayLimits;
  readonly health: HealthConfig | undefined;
  readonly keepalive: KeepaliveConfig;
  readonly reconnect: ReconnectConfig;
  readonly endpointInfo: EndpointInfoConfig;
  /** Task retention, duration bound and purge period (task-settings.ts). */
  readonly tasks: TasksConfig;
  /** Endpoints whose tools come from MCP servers (mcp-endpoints.ts, runtime/mcp/). */
  readonly mcpEndpoints: readonly McpEndpointConfig[];
  /**
   * Normalized endpoint bare JID → the name of the tool runtime that executes its tools, for
   * endpoints provisioned over the protocol, which cannot say who runs them.
   */
  readonly runtimes: ReadonlyMap<string, string>;
  /** The conformance call-out endpoint (runtime/call-out/); undefined: off, the default. */
  readonly callOut: CallOutConfig | undefined;
  /** Human Messaging (reference-gateway/messaging/). */
  readonly messaging: MessagingConfig;
}

export interface CallOutConfig {
  /** Normalized bare JID on the component domain: the endpoint, and the identity calls leave from. */
  readonly endpoint: string;
  readonly iqTimeoutMs: number;
  readonly pollMs: number;
}

export const DEFAULT_CALL_OUT_IQ_TIMEOUT_SECONDS = 10;
export const DEFAULT_CALL_OUT_POLL_SECONDS = 5;

export interface MessagingConfig {
  /** Normalized bare JIDs of the endpoints that answer one-to-one chat. */
  readonly chatEndpoints: ReadonlySet<string>;
  /** How long the recipient's server may take to tell its block state (messaging/block-state.ts). */
  readonly blockStateTimeoutMs: number;
}

export const DEFAULT_BLOCK_STATE_TIMEOUT_SECONDS = 5;

export const DEFAULT_GATEWAY_NAME = 'agentconf reference gateway';
export const DEFAULT_REQUEST_REPLAY_SECONDS = 86_400;
export const DEFAULT_HEALTH_HOST = '127.0.0.1';
export const DEFAULT_KEEPALIVE_IDLE_SECONDS = 60;
export const DEFAULT_KEEPALIVE_TIMEOUT_SECONDS = 10;
export const DEFAULT_RECONNECT_INITIAL_SECONDS = 0.5;
export const DEFAULT_RECONNECT_MAX_SECONDS = 30;
export const DEFAULT_RECONNECT_ATTEMPT_SECONDS = 10;
/** A config is small; anything larger is not a config. */
const MAX_CONFIG_BYTES = 1_048_576;

/** The shape the schema guarantees; members absent stay absent. */
interface RawConfig {
  readonly name?: string;
  readonly component: {
    readonly domain: string;
    readonly host: string;
    readonly port: number | string;
    readonly secret?: string;
    readonly secretFile?: string;
    readonly secretEnv?: string;
  };
  readonly database: string;
  readonly world?: string;
  readonly localDomains?: readonly string[];
  readonly admins?: readonly string[];
  readonly selfRegistration?: boolean;
  readonly policy?: {
    readonly local?: Partial<LocalDefaults>;
    readonly grants?: readonly GrantDeclaration[];
    readonly endpoints?: readonly EndpointPolicyDeclaration[];
  };
  readonly limits?: Partial<Omit<GatewayLimits, 'rateLimits'>> & {
    readonly rateLimits?: Partial<GatewayLimits['rateLimits']>;
  };
  readonly health?: { readonly host?: string; readonly port: number | string };
  readonly keepalive?: {
    readonly idleSeconds?: number;
    readonly timeoutSeconds?: number;
    readonly pingTo?: string;
  };
  readonly reconnect?: {
    readonly initialDelaySeconds?: number;
    readonly maxDelaySeconds?: number;
    readonly attemptTimeoutSeconds?: number;
  };
  readonly endpointInfo?: Partial<EndpointInfoConfig>;
  readonly tasks?: RawTasksConfig;
  readonly mcpEndpoints?: readonly RawMcpEndpoint[];
  readonly runtimes?: Readonly<Record<string, string>>;
  readonly callOut?: {
    readonly endpoint: string;
    readonly iqTimeoutSeconds?: number;
    readonly pollSeconds?: number;
  };
  readonly messaging?: {
    readonly chatEndpoints?: readonly string[];
    readonly blockStateTimeoutSeconds?: number;
  };
}

export interface ConfigEnvironment {
  /** Environment variables, for `secretEnv`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads `secretFile` (tests substitute it). */
  readonly readTextFile: (path: string) => string;
}

const DEFAULT_ENVIRONMENT: ConfigEnvironment = {
  env: process.env,
  readTextFile: (path) => readFileSync(path, 'utf8'),
};

function portOf(
  value: number | string,
  path: string,
  violations: ConfigViolation[],
  lowest: 0 | 1 = 1,
): number {
  const port = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(port) || port < lowest || port > 65_535) {
    violations.push({ path, message: `must be a port number from ${String(lowest)} to 65535` });
  }
  return port;
}

const millisecondsOf = (seconds: number): number => Math.round(seconds * 1000);

function keepaliveOf(
  raw: RawConfig['keepalive'],
  domain: string,
  localDomains: readonly string[],
  violations: ConfigViolation[],
): KeepaliveConfig {
  const pingTo =
    raw?.pingTo === undefined
      ? (localDomains[0] ?? domain)
      : (normalizedDomain(raw.pingTo, '/keepalive/pingTo', violations) ?? '');
  return {
    idleMs: millisecondsOf(raw?.idleSeconds ?? DEFAULT_KEEPALIVE_IDLE_SECONDS),
    timeoutMs: millisecondsOf(raw?.timeoutSeconds ?? DEFAULT_KEEPALIVE_TIMEOUT_SECONDS),
    pingTo,
  };
}

function reconnectOf(raw: RawConfig['reconnect'], violations: ConfigViolation[]): ReconnectConfig {
  const reconnect = {
    initialMs: millisecondsOf(raw?.initialDelaySeconds ?? DEFAULT_RECONNECT_INITIAL_SECONDS),
    maxMs: millisecondsOf(raw?.maxDelaySeconds ?? DEFAULT_RECONNECT_MAX_SECONDS),
    attemptTimeoutMs: millisecondsOf(raw?.attemptTimeoutSeconds ?? DEFAULT_RECONNECT_ATTEMPT_SECONDS),
  };
  if (reconnect.maxMs < reconnect.initialMs) {
    violations.push({
      path: '/reconnect/maxDelaySeconds',
      message: 'must not be smaller than initialDelaySeconds',
    });
  }
  return reconnect;
}

function secretOf(
  raw: RawConfig['component'],
  baseDir: string,
  environment: ConfigEnvironment,
  violations: ConfigViolation[],
): ComponentSecret {
  if (raw.secret !== undefined) return new ComponentSecret(raw.secret);
  if (raw.secretFile !== undefined) {
    const path = resolve(baseDir, raw.secretFile);
    try {
      // One trailing line break is what editors and `echo` add; it is not part of the secret.
      const secret = environment.readTextFile(path).replace(/\r?\n$/, '');
      if (secret === '') violations.push({ path: '/component/secretFile', message: `${path} is empty` });
      return new ComponentSecret(secret);
    } catch (error) {
      violations.push({
        path: '/component/secretFile',
        message: `cannot read ${path} (${describeIoError(error)})`,
      });
      return new ComponentSecret('');
    }
  }
  const name = raw.secretEnv ?? '';
  const secret = environment.env[name];
  if (secret === undefined || secret === '') {
    violations.push({
      path: '/component/secretEnv',
      message: `the environment variable ${name} is not set or empty`,
    });
  }
  return new ComponentSecret(secret ?? '');
}

function normalizedList(
  texts: readonly string[],
  path: string,
  normalize: (text: string, path: string, violations: ConfigViolation[]) => string | undefined,
  violations: ConfigViolation[],
): string[] {
  const normalized: string[] = [];
  texts.forEach((text, index) => {
    const value = normalize(text, `${path}/${index}`, violations);
    if (value !== undefined && !normalized.includes(value)) normalized.push(value);
  });
  return normalized;
}

function limitsOf(raw: RawConfig['limits']): GatewayLimits {
  const rateLimits = Object.fromEntries(
    RATE_LIMITED_OPERATIONS.map((operation) => [
      operation,
      raw?.rateLimits?.[operation] ?? DEFAULT_LIMITS.rateLimits[operation],
    ]),
  ) as unknown as GatewayLimits['rateLimits'];
  return { ...DEFAULT_LIMITS, ...raw, rateLimits };
}

/** Builds the config from a parsed document; `baseDir` resolves relative paths. */
export function parseGatewayConfig(
  value: JsonValue,
  options: { readonly source: string; readonly baseDir: string; readonly environment?: ConfigEnvironment },
): GatewayConfig {
  const violations = schemaViolations(validateGatewayConfigSchema, value);
  if (violations.length > 0) throw new ConfigError(options.source, violations);
  const raw = value as unknown as RawConfig;
  const environment = options.environment ?? DEFAULT_ENVIRONMENT;
  const { baseDir } = options;

  const domain = normalizedDomain(raw.component.domain, '/component/domain', violations) ?? '';
  const component: ComponentConfig = {
    domain,
    host: raw.component.host,
    port: portOf(raw.component.port, '/component/port', violations),
    secret: secretOf(raw.component, baseDir, environment, violations),
  };
  const localDomains = normalizedList(raw.localDomains ?? [], '/localDomains', normalizedDomain, violations);
  const componentIndex = localDomains.indexOf(domain);
  if (componentIndex !== -1) {
    // Component authority must not pass for C2S authentication (#registration-flow).
    violations.push({
      path: `/localDomains/${componentIndex}`,
      message: 'the component domain hosts virtual endpoints, not C2S accounts; it cannot be a local domain',
    });
  }
  const admins = normalizedList(raw.admins ?? [], '/admins', normalizedJid, violations);
  const policy: PolicyConfig = {
    local: { see: raw.policy?.local?.see ?? false, invoke: raw.policy?.local?.invoke ?? false },
    grants: grantsOf(raw.policy?.grants ?? [], '/policy/grants', violations),
    endpoints: (raw.policy?.endpoints ?? []).flatMap(
      (entry, index) => endpointPolicyOf(entry, `/policy/endpoints/${index}`, violations) ?? [],
    ),
  };
  const health =
    raw.health === undefined
      ? undefined
      : {
          host: raw.health.host ?? DEFAULT_HEALTH_HOST,
          port: portOf(raw.health.port, '/health/port', violations, 0),
        };
  const keepalive = keepaliveOf(raw.keepalive, domain, localDomains, violations);
  const reconnect = reconnectOf(raw.reconnect, violations);
  const mcpEndpoints = mcpEndpointsOf(
    raw.mcpEndpoints ?? [],
    { componentDomain: domain, baseDir },
    violations,
  );
  const runtimes = runtimesOf(raw.runtimes ?? {}, domain, violations);
  const callOut = callOutOf(raw.callOut, domain, violations);
  const chatEndpoints = new Set<string>();
  (raw.messaging?.chatEndpoints ?? []).forEach((entry, index) => {
    const path = `/messaging/chatEndpoints/${index}`;
    const jid = normalizedJid(entry, path, violations);
    if (jid === undefined) return;
    const at = jid.lastIndexOf('@');
    if (at <= 0 || jid.slice(at + 1) !== domain) {
      violations.push({ path, message: `an endpoint of this gateway is name@${domain}` });
      return;
    }
    chatEndpoints.add(jid);
  });
  if (violations.length > 0) throw new ConfigError(options.source, violations);
  return {
    source: options.source,
    name: raw.name ?? DEFAULT_GATEWAY_NAME,
    component,
    database: resolve(baseDir, raw.database),
    world: raw.world === undefined ? undefined : resolve(baseDir, raw.world),
    localDomains,
    admins,
    selfRegistration: raw.selfRegistration ?? true,
    policy,
    limits: limitsOf(raw.limits),
    health,
    keepalive,
    reconnect,
    endpointInfo: {
      requestReplaySeconds: raw.endpointInfo?.requestReplaySeconds ?? DEFAULT_REQUEST_REPLAY_SECONDS,
      coldStartSupported: raw.endpointInfo?.coldStartSupported ?? false,
    },
    tasks: tasksConfigOf(raw.tasks),
    mcpEndpoints,
    runtimes,
    callOut,
    messaging: {
      chatEndpoints,
      blockStateTimeoutMs:
        (raw.messaging?.blockStateTimeoutSeconds ?? DEFAULT_BLOCK_STATE_TIMEOUT_SECONDS) * 1000,
    },
  };
}

/** `callOut`: off when absent; its endpoint is one of this gateway's (name@component domain). */
function callOutOf(
  raw: RawConfig['callOut'],
  componentDomain: string,
  violations: ConfigViolation[],
): CallOutConfig | undefined {
  if (raw === undefined) return undefined;
  const path = '/callOut/endpoint';
  const jid = normalizedJid(raw.endpoint, path, violations);
  if (jid === undefined) return undefined;
  const at = jid.lastIndexOf('@');
  if (at <= 0 || jid.slice(at + 1) !== componentDomain) {
    violations.push({ path, message: `an endpoint of this gateway is name@${componentDomain}` });
    return undefined;
  }
  return {
    endpoint: jid,
    iqTimeoutMs: millisecondsOf(raw.iqTimeoutSeconds ?? DEFAULT_CALL_OUT_IQ_TIMEOUT_SECONDS),
    pollMs: millisecondsOf(raw.pollSeconds ?? DEFAULT_CALL_OUT_POLL_SECONDS),
  };
}

/** `runtimes`: each key an endpoint of this gateway (name@component domain), normalized. */
function runtimesOf(
  raw: Readonly<Record<string, string>>,
  componentDomain: string,
  violations: ConfigViolation[],
): Map<string, string> {
  const runtimes = new Map<string, string>();
  for (const [key, name] of Object.entries(raw)) {
    const path = `/runtimes/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const jid = normalizedJid(key, path, violations);
    if (jid === undefined) continue;
    const at = jid.lastIndexOf('@');
    if (at <= 0 || jid.slice(at + 1) !== componentDomain) {
      violations.push({ path, message: `an endpoint of this gateway is name@${componentDomain}` });
      continue;
    }
    runtimes.set(jid, name);
  }
  return runtimes;
}

/** Reads, validates and resolves the config file at `path`; throws ConfigError listing every problem. */
export function loadGatewayConfig(path: string, environment?: ConfigEnvironment): GatewayConfig {
  const absolute = resolve(path);
  const value = readJsonFile(absolute, MAX_CONFIG_BYTES);
  return parseGatewayConfig(value, {
    source: absolute,
    baseDir: dirname(absolute),
    ...(environment === undefined ? {} : { environment }),
  });
}
