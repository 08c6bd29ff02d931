/**
 * Starting the config's MCP-hosted endpoints (docs/gateway-config.md, "MCP-hosted endpoints"):
 * for each, the server is started or connected to, its tools listed and the manifest generated
 * (mcp-manifest.ts); the endpoints then join the fixture world, so the same intake, immutability
 * and activation rules apply as for any world endpoint, and each is executed by its own `mcp`
 * runtime. Every problem of every endpoint is collected before the start fails; nothing stays
 * running behind a failed start.
 *
 * An endpoint the world lists too keeps the world's versions, active version and overrides;
 * one of its versions must be the generated manifest, byte for byte (a conformance run lists
 * the manifest its suites expect), and the MCP server runs its tools whatever runtime the world
 * names.
 */
import { ConfigError, type ConfigViolation } from '../../../protocol/json/config-file.ts';
import { canonicalJson, canonicallyEqual } from '../../../protocol/json/canonical.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import type { FixtureWorld, WorldEndpoint } from '../../config/fixture-world.ts';
import type { McpEndpointConfig } from '../../config/mcp-endpoints.ts';
import { manifestFromTools } from './mcp-manifest.ts';
import { McpRuntime } from './mcp-runtime.ts';
import { McpSessionPool } from './mcp-session-pool.ts';
import type { TransportFactory } from './mcp-session.ts';

export interface HostedMcpEndpoint {
  readonly config: McpEndpointConfig;
  readonly manifest: JsonObject;
  readonly runtime: McpRuntime;
  /** Semantic loss to report (#mcp-mapping). */
  readonly losses: readonly string[];
  /** Whether the server speaks the task-bridge extension. */
  readonly bridge: boolean;
}

/** The MCP-hosted endpoints cannot start: the config's problems, each at its pointer. */
export class McpHostingError extends ConfigError {}

export interface HostingOptions {
  /** The config file, for messages. */
  readonly source: string;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Tests connect in memory. */
  readonly transport?: TransportFactory;
  readonly log?: (line: string) => void;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function hostOne(
  config: McpEndpointConfig,
  options: HostingOptions,
): Promise<HostedMcpEndpoint | ConfigViolation[]> {
  let opened;
  try {
    opened = await McpSessionPool.open(config.server, {
      clientInfo: options.clientInfo,
      timeoutMs: config.startupMs,
      ...(options.transport === undefined ? {} : { transport: options.transport }),
    });
  } catch (error) {
    return [
      { path: `${config.path}/server`, message: `cannot start or reach the MCP server (${reasonOf(error)})` },
    ];
  }
  const { pool, first } = opened;
  try {
    const tools = await first.listTools();
    const generated = manifestFromTools(config, {
      serverInfo: first.client.getServerVersion(),
      protocolVersion: first.protocolVersion,
      tools,
    });
    if (generated.manifest === undefined) {
      await pool.close();
      return [...generated.problems];
    }
    return {
      config,
      manifest: generated.manifest,
      runtime: new McpRuntime({ pool, ...(options.log === undefined ? {} : { log: options.log }) }),
      losses: generated.losses,
      bridge: first.bridge,
    };
  } catch (error) {
    await pool.close();
    return [{ path: `${config.path}/server`, message: `tools/list failed (${reasonOf(error)})` }];
  }
}

/** Starts every endpoint, or none: on any problem the started ones are stopped and McpHostingError lists all. */
export async function hostMcpEndpoints(
  configs: readonly McpEndpointConfig[],
  options: HostingOptions,
): Promise<HostedMcpEndpoint[]> {
  const outcomes = await Promise.all(configs.map((config) => hostOne(config, options)));
  const hosted = outcomes.filter((outcome): outcome is HostedMcpEndpoint => !Array.isArray(outcome));
  const problems = outcomes.filter((outcome) => Array.isArray(outcome)).flat();
  if (problems.length > 0) {
    await Promise.all(hosted.map((endpoint) => endpoint.runtime.close()));
    throw new McpHostingError(options.source, problems);
  }
  for (const endpoint of hosted) {
    const { jid } = endpoint.config;
    for (const loss of endpoint.losses) options.log?.(`mcp: ${jid}: ${loss}`);
    if (!endpoint.bridge) {
      options.log?.(
        `mcp: ${jid}: the server does not speak the agentconf task-bridge extension: a cancellation ends the task cancelled at once (the completion-or-failure race is lost), failures have no codes, and input requests have the server's form schema and no expiry`,
      );
    }
  }
  return hosted;
}

function versionOf(text: string | Uint8Array): { version: unknown; value: JsonValue } | undefined {
  try {
    const value = parseStrictJson(text);
    const agent = isJsonObject(value) ? value['agent'] : undefined;
    return { version: isJsonObject(agent) ? agent['version'] : undefined, value };
  } catch {
    return undefined;
  }
}

/**
 * The world with the hosted endpoints in it (a world of their own when the config names none).
 * Throws McpHostingError when a world endpoint lacks the generated manifest.
 */
export function withHostedEndpoints(
  world: FixtureWorld | undefined,
  hosted: readonly HostedMcpEndpoint[],
  source: string,
): FixtureWorld {
  const problems: ConfigViolation[] = [];
  const byJid = new Map(hosted.map((endpoint) => [endpoint.config.jid, endpoint]));
  const endpoints: WorldEndpoint[] = (world?.endpoints ?? []).map((endpoint) => {
    const mcp = byJid.get(endpoint.jid);
    if (mcp === undefined) return endpoint;
    byJid.delete(endpoint.jid);
    const generated = mcp.manifest;
    const version = (generated['agent'] as JsonObject)['version'] as string;
    const listed = endpoint.versions
      .map((source) => versionOf(source.text))
      .find((entry) => entry?.version === version);
    if (listed === undefined) {
      problems.push({
        path: `${mcp.config.path}/agent/version`,
        message: `the fixture world lists ${endpoint.jid} without version ${version}, which its MCP server generates`,
      });
    } else if (!canonicallyEqual(listed.value, generated)) {
      problems.push({
        path: `${mcp.config.path}/server`,
        message: `the manifest generated from tools/list is not version ${version} as the fixture world lists it (manifests are immutable: give the changed tools a new agent.version)`,
      });
    }
    return { ...endpoint, runtime: undefined };
  });
  for (const mcp of byJid.values()) {
    const version = (mcp.manifest['agent'] as JsonObject)['version'] as string;
    endpoints.push({
      path: mcp.config.path,
      jid: mcp.config.jid,
      versions: [
        { path: `${mcp.config.path}/server`, origin: 'tools/list', text: canonicalJson(mcp.manifest) },
      ],
      active: mcp.config.active ? version : null,
      hidden: false,
      restrictedInvocation: false,
      runtime: undefined,
    });
  }
  if (problems.length > 0) throw new McpHostingError(source, problems);
  const endpointRuntimes = new Map(world?.endpointRuntimes ?? []);
  for (const endpoint of hosted) endpointRuntimes.delete(endpoint.config.jid);
  return { source: world?.source ?? source, endpoints, grants: world?.grants ?? [], endpointRuntimes };
}
