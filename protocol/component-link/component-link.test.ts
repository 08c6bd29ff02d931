// The component link on a real socket against a scripted component port: the XEP-0114 handshake,
// stanzas in stream order, UTF-8 across reads, the refusals (RFC 6120 §11.1, §4.9) and
// reconnection.
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Element } from '@xmpp/xml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AttemptTimeout,
  ComponentLink,
  StepTimeout,
  StreamError,
  type ComponentLinkOptions,
} from './component-link.ts';
import { handshakeDigest } from './stream-texts.ts';
import { FakeComponentServer, STREAM_ID } from './test-support/fake-component-server.ts';

const SECRET = 's3cret';
const RESTRICTED_XML =
  "<stream:error><restricted-xml xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error></stream:stream>";

let server: FakeComponentServer;
let links: ComponentLink[];

beforeEach(async () => {
  server = await FakeComponentServer.listen();
  links = [];
});

afterEach(async () => {
  await Promise.all(links.map((link) => link.stop(50)));
  await server.close();
});

function linkTo(options: Partial<ComponentLinkOptions> = {}): ComponentLink {
  const link = new ComponentLink({
    host: '127.0.0.1',
    port: server.port,
    domain: 'agents.example',
    secret: SECRET,
    stepTimeoutMs: 1000,
    ...options,
  });
  links.push(link);
  return link;
}

/** The stanzas the link emits, as text; `arrived(n)` resolves once there are `n`. */
function stanzasOf(link: ComponentLink): { seen: string[]; arrived(count: number): Promise<void> } {
  const seen: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  link.on('stanza', (stanza: Element) => {
    seen.push(stanza.toString());
    for (const waiter of waiters.filter((w) => w.count <= seen.length)) waiter.resolve();
  });
  return {
    seen,
    arrived: (count: number) =>
      seen.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
  };
}

async function online(
  link: ComponentLink,
  extra = '',
): Promise<ReturnType<FakeComponentServer['handshake']>> {
  const [side] = await Promise.all([server.handshake(extra), link.start()]);
  return side;
}

