import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { allocateLoopbackAddresses, releaseLoopbackAddresses } from '../federation/loopback-addresses.ts';
import { FaultProxy } from './fault-proxy.ts';

/** Node timers fire on whole milliseconds of Date.now(), which can trail performance.now(). */
const TIMER_GRANULARITY_MS = 1;

/** The far side of the proxy: records what arrives on each connection and echoes it. */
class Upstream {
  readonly sockets: Socket[] = [];
  received = '';
  private constructor(
    readonly server: Server,
    readonly port: number,
  ) {}

  static async start(host: string, port = 0): Promise<Upstream> {
    const server = createServer({ allowHalfOpen: true });
    server.listen({ host, port });
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const upstream = new Upstream(server, address.port);
    server.on('connection', (socket) => {
      upstream.sockets.push(socket);
      socket.on('error', () => undefined);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        upstream.received += chunk;
        socket.write(chunk);
      });
      socket.on('end', () => socket.end());
    });
    return upstream;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function open(proxy: FaultProxy): Promise<Socket> {
  const socket = connect({ host: proxy.listen.host, port: proxy.listen.port });
  socket.setEncoding('utf8');
  await once(socket, 'connect');
  return socket;
}

/** Resolves with everything read once `text` has been read (the socket must be in utf8 mode). */
function readUntil(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: string): void => {
      seen += chunk;
      if (seen.includes(text)) {
        socket.off('data', onData);
        resolve(seen);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => {
      reject(new Error(`closed before ${text} arrived (got ${JSON.stringify(seen)})`));
    });
  });
}

/** Resolves with the error code when the socket is closed by a reset. */
function resetObserved(socket: Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code);
    });
  });
}

