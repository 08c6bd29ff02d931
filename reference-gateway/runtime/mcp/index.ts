/**
 * MCP-hosted endpoints (#mcp-mapping, docs/gateway-config.md "MCP-hosted endpoints"): the MCP →
 * XMPP half of the mapping. An endpoint's tools come from an MCP server (a stdio command or a
 * Streamable HTTP URL), its manifest is generated from tools/list, and the `mcp` ToolRuntime runs
 * each task as a tools/call.
 */
export {
  McpHostingError,
  hostMcpEndpoints,
  withHostedEndpoints,
  type HostedMcpEndpoint,
  type HostingOptions,
} from './mcp-hosting.ts';
export { EVERY_TOOL, manifestFromTools, type GeneratedManifest, type ServerFacts } from './mcp-manifest.ts';
export { MCP_RUNTIME_NAME, McpRuntime, SERVER_GONE, SERVER_UNREACHABLE } from './mcp-runtime.ts';
export { McpSession, type TransportFactory } from './mcp-session.ts';
export { McpSessionPool } from './mcp-session-pool.ts';
