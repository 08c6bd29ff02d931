/**
 * A component port on 127.0.0.1 that the test scripts byte by byte: it records what each
 * connection sent and lets the test write anything back, so the link's handshake, refusals and
 * reconnections are seen on a real socket.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

export const STREAM_ID = 'link-test-1';

export interface ServerSide {
  readonly socket: Socket;
  /** Everything the link sent on this connection, as text. */
  received(): string;
  /** Resolves once what the link sent matches `pattern`. */
  receives(pattern: RegExp): Promise<string>;
  write(text: string | Buffer): void;
  readonly closed: Promise<void>;
}

export class FakeComponentServer {
  readonly #server: Server;
  readonly #waiting: ((side: ServerSide) => void)[] = [];
  readonly #accepted: ServerSide[] = [];
  readonly connections: ServerSide[] = [];

  private constructor(server: Server) {
    this.#server = server;
    server.on('connection', (socket) => {
      const side = serverSide(socket);
      this.connections.push(side);
      const waiter = this.#waiting.shift();
      if (waiter === undefined) this.#accepted.push(side);
      else waiter(side);
    });
  }

  static async listen(): Promise<FakeComponentServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new FakeComponentServer(server);
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** The next connection the link opens. */
  accept(): Promise<ServerSide> {
    const ready = this.#accepted.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Accepts the next connection and completes the handshake (answers the header and the digest). */
  async handshake(extra = ''): Promise<ServerSide> {
    const side = await this.accept();
    await side.receives(/<stream:stream [^>]*>$/);
    side.write(
      `<?xml version='1.0'?><stream:stream xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:component:accept' from='agents.example' id='${STREAM_ID}'>`,
    );
    await side.receives(/<handshake>[0-9a-f]{40}<\/handshake>$/);
    side.write(`<handshake/>${extra}`);
    return side;
  }

  async close(): Promise<void> {
    for (const side of this.connections) side.socket.destroy();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }
}

function serverSide(socket: Socket): ServerSide {
  let text = '';
  const waiters: { pattern: RegExp; resolve: (text: string) => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(text);
      }
    }
  });
  socket.on('error', () => undefined);
  const closed = once(socket, 'close').then(() => undefined);
  return {
    socket,
    received: () => text,
    receives: (pattern) =>
      pattern.test(text)
        ? Promise.resolve(text)
        : new Promise((resolve) => waiters.push({ pattern, resolve })),
    write: (data) => {
      if (!socket.destroyed) socket.write(data);
    },
    closed,
  };
}
