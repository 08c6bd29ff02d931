/**
 * The bridge on MCP's two transports: stdio (one connection on the process's stdin and stdout)
 * and Streamable HTTP at http://HOST:PORT/mcp (a session per client, all on one XMPP session).
 * The transport mechanics are protocol/mcp-host's, shared with the harness's conformance tools.
 */
import type { Readable, Writable } from 'node:stream';
import { serveMcpHttp, serveMcpStdio, type McpHttpHost } from '../../protocol/mcp-host/mcp-host.ts';
import type { BridgeCore } from '../bridge.ts';
import { createBridgeServer } from './bridge-server.ts';

/** Serves one MCP client on stdin/stdout until it closes stdin. */
export async function serveBridgeStdio(
  core: BridgeCore,
  streams: { readonly stdin?: Readable; readonly stdout?: Writable } = {},
): Promise<void> {
  await serveMcpStdio(createBridgeServer(core), streams);
}

export interface BridgeHttp {
  /** http://HOST:PORT/mcp */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves Streamable HTTP on host:port (0: any free port). */
export async function serveBridgeHttp(
  core: BridgeCore,
  port: number,
  host = '127.0.0.1',
): Promise<BridgeHttp> {
  const served: McpHttpHost = await serveMcpHttp({
    port,
    host,
    connectSession: (transport) => createBridgeServer(core).connect(transport),
  });
  return { url: served.url, port: served.port, close: () => served.close() };
}
