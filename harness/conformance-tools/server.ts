/**
 * The conformance tools as an MCP server (docs/conformance-tools.md, "Over MCP"): the five tools
 * of fixtures/manifests/conformance.json, the script interpreter of protocol/conformance-script/
 * behind each tools/call, and a ledger kept in this process (or a file), which the suite reads
 * out of band. One Server per MCP connection (a stdio process has one; Streamable HTTP one per
 * session); all share the ledger.
 *
 * A tools/call is answered as the script settles: `complete` → the CallToolResult; `fail`,
 * `cancel`, a parse problem or an unknown tool → a JSON-RPC error whose `data` carries the
 * failure or the cancellation (TASK_BRIDGE); a script that ends without a terminal step → a
 * plain JSON-RPC error (the bridge's runtime-fault handling decides, as for any host). The
 * script goes on after the answer when it has late output.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import {
  COUNTER_TOOL,
  KEYWORDS_TOOL,
  SCRIPT_TOOLS,
  SYSTEM_CLOCK,
  UNKNOWN_TOOL_FAILURE,
  argumentFailure,
  counterResult,
  keywordsResult,
  parseCounterArguments,
  parseScript,
  runScript,
  type RuntimeClock,
} from '../../protocol/conformance-script/index.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import {
  TASK_BRIDGE,
  TASK_BRIDGE_CAPABILITY,
  declaresTaskBridge,
  outcomeToWire,
  withBridgePart,
  type BridgeOutcome,
} from '../../protocol/mcp-task-bridge.ts';
import type { ToolLedger } from '../../protocol/tool-actions.ts';
import { McpCallActions, type ConformanceServer } from './call-actions.ts';
import { conformanceToolList } from './tool-list.ts';

export interface ConformanceToolsOptions {
  readonly ledger: ToolLedger;
  /** Real time unless a test injects a fake. */
  readonly clock?: RuntimeClock;
}

/** A failure or a cancellation as the JSON-RPC error that answers the call. */
function outcomeError(outcome: Exclude<BridgeOutcome, { kind: 'completed' }>): McpError {
  const message = outcome.kind === 'failed' ? outcome.failure.message : 'The tool cancelled the task.';
  return new McpError(ErrorCode.InternalError, message, { [TASK_BRIDGE]: outcomeToWire(outcome) });
}

/** The answer of a call whose script settled while the request was open. */
function answerOf(outcome: BridgeOutcome): CallToolResult {
  if (outcome.kind !== 'completed') throw outcomeError(outcome);
  const { result, summary } = outcome;
  const meta = summary === undefined ? result._meta : withBridgePart(result._meta, { summary });
  return {
    ...(result as unknown as CallToolResult),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

/** A new MCP server for one connection; connect it to a transport. */
export function createConformanceToolsServer(options: ConformanceToolsOptions): ConformanceServer {
  const { serverInfo, tools } = conformanceToolList();
  const clock = options.clock ?? SYSTEM_CLOCK;
  // The low-level Server (deprecated for the high-level API): tools/list must carry the manifest's
  // JSON Schemas byte for byte, which McpServer's zod-based registration cannot list.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server: ConformanceServer = new Server(serverInfo, {
    capabilities: { tools: {}, experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY } },
  });
  const running = new Set<McpCallActions>();
  server.onclose = () => {
    for (const call of running) call.abandon();
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as JsonValue;
    if (name === COUNTER_TOOL) {
      const parsed = parseCounterArguments(args);
      if (!parsed.ok) throw outcomeError({ kind: 'failed', failure: argumentFailure(parsed.problem) });
      const { key } = parsed.value;
      return counterResult(key, options.ledger.read(key));
    }
    if (name === KEYWORDS_TOOL) return keywordsResult(args);
    if (!(SCRIPT_TOOLS as readonly string[]).includes(name)) {
      throw outcomeError({ kind: 'failed', failure: UNKNOWN_TOOL_FAILURE });
    }
    const parsed = parseScript(args);
    if (!parsed.ok) throw outcomeError({ kind: 'failed', failure: argumentFailure(parsed.problem) });
    const call = new McpCallActions({
      server,
      requestId: extra.requestId,
      progressToken: extra._meta?.progressToken,
      requestSignal: extra.signal,
      bridge: declaresTaskBridge(server.getClientCapabilities()),
    });
    running.add(call);
    void runScript(parsed.value, { actions: call, clock, ledger: options.ledger })
      .catch(() => undefined)
      .finally(() => {
        running.delete(call);
        call.finish();
      });
    const outcome = await call.answer;
    if (outcome === undefined) {
      throw new McpError(ErrorCode.InternalError, 'The script ended without a terminal step.');
    }
    return answerOf(outcome);
  });
  return server;
}
