/**
 * The MCP SDK's client side as mcp-session.ts uses it, imported only when the first session
 * opens: a gateway without MCP-hosted endpoints never loads the SDK and its schema library
 * (about 90 ms of its start).
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ProgressNotificationSchema,
  ResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
