/**
 * One MCP connection's server (#mcp-mapping): tools/list from the pinned catalog with the
 * bridge's own cursors, tools/call as an XMPP task, the semantic-loss table as a resource. The
 * server declares tools and resources and the agentconf task-bridge extension, and not MCP
 * Tasks: the loss table says why (#use-case-mcp-bridge).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import {
  OUTCOME_NOTIFICATION,
  TASK_BRIDGE,
  TASK_BRIDGE_CAPABILITY,
  declaresTaskBridge,
  outcomeToWire,
} from '../../protocol/mcp-task-bridge.ts';
import type { BridgeCore } from '../bridge.ts';
import { LOSS_RESOURCE_URI, lossTableDocument } from '../loss/semantic-loss.ts';
import {
  runToolCall,
  type CallOutcome,
  type CallSink,
  type InputAnswer,
} from '../../reference-caller/tasks/tool-call.ts';
import { elicitationPlan, inputOf } from './elicitation-mapping.ts';
import { progressNotificationParams } from './progress-mapping.ts';
import { bridgeOutcomeOf, callAnswer } from './result-mapping.ts';
import { InvalidCursor, toolPage } from './tool-pages.ts';

export const BRIDGE_SERVER_INFO = { name: 'agentconf-mcp-bridge', version: '0.1.0' } as const;
const TOOLS_PAGE_SIZE = 50;
/** Elicitations wait for a person, not for the SDK's 60 s default (setTimeout's largest delay). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server: tools/list carries the retrieved JSON Schemas byte for byte, which McpServer's zod registration cannot
export type BridgeServer = Server;

type CallExtra = Parameters<Parameters<BridgeServer['setRequestHandler']>[1]>[1];

function callSink(server: BridgeServer, extra: CallExtra, log: (line: string) => void): CallSink {
  const progressToken = extra._meta?.progressToken;
  return {
    async progress(payload, revision, taskId) {
      if (progressToken === undefined) return;
      await extra
        .sendNotification({
          method: 'notifications/progress',
          params: progressNotificationParams(progressToken, payload, revision, taskId) as never,
        })
        .catch(() => undefined);
    },
    async requestInput(request, taskId, refusedBefore): Promise<InputAnswer> {
      if (server.getClientCapabilities()?.elicitation === undefined) {
        return { kind: 'no-input', reason: 'the MCP client does not support elicitation' };
      }
      const plan = elicitationPlan(request, taskId, refusedBefore);
      const result = await extra.sendRequest(
        { method: 'elicitation/create', params: plan.params as never },
        ElicitResultSchema,
        { timeout: NO_TIMEOUT_MS },
      );
      if (result.action !== 'accept')
        return { kind: 'no-input', reason: `the MCP client answered ${result.action}` };
      try {
        return { kind: 'input', value: inputOf(plan, result.content) };
      } catch (error) {
        log(
          `task ${taskId}: the elicitation answer is not usable (${error instanceof Error ? error.message : String(error)})`,
        );
        return { kind: 'no-input', reason: 'the answer was not a JSON text' };
      }
    },
  };
}

/** After the client cancelled: the settled outcome goes out as a notification, or only to the log. */
async function reportAfterCancel(
  server: BridgeServer,
  core: BridgeCore,
  extra: CallExtra,
  outcome: CallOutcome,
): Promise<void> {
  if (outcome.kind !== 'settled') {
    core.log(`a cancelled call ended without a settled task (${outcome.kind})`);
    return;
  }
  core.log(`task ${outcome.taskId} settled ${outcome.outcome.state} after the MCP client cancelled the call`);
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined || !declaresTaskBridge(server.getClientCapabilities())) return;
  await server
    .notification({
      method: OUTCOME_NOTIFICATION,
      params: { progressToken, outcome: outcomeToWire(bridgeOutcomeOf(outcome.outcome)) },
    })
    .catch(() => undefined);
}

export function createBridgeServer(core: BridgeCore): BridgeServer {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see BridgeServer
  const server: BridgeServer = new Server(BRIDGE_SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY } },
    instructions:
      'Tools of remote XMPP agents, each pinned to one manifest version. Not transparent MCP Tasks: read the semantic-loss resource.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const listed = await core.catalog.list();
    try {
      const page = toolPage(
        listed.map((entry) => entry.mcp),
        request.params?.cursor,
        TOOLS_PAGE_SIZE,
      );
      return {
        tools: page.items as never,
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    } catch (error) {
      if (error instanceof InvalidCursor) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = await core.catalog.find(request.params.name);
    if (entry === undefined)
      throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}`);
    const { remote, manifestHash, replaySeconds } = entry.tool;
    const canonicalArguments = canonicalJson((request.params.arguments ?? {}) as JsonValue);
    const outcome = await runToolCall(
      { jid: remote.jid, tool: remote.tool, version: remote.version, manifestHash, replaySeconds },
      canonicalArguments,
      extra.signal,
      callSink(server, extra, core.log),
      core.calls,
    );
    if (extra.signal.aborted) {
      await reportAfterCancel(server, core, extra, outcome);
      // The SDK sends no response for a cancelled request; this value goes nowhere.
      return { content: [] };
    }
    return callAnswer(outcome);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: LOSS_RESOURCE_URI,
        name: 'semantic-loss',
        title: 'What this bridge cannot carry between MCP and XMPP',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== LOSS_RESOURCE_URI) {
      throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`);
    }
    return {
      contents: [
        {
          uri: LOSS_RESOURCE_URI,
          mimeType: 'application/json',
          text: `${JSON.stringify(lossTableDocument(), null, 2)}\n`,
        },
      ],
    };
  });
  return server;
}
