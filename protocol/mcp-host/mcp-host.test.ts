// The shared MCP host over Streamable HTTP: a session per client, each on a server of its own;
// requests without a valid session refused as MCP's transport asks; routes beside /mcp left to
// the caller, the rest 404.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, serveMcpHttp, type McpHttpHost } from './mcp-host.ts';

let host: McpHttpHost;
let sessionsOpened = 0;

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server is what both hosted servers are
function toolServer(): Server {
  sessionsOpened += 1;
  const name = `tool-${String(sessionsOpened)}`;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server is what both hosted servers are
  const server = new Server({ name: 'mcp-host-test', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name, inputSchema: { type: 'object' as const } }],
  }));
  return server;
}

beforeAll(async () => {
  host = await serveMcpHttp({
    port: 0,
    connectSession: (transport) => toolServer().connect(transport),
    answerOther: (req, res, path) => {
      if (req.method !== 'GET' || path !== '/beside') return false;
      sendJson(res, 200, { beside: true });
      return true;
    },
  });
});

afterAll(async () => {
  await host.close();
});

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('serveMcpHttp', () => {
  it('gives each client a session on a server of its own', async () => {
    const clients = [new Client({ name: 'a', version: '1' }), new Client({ name: 'b', version: '1' })];
    for (const client of clients) await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    const names = await Promise.all(
      clients.map(async (client) => (await client.listTools()).tools.map((tool) => tool.name)),
    );
    expect(new Set(names.flat()).size).toBe(2);
    await Promise.all(clients.map((client) => client.close()));
  });

  it('refuses a request without a session 400 and one naming an unknown session 404', async () => {
    const without = await fetch(host.url, { method: 'POST', headers: POST_HEADERS, body: LIST_TOOLS });
    expect(without.status).toBe(400);
    const unknown = await fetch(host.url, {
      method: 'POST',
      headers: { ...POST_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: LIST_TOOLS,
    });
    expect(unknown.status).toBe(404);
    expect((await fetch(host.url)).status).toBe(400);
  });

  it('answers bad JSON 400, leaves other routes to the caller and the rest 404', async () => {
    const bad = await fetch(host.url, { method: 'POST', headers: POST_HEADERS, body: '{' });
    expect(bad.status).toBe(400);
    const beside = await fetch(`${host.origin}/beside`);
    expect(await beside.json()).toEqual({ beside: true });
    expect((await fetch(`${host.origin}/elsewhere`)).status).toBe(404);
    expect(host.url).toBe(`${host.origin}/mcp`);
  });
});
