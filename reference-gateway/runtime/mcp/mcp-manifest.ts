/**
 * The manifest of an MCP-hosted endpoint, generated from the server's tools/list (#mcp-mapping):
 * `agent` from the config (MCP has no endpoint API version), `implementation` from the config or
 * the server's serverInfo, `mcpProtocolVersion` the negotiated revision, and per tool its name,
 * title, description, schemas, annotations, execution and _meta as the server sent them
 * ("A bridge MUST preserve schemas, annotations, execution, … and _meta where representable"),
 * plus the urn:xmpp:agent-api:0 declarations from the config or the server's task-bridge _meta.
 *
 * Schema dialects: the gateway evaluates JSON Schema 2020-12 only (#schemas: the recognized
 * dialect; omitting $schema selects it). A tool schema that declares another dialect is refused
 * with a config problem naming the tool, never translated: a translation (definitions → $defs,
 * items arrays → prefixItems, dependencies → dependentSchemas, …) would change the schema's
 * bytes, hash and, for keywords without an exact counterpart, its meaning, which a bridge that
 * must preserve schemas cannot do silently. The MCP server has to publish 2020-12 schemas.
 *
 * What a manifest cannot hold (a tool's `icons`, members MCP adds later) is dropped and listed
 * as semantic loss, which the gateway logs at start.
 */
import type { ConfigViolation } from '../../../protocol/json/config-file.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../protocol/json/json-value.ts';
import { parseBareJid } from '../../../protocol/jid/index.ts';
import { MCP_TOOL_MEMBERS, bridgePart, withoutBridgePart } from '../../../protocol/mcp-task-bridge.ts';
import { NS_AGENT_API } from '../../../protocol/namespaces.ts';
import type { McpEndpointConfig } from '../../config/mcp-endpoints.ts';

/** `$schema` values that select JSON Schema 2020-12. */
const DIALECT_2020_12 = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

/** Every tool's declarations unless a tool is named. */
export const EVERY_TOOL = '*';

const MCP_REVISION = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

export interface ServerFacts {
  /** serverInfo from initialize. */
  readonly serverInfo: { readonly name?: unknown; readonly version?: unknown } | undefined;
  /** The negotiated MCP revision. */
  readonly protocolVersion: string | undefined;
  /** tools/list, every page. */
  readonly tools: readonly JsonObject[];
}

export interface GeneratedManifest {
  /** Undefined when there were problems. */
  readonly manifest: JsonObject | undefined;
  readonly problems: readonly ConfigViolation[];
  /** What the manifest cannot represent, one sentence each. */
  readonly losses: readonly string[];
}

function dialectProblem(tool: string, member: string, schema: JsonValue | undefined): string | undefined {
  if (!isJsonObject(schema)) return undefined;
  const dialect = schema['$schema'];
  if (dialect === undefined || (typeof dialect === 'string' && DIALECT_2020_12.has(dialect)))
    return undefined;
  return `tool ${JSON.stringify(tool)}: ${member} declares $schema ${JSON.stringify(dialect)}; this gateway hosts JSON Schema 2020-12 only (#schemas), so the MCP server must publish its schemas in that dialect (no $schema, or https://json-schema.org/draft/2020-12/schema)`;
}

function implementationOf(
  endpoint: McpEndpointConfig,
  facts: ServerFacts,
  losses: string[],
): JsonObject | undefined {
  if (endpoint.implementation !== undefined) return { ...endpoint.implementation };
  const { name, version } = facts.serverInfo ?? {};
  if (typeof name === 'string' && name !== '' && typeof version === 'string' && version !== '') {
    return { name, version };
  }
  losses.push('the server gave no name and version in serverInfo: the manifest has no implementation');
  return undefined;
}

function toolOf(
  name: string,
  listed: JsonObject,
  declarations: JsonObject | undefined,
  losses: string[],
): JsonObject {
  const tool: JsonObject = {};
  for (const member of MCP_TOOL_MEMBERS) {
    const value = listed[member];
    if (value !== undefined) tool[member] = value;
  }
  const meta = withoutBridgePart(isJsonObject(listed['_meta']) ? listed['_meta'] : undefined);
  if (meta !== undefined) tool['_meta'] = meta;
  if (declarations !== undefined) tool[NS_AGENT_API] = declarations;
  const dropped = Object.keys(listed).filter(
    (member) => !MCP_TOOL_MEMBERS.includes(member) && member !== '_meta',
  );
  if (dropped.length > 0) {
    losses.push(`tool ${JSON.stringify(name)}: ${dropped.join(', ')} dropped (no manifest member for it)`);
  }
  return tool;
}

export function manifestFromTools(endpoint: McpEndpointConfig, facts: ServerFacts): GeneratedManifest {
  const problems: ConfigViolation[] = [];
  const losses: string[] = [];
  const where = `${endpoint.path}/server`;
  const named = new Set<string>();
  const tools = facts.tools.flatMap((listed, index) => {
    const name = listed['name'];
    if (typeof name !== 'string') {
      problems.push({ path: where, message: `tools/list item ${String(index)} has no name` });
      return [];
    }
    named.add(name);
    for (const member of ['inputSchema', 'outputSchema']) {
      const problem = dialectProblem(name, member, listed[member]);
      if (problem !== undefined) problems.push({ path: where, message: problem });
    }
    const declared =
      endpoint.tools[name] ?? endpoint.tools[EVERY_TOOL] ?? bridgePart(listed['_meta'])?.['declarations'];
    return [toolOf(name, listed, isJsonObject(declared) ? declared : undefined, losses)];
  });
  for (const name of Object.keys(endpoint.tools)) {
    if (name !== EVERY_TOOL && !named.has(name)) {
      problems.push({
        path: `${endpoint.path}/tools/${name}`,
        message: 'the MCP server lists no tool of this name',
      });
    }
  }
  const implementation = implementationOf(endpoint, facts, losses);
  const revision = facts.protocolVersion;
  if (revision === undefined || !MCP_REVISION.test(revision)) {
    losses.push('the negotiated MCP revision is unknown: the manifest has no mcpProtocolVersion');
  }
  const agent: JsonObject = {
    name: parseBareJid(endpoint.jid).localpart ?? endpoint.jid,
    ...endpoint.agent,
    jid: endpoint.jid,
  };
  const manifest: JsonObject = {
    manifestSpecVersion: '0',
    agent,
    ...(implementation === undefined ? {} : { implementation }),
    ...(revision !== undefined && MCP_REVISION.test(revision) ? { mcpProtocolVersion: revision } : {}),
    tools,
  };
  return { manifest: problems.length === 0 ? manifest : undefined, problems, losses };
}
