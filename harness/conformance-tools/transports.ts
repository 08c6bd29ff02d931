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
import type { ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { serveMcpHttp, serveMcpStdio, sendJson } from '../../protocol/mcp-host/mcp-host.ts';
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
  await serveMcpStdio(createConformanceToolsServer(options), options);
}

export interface ConformanceToolsHttp {
  /** The MCP endpoint, `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** The ledger's base URL, `http://HOST:PORT/ledger` (append `/KEY`). */
  readonly ledgerUrl: string;
  readonly port: number;
  close(): Promise<void>;
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
  const served = await serveMcpHttp({
    port: options.port,
    ...(options.host === undefined ? {} : { host: options.host }),
    connectSession: async (transport) => {
      await createConformanceToolsServer(options).connect(transport);
      holdEarlyCancellations(transport);
    },
    answerOther: (req, res, path) => {
      if (req.method !== 'GET' || (path !== '/ledger' && !path.startsWith('/ledger/'))) return false;
      answerLedger(res, path, options.ledger);
      return true;
    },
  });
  return {
    url: served.url,
    ledgerUrl: `${served.origin}/ledger`,
    port: served.port,
    close: () => served.close(),
  };
}
