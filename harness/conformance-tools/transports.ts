/**
 * The conformance tools on the two MCP transports: stdio (one connection, the process's stdin
 * and stdout) and Streamable HTTP (a session per client, all on one ledger), plus the ledger
 * read out of band over HTTP:
 *
 * | request                  | answer                                             |
 * | ------------------------ | -------------------------------------------------- |
 * | `POST/GET/DELETE /mcp`   | MCP Streamable HTTP (sessions, SSE)                |
 * | `GET /ledger/KEY`        | 200 `{"key":KEY,"count":N}` (0 for a key never counted) |
 * | `GET /ledger`            | 200 `{"counts":{KEY:N,…}}`                          |
 * | anything else            | 404 `{"error":"not-found"}`                         |
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { LEDGER_KEY_PATTERN } from '../../protocol/conformance-script/index.ts';
import type { ConformanceLedger } from './ledger.ts';
import { createConformanceToolsServer, type ConformanceToolsOptions } from './server.ts';
import { holdEarlyCancellations } from './early-cancellations.ts';

export interface LedgerOptions extends ConformanceToolsOptions {
  readonly ledger: ConformanceLedger;
}

/** Serves one MCP connection on stdin/stdout until the client closes stdin. */
export async function serveConformanceToolsStdio(
  options: ConformanceToolsOptions & { readonly stdin?: Readable; readonly stdout?: Writable },
): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const server = createConformanceToolsServer(options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = ((previous) => () => {
      previous?.();
      resolve();
    })(server.onclose);
  });
  stdin.once('end', () => {
    void server.close();
  });
  await server.connect(transport);
  await closed;
}

export interface ConformanceToolsHttp {
  /** The MCP endpoint, `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** The ledger's base URL, `http://HOST:PORT/ledger` (append `/KEY`). */
  readonly ledgerUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Largest request body read (a script is at most 256 steps; the manifest bounds arguments to 256 KiB). */
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

function answerLedger(res: ServerResponse, path: string, ledger: ConformanceLedger): void {
  if (path === '/ledger' || path === '/ledger/') {
    sendJson(res, 200, { counts: Object.fromEntries(ledger.counts()) });
    return;
  }
  const key = decodeURIComponent(path.slice('/ledger/'.length));
  if (!LEDGER_KEY_PATTERN.test(key)) {
    sendJson(res, 400, { error: 'not-a-ledger-key' });
    return;
  }
  sendJson(res, 200, { key, count: ledger.read(key) });
}

/** Serves the tools over Streamable HTTP on `host:port` (port 0: any free port) with the ledger endpoint. */
export async function serveConformanceToolsHttp(
  options: LedgerOptions & { readonly port: number; readonly host?: string },
): Promise<ConformanceToolsHttp> {
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
    await createConformanceToolsServer(options).connect(transport);
    holdEarlyCancellations(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const answer = async (): Promise<void> => {
      if (path === '/mcp') await answerMcp(req, res);
      else if (req.method === 'GET' && (path === '/ledger' || path.startsWith('/ledger/'))) {
        answerLedger(res, path, options.ledger);
      } else sendJson(res, 404, { error: 'not-found' });
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
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  return {
    url: `${base}/mcp`,
    ledgerUrl: `${base}/ledger`,
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
