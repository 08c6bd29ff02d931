// A Docker engine for tests without Docker: an HTTP server on a unix socket of the test's own,
// answering the few calls testcontainers' client and the harness make from a table of facts.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeEngineFacts {
  readonly version: string;
  readonly apiVersion: string;
  /** Images it has, by name:tag. */
  readonly images: readonly string[];
  /** What each container logged, as the engine sends it (multiplexed frames without a TTY). */
  readonly logs: ReadonlyMap<string, Buffer>;
}

export interface FakeDockerEngine {
  readonly socketPath: string;
  /** The DOCKER_HOST value that points testcontainers at it. */
  readonly dockerHost: string;
  /** `METHOD /path` of every call, in order. */
  readonly calls: readonly string[];
  close(): Promise<void>;
}

/** One frame of the engine's multiplexed stream: 1 stdout, 2 stderr. */
export function logFrame(stream: 1 | 2, text: string): Buffer {
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(Buffer.byteLength(text), 4);
  return Buffer.concat([head, Buffer.from(text)]);
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
}

export async function startFakeDockerEngine(facts: FakeEngineFacts): Promise<FakeDockerEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'agentconf-fake-docker-'));
  const socketPath = join(dir, 'docker.sock');
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://docker').pathname);
    calls.push(`${request.method ?? ''} ${path}`);
    const image = /^\/images\/(.+)\/json$/.exec(path)?.[1];
    const logsOf = /^\/containers\/([^/]+)\/logs$/.exec(path)?.[1];
    if (path === '/info') {
      json(response, 200, { ServerVersion: facts.version, OperatingSystem: 'fake', OSType: 'linux' });
    } else if (path === '/version') {
      json(response, 200, { Version: facts.version, ApiVersion: facts.apiVersion });
    } else if (image !== undefined && facts.images.includes(image)) {
      json(response, 200, { Id: `sha256:${image}` });
    } else if (image !== undefined) {
      json(response, 404, { message: `No such image: ${image}` });
    } else if (logsOf !== undefined && facts.logs.has(logsOf)) {
      response.end(facts.logs.get(logsOf));
    } else {
      json(response, 404, { message: `page not found: ${path}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    dockerHost: `unix://${socketPath}`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
