// FaultProxy.inject on real loopback sockets: raw bytes reach the connecting side (the gateway, on
// the component link) between two of the target's stanzas, never inside one, however the target's
// stanzas are cut into TCP chunks; in order with what is forwarded; and a link that is closed,
// ended or not open yet gives an answer (0 or a rejection), never a promise that hangs.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { allocateLoopbackAddresses, releaseLoopbackAddresses } from '../federation/loopback-addresses.ts';
import { FaultProxy } from './fault-proxy.ts';

const HEADER =
  "<?xml version='1.0'?><stream:stream xmlns='jabber:component:accept' xmlns:stream='http://etherx.jabber.org/streams' id='s1' from='agents.example'>";
/** Longest any single wait may take: a test that would hang fails fast instead. */
const WAIT_MS = 2_000;

/** Rejects when `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what}: not settled within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` has settled, once what is already queued has run. */
async function state(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  let settled: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (settled = 'resolved'),
    () => (settled = 'rejected'),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

/** The target (the server on the component link): hands each accepted socket to the test. */
class Target {
  readonly sockets: Socket[] = [];
  readonly #waiting: ((socket: Socket) => void)[] = [];
  #taken = 0;
  private constructor(
    readonly server: Server,
    readonly port: number,
  ) {}

  static async start(host: string): Promise<Target> {
    const server = createServer({ allowHalfOpen: true });
    server.listen({ host, port: 0 });
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const target = new Target(server, address.port);
    server.on('connection', (socket) => {
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      target.sockets.push(socket);
      target.#waiting.shift()?.(socket);
    });
    return target;
  }

  /** The next connection the proxy made, in the order they came. */
  accepted(): Promise<Socket> {
    const next = this.sockets[this.#taken];
    this.#taken += 1;
    if (next !== undefined) return Promise.resolve(next);
    return within(
      new Promise((resolve) => this.#waiting.push(resolve)),
      'the proxy connecting to the target',
    );
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The connecting side (the gateway): keeps every byte it reads. */
class Gateway {
  #bytes = Buffer.alloc(0);
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#bytes = Buffer.concat([this.#bytes, chunk]);
    });
    socket.on('error', () => undefined);
  }

  static async connect(proxy: FaultProxy): Promise<Gateway> {
    const socket = connect({ host: proxy.listen.host, port: proxy.listen.port });
    socket.setNoDelay(true);
    await within(once(socket, 'connect'), 'connecting to the proxy');
    return new Gateway(socket);
  }

  get received(): string {
    return this.#bytes.toString('utf8');
  }

  /** Resolves once `count` bytes in all have been read. */
  async bytes(count: number): Promise<void> {
    const reached = (): boolean => this.#bytes.length >= count;
    if (reached()) return;
    await within(
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!reached()) return;
          this.socket.off('data', check).off('close', closed);
          resolve();
        };
        const closed = (): void => {
          reject(new Error(`closed after ${String(this.#bytes.length)} of ${String(count)} bytes`));
        };
        this.socket.on('data', check).once('close', closed);
      }),
      `reading ${String(count)} bytes (have ${String(this.#bytes.length)}: ${JSON.stringify(this.received)})`,
    );
  }
}

/** One proxied connection, with the number of bytes the gateway must have read by now. */
class Link {
  #expected = 0;
  constructor(
    readonly gateway: Gateway,
    readonly server: Socket,
  ) {}

