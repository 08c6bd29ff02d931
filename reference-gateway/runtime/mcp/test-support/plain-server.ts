/**
 * A plain MCP server in memory (no task-bridge extension unless asked), for the MCP runtime's
 * tests: each session gets a fresh SDK Server whose tools/call runs the test's handler for the
 * tool. `beforeDelivery` sees each message to the client first and may hold it back.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../../protocol/json/json-value.ts';
import type { TransportFactory } from '../mcp-session.ts';

export type ToolHandler = (
  request: CallToolRequest,
  extra: { readonly signal: AbortSignal; readonly server: PlainServer },
) => Promise<CallToolResult>;

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server, to list raw tools
export type PlainServer = Server;

export interface PlainServerFactory {
  readonly transport: TransportFactory;
  /** Every server started so far, one per session. */
  readonly servers: PlainServer[];
}

export function plainServer(options: {
  readonly tools: readonly JsonObject[];
  readonly handlers?: Readonly<Record<string, ToolHandler>>;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Experimental capabilities to declare (the task-bridge extension's, for a bridge that never speaks it). */
  readonly experimental?: Readonly<Record<string, JsonObject>>;
  readonly beforeDelivery?: (message: JSONRPCMessage) => Promise<void>;
}): PlainServerFactory {
  const servers: PlainServer[] = [];
  const transport: TransportFactory = () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const { beforeDelivery } = options;
    if (beforeDelivery !== undefined) {
      const send = serverSide.send.bind(serverSide);
      serverSide.send = async (message, sendOptions) => {
        await beforeDelivery(message);
        await send(message, sendOptions);
      };
    }
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const server: PlainServer = new Server(options.serverInfo ?? { name: 'plain', version: '2.0' }, {
      capabilities: {
        tools: {},
        ...(options.experimental === undefined ? {} : { experimental: { ...options.experimental } }),
      },
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools as never }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const handler = options.handlers?.[request.params.name];
      if (handler === undefined) throw new McpError(ErrorCode.InvalidParams, 'unknown tool');
      return handler(request, { signal: extra.signal, server });
    });
    servers.push(server);
    void server.connect(serverSide);
    return clientSide;
  };
  return { transport, servers };
}
