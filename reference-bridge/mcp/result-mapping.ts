/**
 * How a call's end reaches the MCP client (#mcp-mapping, #events). A completed task answers with
 * its result object exactly: content, structuredContent, isError and _meta as they came, absent
 * members absent; isError=true is a completed call like any other. A failed or cancelled task, a
 * refusal, an uncertain admission and the local time limit are JSON-RPC errors: none of them is
 * a tool result, and none claims more than the bridge knows. Pure.
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../../protocol/json/json-value.ts';
import { TASK_BRIDGE, outcomeToWire, type BridgeOutcome } from '../../protocol/mcp-task-bridge.ts';
import type { TaskFailure, ToolResult } from '../../protocol/events/index.ts';
import type { TerminalOutcome } from '../../reference-caller/tasks/task-record.ts';
import type { CallOutcome } from '../../reference-caller/tasks/tool-call.ts';

/** JSON-RPC code of a request the bridge stopped waiting for (the SDK's RequestTimeout). */
const LOCAL_TIMEOUT = ErrorCode.RequestTimeout;
/** Implementation-defined JSON-RPC server error: the outcome is unknown. */
const OUTCOME_UNKNOWN = -32002;
/** The target refused the invocation before admission. */
const REFUSED = -32003;

/** The terminal outcome in the agentconf task-bridge wire form (protocol/mcp-task-bridge.ts). */
export function bridgeOutcomeOf(outcome: TerminalOutcome): BridgeOutcome {
  const payload = isJsonObject(outcome.payload) ? outcome.payload : {};
  switch (outcome.state) {
    case 'completed': {
      const summary = payload['summary'];
      return {
        kind: 'completed',
        result: payload['result'] as unknown as ToolResult,
        ...(typeof summary === 'string' ? { summary } : {}),
      };
    }
    case 'failed':
      return { kind: 'failed', failure: payload['error'] as unknown as TaskFailure };
    case 'cancelled': {
      const reason = payload['reason'];
      return typeof reason === 'string' ? { kind: 'cancelled', reason } : { kind: 'cancelled' };
    }
  }
}

/** The MCP answer to a call, or the error to throw. */
export function callAnswer(outcome: CallOutcome): CallToolResult {
  switch (outcome.kind) {
    case 'settled': {
      const bridged = bridgeOutcomeOf(outcome.outcome);
      const data: JsonObject = { [TASK_BRIDGE]: outcomeToWire(bridged), taskId: outcome.taskId };
      if (bridged.kind === 'completed') return bridged.result as unknown as CallToolResult;
      if (bridged.kind === 'failed')
        throw new McpError(ErrorCode.InternalError, bridged.failure.message, data);
      throw new McpError(
        ErrorCode.InternalError,
        `The agent cancelled the task${bridged.reason === undefined ? '' : `: ${bridged.reason}`}`,
        data,
      );
    }
    case 'refused':
      throw new McpError(
        outcome.error.condition === 'item-not-found' ? ErrorCode.InvalidParams : REFUSED,
        outcome.error.condition === 'item-not-found'
          ? 'The agent refused the call: the tool is unknown to it or not invocable by this bridge.'
          : `The agent refused the call before admission (<${outcome.error.condition}/>).`,
        { requestId: outcome.requestId, condition: outcome.error.condition },
      );
    case 'uncertain':
      throw new McpError(OUTCOME_UNKNOWN, `Whether the tool ran is unknown: ${outcome.reason}.`, {
        requestId: outcome.requestId,
      });
    case 'timed-out':
      throw new McpError(
        LOCAL_TIMEOUT,
        outcome.taskId === undefined
          ? 'The bridge stopped waiting before the agent admitted the call; whether it runs is unknown.'
          : `The bridge stopped waiting; task ${outcome.taskId} was ${outcome.lastKnownState ?? 'accepted'} when last known, and its outcome is unknown to the bridge.`,
        {
          requestId: outcome.requestId,
          ...(outcome.taskId === undefined ? {} : { taskId: outcome.taskId }),
          ...(outcome.lastKnownState === undefined ? {} : { lastKnownState: outcome.lastKnownState }),
          local: true,
        },
      );
  }
}