  /**
   * Writes `text` as one TCP chunk from the target and waits until it has gone through the
   * proxy, with `released` (bytes injected earlier that this chunk lets through) before its end.
   */
  async send(text: string | Buffer, released: string | Buffer = ''): Promise<void> {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    this.#expected += bytes.length + Buffer.byteLength(released);
    this.server.write(bytes);
    await this.gateway.bytes(this.#expected);
  }

  /** Waits for bytes injected at a boundary (written without a chunk from the target). */
  async injected(text: string | Buffer): Promise<void> {
    this.#expected += Buffer.byteLength(text);
    await this.gateway.bytes(this.#expected);
  }
}

describe('FaultProxy.inject', () => {
  let addresses: string[];
  let target: Target;
  let proxy: FaultProxy;
  const gateways: Gateway[] = [];
  const proxies: FaultProxy[] = [];

  beforeEach(async () => {
    addresses = await allocateLoopbackAddresses(2, []);
    const [proxyHost = '', targetHost = ''] = addresses;
    target = await Target.start(targetHost);
    proxy = await FaultProxy.start({
      name: 'component link',
      listen: { host: proxyHost, port: 0 },
      target: { host: targetHost, port: target.port },
      inspectStanzas: true,
    });
    proxies.push(proxy);
  });

  afterEach(async () => {
    for (const gateway of gateways.splice(0)) gateway.socket.destroy();
    for (const one of proxies.splice(0)) await one.close();
    await target.close();
    releaseLoopbackAddresses(addresses);
  });

  /** A gateway connected through the proxy and the target's side of that connection. */
  async function link(header = HEADER): Promise<Link> {
    const gateway = await Gateway.connect(proxy);
    gateways.push(gateway);
    const opened = new Link(gateway, await target.accepted());
    if (header !== '') await opened.send(header);
    return opened;
  }

  it('writes at once between two stanzas, in order with the stanzas forwarded before and after', async () => {
    const component = await link();
    // Whitespace (a keepalive) after the stanza is still between two stanzas.
    await component.send('<presence/>\n ');
    expect(await within(proxy.inject("<message id='x1'/>"), 'inject')).toBe(1);
    expect(await within(proxy.inject(Buffer.from('<x2/>')), 'inject')).toBe(1);
    await component.injected("<message id='x1'/><x2/>");
    await component.send('\n <iq/>');
    expect(component.gateway.received).toBe(`${HEADER}<presence/>\n <message id='x1'/><x2/>\n <iq/>`);
  });

  it('never writes inside a stanza, wherever the stanza under way is cut into TCP chunks', async () => {
    const component = await link();
    // A '>' in attribute values (at the top level and below), multi-byte UTF-8, a reference.
    const stanza = Buffer.from(
      `<iq id='a>b' type="set" to='gw.example'><q xmlns='urn:x' v="1 > 0">é😀 &amp; 中</q></iq>`,
      'utf8',
    );
    for (let cut = 1; cut < stanza.length; cut += 1) {
      const injection = `<x n='${String(cut)}'/>`;
      await component.send(stanza.subarray(0, cut));
      const injected = proxy.inject(injection);
      expect(await state(injected), `cut at byte ${String(cut)}`).toBe('pending');
      // What completes the stanza also carries the next one: the bytes go between the two.
      await component.send(Buffer.concat([stanza.subarray(cut), Buffer.from('<presence/>')]), injection);
      expect(await within(injected, 'inject')).toBe(1);
      expect(
        component.gateway.received.endsWith(`${stanza.toString('utf8')}${injection}<presence/>`),
        `cut at byte ${String(cut)}`,
      ).toBe(true);
    }
  });

  it('waits across several chunks of one stanza and then writes every pending injection in order', async () => {
    const component = await link();
    // Right after the stream header: a boundary.
    expect(await within(proxy.inject('<one/>'), 'inject after the header')).toBe(1);
    await component.injected('<one/>');
    const emoji = Buffer.from('😀', 'utf8');
    await component.send("<message to='a@b'><body>");
    const second = proxy.inject('<two/>');
    const third = proxy.inject(Buffer.from('<three/>'));
    await component.send(Buffer.concat([Buffer.from('x'), emoji.subarray(0, 1)]));
    await component.send(emoji.subarray(1, 3));
    expect([await state(second), await state(third)]).toEqual(['pending', 'pending']);
    await component.send(Buffer.concat([emoji.subarray(3), Buffer.from('</body></message')]));
    expect(component.gateway.received).toBe(`${HEADER}<one/><message to='a@b'><body>x😀</body></message`);
    await component.send('>', '<two/><three/>');
    expect(await within(Promise.all([second, third]), 'pending injections')).toEqual([1, 1]);
    await component.send('<iq/>');
    expect(component.gateway.received).toBe(
      `${HEADER}<one/><message to='a@b'><body>x😀</body></message><two/><three/><iq/>`,
    );
  });

  it('keeps its place among delayed stanzas', async () => {
    const component = await link();
    proxy.delay(60);
    component.server.write('<a/>');
    await proxy.waitFor('held', () => proxy.heldBytesTowardsClient > 0, WAIT_MS);
    // The stanza is read (a boundary) but not yet forwarded: the bytes queue behind it.
    expect(await within(proxy.inject('<x/>'), 'inject')).toBe(1);
    await component.send('<b/>', '<a/><x/>');
    expect(component.gateway.received).toBe(`${HEADER}<a/><x/><b/>`);
  });

  it('is queued behind a freeze and flushed in order on resume', async () => {
    const component = await link();
    proxy.freeze();
    component.server.write('<a/><b');
    await proxy.waitFor('held', () => proxy.heldBytesTowardsClient === 6, WAIT_MS);
    const injected = proxy.inject('<x/>');
    expect(await state(injected)).toBe('pending');
    component.server.write(' c="1"/><d/>');
    // Queued (so resolved) while frozen; nothing reached the gateway.
    expect(await within(injected, 'inject while frozen')).toBe(1);
    expect(component.gateway.received).toBe(HEADER);
    proxy.resume();
    await component.injected('<a/><b c="1"/><x/><d/>');
    expect(component.gateway.received).toBe(`${HEADER}<a/><b c="1"/><x/><d/>`);
  });

  it('resolves with 0 when no link is open, before the first connection and after the last one closed', async () => {
    expect(await within(proxy.inject('<x/>'), 'inject with no connection')).toBe(0);
    const component = await link();
    await component.send('<a/>');
    const closed = proxy.waitFor('closed', () => proxy.openConnections === 0, WAIT_MS);
    component.server.destroy();
    component.gateway.socket.destroy();
    await closed;
    expect(await within(proxy.inject('<x/>'), 'inject after the link closed')).toBe(0);
  });

  it('rejects a pending injection when the link is cut, instead of hanging', async () => {
    const component = await link();
    await component.send("<iq id='1'><q>");
    const injected = proxy.inject('<x/>');
    expect(await state(injected)).toBe('pending');
    proxy.cut();
    await expect(within(injected, 'inject on a cut link')).rejects.toThrow(/closed|reset|ended/);
  });

  it('rejects a pending injection when the target ends the connection mid-stanza', async () => {
    const component = await link();
    await component.send("<iq id='1'><q>");
    const injected = proxy.inject('<x/>');
    const fin = within(once(component.gateway.socket, 'end'), 'the FIN reaching the gateway');
    component.server.end();
    await expect(within(injected, 'inject on an ended link')).rejects.toThrow(/ended/);
    // The gateway still gets the FIN, and nothing after what the target sent.
    await fin;
    expect(component.gateway.received).toBe(`${HEADER}<iq id='1'><q>`);
  });

  it("refuses once the target's stream is closed: nothing is written after </stream:stream>", async () => {
    const component = await link();
    await component.send('<a/></stream:stream>');
    await expect(within(proxy.inject('<x/>'), 'inject after the stream closed')).rejects.toThrow(/stream/);
    expect(component.gateway.received).toBe(`${HEADER}<a/></stream:stream>`);
  });

  it('waits on a link not established yet for its first stanza, or rejects when it fails', async () => {
    // Connected, but the target has not sent its stream header: no boundary is known.
    const component = await link('');
    const injected = proxy.inject('<x/>');
    expect(await state(injected)).toBe('pending');
    await component.send(HEADER);
    expect(await state(injected)).toBe('pending');
    await component.send('<handshake/><a/>', '<x/>');
    expect(await within(injected, 'inject')).toBe(1);
    expect(component.gateway.received).toBe(`${HEADER}<handshake/><x/><a/>`);

    // A second connection whose target side goes away before its header.
    const again = await link('');
    const lost = proxy.inject('<y/>');
    expect(await state(lost)).toBe('pending');
    again.server.destroy();
    await expect(within(lost, 'inject on a link that never opened')).rejects.toThrow(/ended|closed|reset/);
  });

  it("finds the boundaries of a stream whose XML declaration is split between '?' and '>'", async () => {
    const component = await link('');
    const injected = proxy.inject('<x/>');
    const split = HEADER.indexOf('?>') + 1;
    await component.send(HEADER.slice(0, split));
    await component.send(HEADER.slice(split));
    await component.send('<handshake/>', '<x/>');
    expect(await within(injected, 'inject')).toBe(1);
    expect(component.gateway.received).toBe(`${HEADER}<handshake/><x/>`);
  });

  it('refuses at once on a link whose stanzas are not inspected', async () => {
    const [proxyHost = '', targetHost = ''] = addresses;
    const plain = await FaultProxy.start({
      name: 'plain link',
      listen: { host: proxyHost, port: 0 },
      target: { host: targetHost, port: target.port },
    });
    proxies.push(plain);
    const gateway = await Gateway.connect(plain);
    gateways.push(gateway);
    const component = new Link(gateway, await target.accepted());
    await component.send(`${HEADER}<a/>`);
    await expect(within(plain.inject('<x/>'), 'inject')).rejects.toThrow(/only an inspected link/);
  });
});
