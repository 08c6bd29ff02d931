// A stand-in for an MCP bridge, for the caller-under-test harness's own tests: it reads the
// caller config it is given (`--config FILE`, checked as a bridge checks it), serves one MCP tool
// per configured endpoint with the contract's _meta target, on stdio or on Streamable HTTP
// (`--http PORT`), and its tool answers with what it was configured with. It speaks no XMPP.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { readCallerConfig, type CallerConfig } from '../../../protocol/json/caller-config.ts';
import { TARGET_META_KEY } from '../mcp-driver.ts';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server, for _meta on tools
type TinyServer = Server;

function tinyBridge(config: CallerConfig): TinyServer {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server: TinyServer = new Server(
    { name: 'tiny-bridge', version: '1' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: config.endpoints.map((endpoint, index) => ({
      name: `endpoint_${String(index)}`,
      inputSchema: { type: 'object' as const },
      _meta: {
        [TARGET_META_KEY]: { jid: endpoint.jid, version: endpoint.version ?? 'active', tool: 'echo' },
      },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (_request, extra) => ({
    content: [{ type: 'text', text: 'configured' }],
    structuredContent: {
      jid: config.xmpp.jid,
      timeoutSeconds: config.timeoutSeconds ?? null,
      caInEnvironment: process.env['NODE_EXTRA_CA_CERTS'] ?? null,
      // What the client sent over HTTP, so the harness's own test sees its headers arrive.
      authorization: extra.requestInfo?.headers['authorization'] ?? null,
    },
  }));
  return server;
}

const configPath = option('--config');
if (configPath === undefined) throw new Error('usage: tiny-bridge-main.ts --config FILE [--http PORT]');
const config = readCallerConfig(configPath);
const httpPort = option('--http');
if (httpPort === undefined) {
  await tinyBridge(config).connect(new StdioServerTransport());
} else {
  // One session per client (the tests open one), kept by its ID.
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  createServer((request, response) => {
    const id = request.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known !== undefined) {
      void known.handleRequest(request, response);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (session) => {
        sessions.set(session, transport);
      },
    });
    void tinyBridge(config)
      .connect(transport)
      .then(() => transport.handleRequest(request, response));
  }).listen(Number(httpPort), '127.0.0.1', () => {
    process.stdout.write(`listening on ${httpPort}\n`);
  });
}
