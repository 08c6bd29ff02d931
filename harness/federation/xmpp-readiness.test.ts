/**
 * The component port's readiness: a server that checks the secret and then refuses the handshake
 * with conflict (another component holds the domain, as Prosody's mod_component answers) is
 * ready; the run names the holder instead of waiting out the boot deadline.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForXmppStreams } from './xmpp-readiness.ts';

const STREAMS = 'urn:ietf:params:xml:ns:xmpp-streams';
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A component port that answers every handshake with `answer`. */
async function componentPort(answer: string): Promise<{ host: string; port: number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    // A probe that gives up at its deadline may reset the connection while this end still reads
    // (CI saw an uncaught ECONNRESET here): the test judges the probe, not this stand-in.
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    let opened = false;
    socket.on('data', (chunk: string) => {
      if (!opened && chunk.includes('<stream:stream')) {
        opened = true;
        socket.write(
          `<?xml version='1.0'?><stream:stream xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:component:accept' id='s1' from='agents.example'>`,
        );
      }
      if (chunk.includes('<handshake>')) socket.end(answer);
    });
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

const probe = (endpoint: { host: string; port: number }) =>
  [{ endpoint, domain: 'agents.example', namespace: 'jabber:component:accept', secret: 's' }] as const;

describe('the component port readiness', () => {
  it('is ready when the handshake succeeds', async () => {
    const endpoint = await componentPort('<handshake/>');
    await expect(
      waitForXmppStreams(probe(endpoint), { deadline: Date.now() + 5_000 }),
    ).resolves.toBeUndefined();
  });

  it('is ready when the handshake is refused with conflict: the domain is held, the server is up', async () => {
    const endpoint = await componentPort(
      `<stream:error><conflict xmlns='${STREAMS}'/><text xmlns='${STREAMS}'>Component already connected</text></stream:error></stream:stream>`,
    );
    await expect(
      waitForXmppStreams(probe(endpoint), { deadline: Date.now() + 5_000 }),
    ).resolves.toBeUndefined();
  });

  it('is not ready when the secret is refused', async () => {
    const endpoint = await componentPort(
      `<stream:error><not-authorized xmlns='${STREAMS}'/></stream:error></stream:stream>`,
    );
    await expect(waitForXmppStreams(probe(endpoint), { deadline: Date.now() + 300 })).rejects.toThrow(
      /not ready before the deadline: jabber:component:accept agents\.example/,
    );
  });
});