describe('ComponentLink: the handshake (XEP-0114 #proto)', () => {
  it('opens the stream to its domain and sends the SHA-1 of stream id and secret', async () => {
    const link = linkTo();
    const side = await online(link);
    expect(link.online).toBe(true);
    expect(link.status).toBe('online');
    expect(side.received()).toBe(
      `<?xml version='1.0'?><stream:stream version="1.0" xmlns="jabber:component:accept" xmlns:stream="http://etherx.jabber.org/streams" to="agents.example">` +
        `<handshake>${handshakeDigest(STREAM_ID, SECRET)}</handshake>`,
    );
    expect(handshakeDigest('3BF96D32', 'secret')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('delivers the stanzas that share a read with the handshake answer, after online', async () => {
    const link = linkTo();
    const order: string[] = [];
    link.on('online', () => order.push('online'));
    const stanzas = stanzasOf(link);
    link.on('stanza', (stanza) => order.push(stanza.name));
    await online(link, "<iq type='get' id='1'/><message/><other/><presence/>");
    await stanzas.arrived(3);
    expect(order).toEqual(['online', 'iq', 'message', 'presence']);
  });

  it('rejects with the stream error the server sends (not-authorized for a wrong secret)', async () => {
    const link = linkTo();
    const attempt = link.start();
    const side = await server.accept();
    await side.receives(/<stream:stream [^>]*>$/);
    side.write(
      `<stream:stream xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:component:accept' id='x'>`,
    );
    await side.receives(/<\/handshake>$/);
    side.write(
      "<stream:error><not-authorized xmlns='urn:ietf:params:xml:ns:xmpp-streams'/><text xmlns='urn:ietf:params:xml:ns:xmpp-streams'>no</text></stream:error>",
    );
    const error: unknown = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({ condition: 'not-authorized', text: 'no', message: 'not-authorized - no' });
    expect(link.online).toBe(false);
  });

  it('rejects an answer that is not a handshake, and a header without an id', async () => {
    const link = linkTo();
    const attempt = link.start();
    const side = await server.accept();
    await side.receives(/<stream:stream [^>]*>$/);
    side.write(`<stream:stream xmlns:stream='http://etherx.jabber.org/streams' id='x'><features/>`);
    await expect(attempt).rejects.toThrow('Unexpected server response');

    const second = linkTo();
    const refused = second.start();
    const other = await server.accept();
    await other.receives(/<stream:stream [^>]*>$/);
    other.write(`<stream:stream xmlns:stream='http://etherx.jabber.org/streams'>`);
    await expect(refused).rejects.toThrow(/without an id/);
  });

  it('gives each step the step timeout and the whole attempt its deadline', async () => {
    const silent = linkTo({ stepTimeoutMs: 100 });
    const attempt = silent.start();
    await server.accept();
    await expect(attempt).rejects.toBeInstanceOf(StepTimeout);

    const bounded = linkTo({ stepTimeoutMs: 5000, attemptTimeoutMs: 100 });
    const deadline = bounded.start();
    await server.accept();
    await expect(deadline).rejects.toBeInstanceOf(AttemptTimeout);
  });

  it('rejects with the socket error of a refused connection', async () => {
    const closedPort = createServer();
    closedPort.listen(0, '127.0.0.1');
    await once(closedPort, 'listening');
    const { port } = closedPort.address() as { port: number };
    await new Promise((resolve) => closedPort.close(resolve));
    const link = linkTo({ port });
    await expect(link.start()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('fails an attempt whose server hangs up', async () => {
    const link = linkTo();
    const attempt = link.start();
    const side = await server.accept();
    await side.receives(/<stream:stream [^>]*>$/);
    side.socket.destroy();
    await expect(attempt).rejects.toThrow(/closed the connection/);
  });
});

describe('ComponentLink: reading the stream', () => {
  it('reads a character whose UTF-8 bytes straddle two reads whole (#json-encoding)', async () => {
    const link = linkTo();
    const stanzas = stanzasOf(link);
    const side = await online(link);
    const bytes = Buffer.from("<message id='m'><body>Zoë 🦜 日本</body></message>", 'utf8');
    const inside = bytes.indexOf(Buffer.from('🦜', 'utf8')) + 2;
    const reads = once(link, 'input');
    side.write(bytes.subarray(0, inside));
    await reads;
    side.write(bytes.subarray(inside));
    await stanzas.arrived(1);
    expect(stanzas.seen).toEqual(['<message id="m"><body>Zoë 🦜 日本</body></message>']);
  });

  it.each([
    ['a comment', '<!-- c -->', 'comment'],
    ['a processing instruction', "<?pi x='1'?>", 'processing-instruction'],
    ['a DTD', "<!DOCTYPE x [<!ENTITY e 'v'>]>", 'dtd'],
    ['an undeclared entity', '<message><body>&e;</body></message>', 'entity-reference'],
  ])('refuses %s with <restricted-xml/> and closes (RFC 6120 §11.1)', async (_label, restricted, feature) => {
    const link = linkTo();
    const stanzas = stanzasOf(link);
    const features: string[] = [];
    link.on('restricted', (found) => features.push(found));
    const side = await online(link);
    const offline = once(link, 'offline');
    side.write(`<presence id='before'/>${restricted}<presence id='after'/>`);
    await side.closed;
    await offline;
    expect(features).toEqual([feature]);
    expect(stanzas.seen).toEqual(['<presence id="before"/>']);
    expect(side.received().endsWith(RESTRICTED_XML)).toBe(true);
  });

  it('reads CDATA as character data', async () => {
    const link = linkTo();
    const stanzas = stanzasOf(link);
    const side = await online(link);
    side.write('<message><body>a <![CDATA[<b> & ]]> c</body></message>');
    await stanzas.arrived(1);
    expect(stanzas.seen).toEqual(['<message><body>a &lt;b&gt; &amp;  c</body></message>']);
  });

  it('answers input that is not well-formed with <bad-format/> and a close, reported as an error', async () => {
    const link = linkTo();
    const errors: Error[] = [];
    link.on('error', (error) => errors.push(error));
    const side = await online(link);
    side.write('<message></presence>');
    await side.receives(
      /<bad-format xmlns='urn:ietf:params:xml:ns:xmpp-streams'\/><\/stream:error><\/stream:stream>$/,
    );
    await side.closed;
    expect(errors).toHaveLength(1);
  });

  it('reports a stream error while online and closes the stream politely', async () => {
    const link = linkTo();
    const errors: Error[] = [];
    link.on('error', (error) => errors.push(error));
    const side = await online(link);
    side.write("<stream:error><system-shutdown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>");
    await side.receives(/<\/stream:stream>$/);
    side.write('</stream:stream>');
    await side.closed;
    expect(errors.map((error) => error.message)).toEqual(['system-shutdown']);
  });

  it('closes its own stream and the connection when the server closes its stream (RFC 6120 §4.4)', async () => {
    const link = linkTo();
    const side = await online(link);
    const offline = once(link, 'offline');
    side.write('</stream:stream>');
    await side.receives(/<\/stream:stream>$/);
    await side.closed;
    await offline;
    expect(link.online).toBe(false);
  });
});

describe('ComponentLink: writing, reconnection and stop', () => {
  it('writes what it is given, coalescing one turn of writes', async () => {
    const link = linkTo();
    const side = await online(link);
    await Promise.all([link.write('<presence/>'), link.write("<message to='a@b'/>")]);
    await side.receives(/<presence\/><message to='a@b'\/>$/);
  });

  it('retries a lost stream with the caller’s delays once it has been online', async () => {
    const delays: number[] = [];
    const link = linkTo({ reconnectDelay: (attempt) => (delays.push(attempt), 10) });
    const reconnecting: number[] = [];
    link.on('reconnecting', (attempt) => reconnecting.push(attempt));
    const failed: number[] = [];
    link.on('reconnect-failed', (attempt) => failed.push(attempt));
    const first = await online(link);
    first.socket.destroy();
    // The first retry is hung up on during the handshake, the second succeeds.
    const retry = await server.accept();
    await retry.receives(/<stream:stream [^>]*>$/);
    retry.socket.destroy();
    const back = once(link, 'online');
    await server.handshake();
    await back;
    expect(reconnecting).toEqual([1, 2]);
    expect(failed).toEqual([1]);
    // Online again: the next loss starts counting at 1.
    const again = once(link, 'reconnecting');
    server.connections.at(-1)?.socket.destroy();
    expect((await again)[0]).toBe(1);
  });

  it('drop() ends the socket at once; without a reconnect delay the link stays down', async () => {
    const link = linkTo();
    const side = await online(link);
    const offline = once(link, 'offline');
    link.drop();
    await offline;
    await side.closed;
    await expect(link.write('<presence/>')).rejects.toThrow(/not open/);
    expect(server.connections).toHaveLength(1);
  });

  it('stop() closes the stream politely and does not reconnect', async () => {
    const link = linkTo({ reconnectDelay: () => 10 });
    const side = await online(link);
    const stopped = link.stop(1000);
    await side.receives(/<\/stream:stream>$/);
    side.write('</stream:stream>');
    side.socket.end();
    await stopped;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections).toHaveLength(1);
    expect(link.status).toBe('offline');
  });

  it('stop() settles when the server resets the connection while it closes', async () => {
    const link = linkTo();
    const side = await online(link);
    const stopped = link.stop(1000);
    await side.receives(/<\/stream:stream>$/);
    side.socket.resetAndDestroy();
    await expect(stopped).resolves.toBeUndefined();
    expect(link.status).toBe('offline');
  });

  it('stop() drops a link whose server answers nothing after the grace', async () => {
    const link = linkTo({ reconnectDelay: () => 10 });
    const side = await online(link);
    const started = Date.now();
    await link.stop(30);
    await side.closed;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
