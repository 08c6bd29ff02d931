/**
 * The bridge on MCP's two transports: stdio (one connection on the process's stdin and stdout)
 * and Streamable HTTP at http://HOST:PORT/mcp (a session per client, all on one XMPP session).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { BridgeCore } from '../bridge.ts';
import { createBridgeServer } from './bridge-server.ts';

/** Serves one MCP client on stdin/stdout until it closes stdin. */
export async function serveBridgeStdio(
  core: BridgeCore,
  streams: { readonly stdin?: Readable; readonly stdout?: Writable } = {},
): Promise<void> {
  const stdin = streams.stdin ?? process.stdin;
  const server = createBridgeServer(core);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  stdin.once('end', () => {
    void server.close();
  });
  await server.connect(new StdioServerTransport(stdin, streams.stdout ?? process.stdout));
  await closed;
}

export interface BridgeHttp {
  /** http://HOST:PORT/mcp */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A JSON-RPC message is a few KiB; tool arguments are bounded by the target's own limits. */
const MAX_BODY_BYTES = 4 * 1_048_576;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Serves Streamable HTTP on host:port (0: any free port). */
export async function serveBridgeHttp(
  core: BridgeCore,
  port: number,
  host = '127.0.0.1',
): Promise<BridgeHttp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function answerMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (req.method !== 'POST') {
      if (existing === undefined) {
        sendJson(res, sessionId === undefined ? 400 : 404, { error: 'no-session' });
        return;
      }
      await existing.handleRequest(req, res);
      return;
    }
    const body = await readBody(req);
    if (existing !== undefined) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (sessionId !== undefined || !isInitializeRequest(body)) {
      sendJson(res, sessionId === undefined ? 400 : 404, {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'no valid MCP session: initialize first' },
        id: null,
      });
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createBridgeServer(core).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      sendJson(res, 404, { error: 'not-found' });
      return;
    }
    answerMcp(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 400, { error: 'bad-request' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://${host}:${String(bound)}/mcp`,
    port: bound,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      await new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
        http.closeAllConnections();
      });
    },
  };
}
