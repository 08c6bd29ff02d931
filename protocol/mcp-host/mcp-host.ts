/**
 * Serving an MCP server on MCP's two transports: stdio (one connection on a process's stdin and
 * stdout) and Streamable HTTP at http://HOST:PORT/mcp, a session per client, each session its
 * own server instance from the caller's factory.
 *
 * Why a socket-owning module sits in protocol/: the reference MCP bridge and the harness's
 * conformance tools are both MCP servers, and protocol/ is the only layer below both (the bridge
 * may not read the harness, nor the harness the bridge). It stays transport mechanics only: what
 * a session serves is the caller's, and so is any route beside /mcp.
 *
 * Sessions: a POST without a session ID must be an initialize request, which opens a session
 * whose ID comes back in the Mcp-Session-Id header; every other request names its session. A
 * missing ID is 400 and an unknown one 404, the answer on which MCP's Streamable HTTP transport
 * has a client start a new session.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** The part of an SDK Server (or McpServer) the hosts use. */
export interface HostedMcpServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
}

/** Serves one MCP connection on stdin/stdout until the client closes stdin. */
export async function serveMcpStdio(
  server: HostedMcpServer,
  streams: { readonly stdin?: Readable; readonly stdout?: Writable } = {},
): Promise<void> {
  const stdin = streams.stdin ?? process.stdin;
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  stdin.once('end', () => {
    void server.close();
  });
  await server.connect(new StdioServerTransport(stdin, streams.stdout ?? process.stdout));
  await closed;
}

export interface McpHttpHost {
  /** The MCP endpoint, `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** `http://HOST:PORT` (an IPv6 host in brackets), for routes beside /mcp. */
  readonly origin: string;
  readonly port: number;
  /** Closes every session and the listener, ending open connections. */
  close(): Promise<void>;
}

export interface McpHttpHostOptions {
  /** 0: any free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /**
   * Connects a new session's transport to a server of its own; the initialize request is
   * handled once this resolves.
   */
  readonly connectSession: (transport: StreamableHTTPServerTransport) => Promise<void>;
  /**
   * Answers a request outside /mcp and says whether it did; what it leaves is 404. A rejection
   * (or throw) is answered 400 when no header went out yet.
   */
  readonly answerOther?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
}

/** A JSON-RPC message is a few KiB; tool arguments are bounded by the manifests' own limits. */
const MAX_BODY_BYTES = 4 * 1_048_576;

/** Writes a JSON answer that no cache keeps. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
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

function sessionIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers['mcp-session-id'];
  return Array.isArray(header) ? header[0] : header;
}

/** Serves Streamable HTTP at /mcp on host:port, and whatever `answerOther` answers beside it. */
export async function serveMcpHttp(options: McpHttpHostOptions): Promise<McpHttpHost> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function answerMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = sessionIdOf(req);
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
    await options.connectSession(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const answer = async (): Promise<void> => {
      if (path === '/mcp') await answerMcp(req, res);
      else if (options.answerOther?.(req, res, path) !== true) sendJson(res, 404, { error: 'not-found' });
    };
    answer().catch(() => {
      if (!res.headersSent) sendJson(res, 400, { error: 'bad-request' });
      else res.end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  return {
    url: `${origin}/mcp`,
    origin,
    port,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
      });
    },
  };
}
