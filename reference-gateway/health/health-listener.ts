/**
 * The optional HTTP listener of the gateway (config `health`): node:http serving
 * respondToHealthRequest. Port 0 binds any free port; the bound address is what `address`
 * holds and what the caller logs, so tests never need a fixed port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { respondToHealthRequest, type HealthState } from './health-handlers.ts';

export class HealthListenError extends Error {
  override readonly name = 'HealthListenError';
}

export interface HealthListener {
  /** Where it listens (the real port when 0 was asked for). */
  readonly address: { readonly host: string; readonly port: number };
  /** The base URL, e.g. http://127.0.0.1:41234 (IPv6 hosts in brackets). */
  readonly url: string;
  /** Stops listening and ends open connections. Idempotent. */
  close(): Promise<void>;
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
}

export async function startHealthListener(
  options: { readonly host: string; readonly port: number },
  state: HealthState,
): Promise<HealthListener> {
  const server: Server = createServer((request, response) => {
    const answer = respondToHealthRequest(request.method, request.url, state);
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  });
  // Probes come and go; a kept-alive idle socket must not hold the process at stop.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      const code = 'code' in error && typeof error.code === 'string' ? error.code : error.message;
      reject(new HealthListenError(`cannot listen on ${urlOf(options.host, options.port)} (${code})`));
    };
    server.once('error', failed);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    address: { host: bound.address, port: bound.port },
    url: urlOf(bound.address, bound.port),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