describe('FaultProxy', () => {
  let addresses: string[];
  let upstream: Upstream;
  let proxy: FaultProxy;
  const clients: Socket[] = [];

  beforeEach(async () => {
    addresses = await allocateLoopbackAddresses(2, []);
    const [proxyHost = '', upstreamHost = ''] = addresses;
    upstream = await Upstream.start(upstreamHost);
    proxy = await FaultProxy.start({
      name: 'test link',
      listen: { host: proxyHost, port: 0 },
      target: { host: upstreamHost, port: upstream.port },
    });
  });
  const client = async (): Promise<Socket> => {
    const socket = await open(proxy);
    clients.push(socket);
    return socket;
  };

  afterEach(async () => {
    for (const socket of clients.splice(0)) socket.destroy();
    await proxy.close();
    await upstream.close();
    releaseLoopbackAddresses(addresses);
  });

  it('forwards both directions and passes a half-close on', async () => {
    const socket = await client();
    const echoed = readUntil(socket, 'hello');
    socket.write('hello');
    expect(await echoed).toBe('hello');
    expect(upstream.received).toBe('hello');
    const ended = once(socket, 'end');
    socket.end();
    await ended;
    expect(proxy.acceptedConnections).toBe(1);
  });

  it('reads what the connecting side sends stanza by stanza and holds from the one a tap picks', async () => {
    proxy.inspectStanzas();
    const seen: string[] = [];
    proxy.on('stanza', (stanza) => seen.push(stanza.name));
    proxy.tap((stanza) => (stanza.name === 'hold' ? 'hold' : 'forward'));
    const socket = await client();
    const header =
      "<stream:stream xmlns='jabber:component:accept' xmlns:stream='http://etherx.jabber.org/streams'>";
    const first = readUntil(socket, '<a x="1"/>');
    socket.write(`${header}<a x="1`);
    socket.write('"/>');
    await first;
    // The upstream echoes what reaches it: the echo proves the bytes before the held stanza
    // arrived there, not merely left the proxy.
    // The rest of the held stanza goes only after its head came back: written at once, the two
    // writes can reach the proxy as one chunk, and a whole <hold/> is held before any byte of it.
    const headOfHeld = readUntil(socket, '<ho');
    socket.write('<ho');
    await headOfHeld;
    socket.write('ld/><b/>');
    await proxy.waitFor('held', () => proxy.heldConnections === 1);
    // Reported as written, held or not.
    expect(seen).toEqual(['a', 'hold', 'b']);
    expect(upstream.received).toBe(`${header}<a x="1"/><ho`);
    // Several stanzas in one chunk: those before the held one still go.
    const before = readUntil(socket, '<c>é</c>');
    proxy.releaseHeld();
    socket.write('<c>é</c><hold/><d/>');
    await before;
    await proxy.waitFor('held', () => proxy.heldConnections === 1);
    expect(upstream.received).toBe(`${header}<a x="1"/><hold/><b/><c>é</c>`);
    expect(seen).toEqual(['a', 'hold', 'b', 'c', 'hold', 'd']);
    const rest = readUntil(socket, '<d/>');
    proxy.releaseHeld();
    await rest;
    expect(upstream.received).toBe(`${header}<a x="1"/><hold/><b/><c>é</c><hold/><d/>`);
  });

  it('delays every byte in both directions, keeping their order, until restored', async () => {
    const socket = await client();
    proxy.delay(120);
    const began = performance.now();
    const echoed = readUntil(socket, 'abc');
    socket.write('a');
    await proxy.waitFor('held', () => proxy.heldBytes === 1);
    proxy.delay(0);
    // A shorter delay later must not let 'b' overtake 'a'.
    socket.write('b');
    socket.write('c');
    expect(await echoed).toBe('abc');
    // The proxy schedules on Date.now() with millisecond timers, so a due time can land up to a
    // millisecond before the same instant on performance.now(): allow that much, no more.
    expect(performance.now() - began).toBeGreaterThanOrEqual(120 - TIMER_GRANULARITY_MS);

    proxy.delay(100);
    const slow = performance.now();
    const again = readUntil(socket, 'x');
    socket.write('x');
    await again;
    // There and back: two delays.
    expect(performance.now() - slow).toBeGreaterThanOrEqual(200 - 2 * TIMER_GRANULARITY_MS);
    proxy.restore();
    expect(proxy.delayMs).toBe(0);
    expect(() => {
      proxy.delay(-1);
    }).toThrow(RangeError);
  });

  it('cut resets both sides of open connections and still accepts new ones', async () => {
    const socket = await client();
    const echoed = readUntil(socket, 'one');
    socket.write('one');
    await echoed;
    const [upstreamSide] = upstream.sockets;
    if (upstreamSide === undefined) throw new Error('upstream saw no connection');
    const clientReset = resetObserved(socket);
    const upstreamReset = resetObserved(upstreamSide);

    proxy.cut();
    expect(await clientReset).toBe('ECONNRESET');
    expect(await upstreamReset).toBe('ECONNRESET');

    const fresh = await client();
    const again = readUntil(fresh, 'two');
    fresh.write('two');
    expect(await again).toBe('two');
  });

  it('blackhole accepts and forwards nothing; restore resets the damaged connections', async () => {
    const old = await client();
    proxy.blackhole();
    old.write('lost');
    await proxy.waitFor('dropped', () => true);
    const fresh = await client();
    fresh.write('also lost');
    await proxy.waitFor('dropped', () => true);
    expect(upstream.received).toBe('');
    // The connection made during the blackhole never reached upstream.
    expect(upstream.sockets).toHaveLength(1);

    const oldReset = resetObserved(old);
    const freshReset = resetObserved(fresh);
    proxy.restore();
    expect(await oldReset).toBe('ECONNRESET');
    expect(await freshReset).toBe('ECONNRESET');

    const after = await client();
    const echoed = readUntil(after, 'back');
    after.write('back');
    expect(await echoed).toBe('back');
  });

  it('freeze holds bytes in order and resume flushes them', async () => {
    const socket = await client();
    proxy.freeze();
    socket.write('abc');
    await proxy.waitFor('held', () => proxy.heldBytes === 3);
    expect(proxy.heldBytesTowardsTarget).toBe(3);
    expect(upstream.received).toBe('');
    socket.write('def');
    await proxy.waitFor('held', () => proxy.heldBytes === 6);
    expect(upstream.received).toBe('');

    const echoed = readUntil(socket, 'abcdef');
    proxy.resume();
    expect(await echoed).toBe('abcdef');
    expect(proxy.heldBytes).toBe(0);
    expect(upstream.received).toBe('abcdef');
    expect(proxy.mode).toBe('forward');
  });

  it('restore also ends a freeze, delivering what was held', async () => {
    const socket = await client();
    proxy.freeze();
    socket.write('held');
    await proxy.waitFor('held', () => proxy.heldBytes === 4);
    const echoed = readUntil(socket, 'held');
    proxy.restore();
    expect(await echoed).toBe('held');
  });

  it('holds a connection made before the target is ready, then forwards it', async () => {
    // Nothing listens at the target until `ready`: a connection that went upstream early would be refused.
    await upstream.close();
    let ready: () => void = () => undefined;
    proxy.holdUntil(
      new Promise<void>((resolve) => {
        ready = resolve;
      }),
    );
    const socket = await client();
    const echoed = readUntil(socket, 'early');
    socket.write('early');
    upstream = await Upstream.start(proxy.target.host, proxy.target.port);
    ready();
    expect(await echoed).toBe('early');
    expect(proxy.acceptedConnections).toBe(1);
    // Once ready, new connections go straight through.
    const later = await client();
    const again = readUntil(later, 'later');
    later.write('later');
    expect(await again).toBe('later');
  });

  it('resets the connections it holds when the target never becomes ready', async () => {
    let fail: (error: Error) => void = () => undefined;
    proxy.holdUntil(
      new Promise<void>((_resolve, reject) => {
        fail = reject;
      }),
    );
    const socket = await client();
    const reset = resetObserved(socket);
    fail(new Error('the server did not start'));
    expect(await reset).toBe('ECONNRESET');
    expect(proxy.acceptedConnections).toBe(0);
  });

  it('resets the client when the target refuses', async () => {
    await upstream.close();
    const socket = await client();
    const reset = resetObserved(socket);
    expect(await reset).toBe('ECONNRESET');
    await proxy.waitFor('closed', () => proxy.openConnections === 0);
  });
});
