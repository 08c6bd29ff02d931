/**
 * The config's `mcpEndpoints` (docs/gateway-config.md, "MCP-hosted endpoints"): endpoints whose
 * tools come from an MCP server. This module checks what the schema cannot (the JID normalizes
 * and lives on the component domain, no endpoint twice, the URL parses) and resolves `cwd`;
 * runtime/mcp/ starts the servers, generates the manifests and runs the tools.
 */
import { resolve } from 'node:path';
import { parseBareJid } from '../../protocol/jid/index.ts';
import type { ConfigViolation } from '../../protocol/json/config-file.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { normalizedJid } from './policy-declarations.ts';

/** How the gateway reaches an MCP server. */
export type McpServerSpec =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Absolute; undefined: the gateway's own working directory. */
      readonly cwd: string | undefined;
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'http'; readonly url: string };

export interface McpEndpointConfig {
  /** JSON pointer of the entry in the config, for messages. */
  readonly path: string;
  /** Normalized endpoint bare JID. */
  readonly jid: string;
  readonly server: McpServerSpec;
  /** The manifest's agent object without jid, as written (version required, name optional). */
  readonly agent: JsonObject;
  readonly implementation: { readonly name: string; readonly version: string } | undefined;
  /** Tool name (or "*") → the urn:xmpp:agent-api:0 declarations. */
  readonly tools: Readonly<Record<string, JsonObject>>;
  readonly active: boolean;
  readonly startupMs: number;
}

/** The shape the config schema guarantees for one entry. */
export interface RawMcpEndpoint {
  readonly jid: string;
  readonly server:
    | { readonly command: readonly string[]; readonly cwd?: string; readonly env?: Record<string, string> }
    | { readonly url: string };
  readonly agent: JsonObject;
  readonly implementation?: { readonly name: string; readonly version: string };
  readonly tools?: Record<string, JsonObject>;
  readonly active?: boolean;
  readonly startupSeconds?: number;
}

export const DEFAULT_MCP_STARTUP_SECONDS = 30;

function serverOf(
  raw: RawMcpEndpoint['server'],
  path: string,
  baseDir: string,
  violations: ConfigViolation[],
): McpServerSpec {
  if ('url' in raw) {
    try {
      new URL(raw.url);
    } catch {
      violations.push({ path: `${path}/url`, message: 'not a URL' });
    }
    return { kind: 'http', url: raw.url };
  }
  const [command = '', ...args] = raw.command;
  return {
    kind: 'stdio',
    command,
    args,
    cwd: raw.cwd === undefined ? undefined : resolve(baseDir, raw.cwd),
    env: raw.env ?? {},
  };
}

export function mcpEndpointsOf(
  raw: readonly RawMcpEndpoint[],
  options: { readonly componentDomain: string; readonly baseDir: string },
  violations: ConfigViolation[],
): McpEndpointConfig[] {
  const seen = new Map<string, string>();
  return raw.map((entry, index) => {
    const path = `/mcpEndpoints/${String(index)}`;
    const jid = normalizedJid(entry.jid, `${path}/jid`, violations) ?? '';
    if (jid !== '') {
      if (
        parseBareJid(jid).domainpart !== options.componentDomain ||
        parseBareJid(jid).localpart === undefined
      ) {
        violations.push({
          path: `${path}/jid`,
          message: `an endpoint of this gateway is name@${options.componentDomain}`,
        });
      }
      const first = seen.get(jid);
      if (first !== undefined)
        violations.push({ path: `${path}/jid`, message: `the same endpoint as ${first}` });
      seen.set(jid, path);
    }
    return {
      path,
      jid,
      server: serverOf(entry.server, `${path}/server`, options.baseDir, violations),
      agent: entry.agent,
      implementation: entry.implementation,
      tools: entry.tools ?? {},
      active: entry.active ?? true,
      startupMs: Math.round((entry.startupSeconds ?? DEFAULT_MCP_STARTUP_SECONDS) * 1000),
    };
  });
}
