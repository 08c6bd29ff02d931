// The caller-under-test harness (docs/caller.md): the caller config the suite hands a caller,
// starting an MCP bridge from its SUT declaration, and the MCP client driver the cases use.
export { startCallerSession, type CallerSession, type CallerSessionOptions } from './caller-session.ts';
export { callerConfigFor, writeCallerConfig, type CallerConfigFacts } from './caller-config-file.ts';
export {
  CALLER_CONFIG_FILE,
  fillCallerTemplate,
  freeLoopbackPort,
  startMcpCaller,
  type McpCallerUnderTest,
  type StartMcpCallerOptions,
} from './mcp-caller.ts';
export {
  McpCallerDriver,
  TARGET_META_KEY,
  type CallOptions,
  type ListedTool,
  type ReceivedElicitation,
  type ReceivedProgress,
  type RemoteToolRef,
  type ToolCall,
  type ToolListing,
} from './mcp-driver.ts';
