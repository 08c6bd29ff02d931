// Every run gets addresses of its own in 127.0.0.0/8 (all of which are loopback on Linux), so that
// well-known ports (5222, 5269, 5347) can be used without two runs — or anything else on the machine —
// ever meeting. An address is taken only after the ports we need on it were bound and released.
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** Addresses handed out by this process; other processes are kept apart by the bind check. */
const taken = new Set<string>();

function randomLoopbackAddress(): string {
  // 127.0.0.x is left to the machine's own services (resolvers on 127.0.0.53 and the like).
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}`;
}

/** Why the latest bind check failed (EADDRINUSE, EMFILE, …), for the error when none succeeds. */
let lastBindFailure = 'none';

async function tcpPortIsFree(host: string, port: number): Promise<boolean> {
  const server = createServer();
  try {
    server.listen({ host, port, exclusive: true });
    await once(server, 'listening');
    return true;
  } catch (error) {
    lastBindFailure = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    return false;
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}

async function allPortsFree(host: string, ports: readonly number[]): Promise<boolean> {
  const results = await Promise.all(ports.map((port) => tcpPortIsFree(host, port)));
  return results.every(Boolean);
}

/** `count` distinct fresh loopback addresses on which every port in `ports` is free for TCP. */
export async function allocateLoopbackAddresses(count: number, ports: readonly number[]): Promise<string[]> {
  const one = async (): Promise<string> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const candidate = randomLoopbackAddress();
      if (taken.has(candidate)) continue;
      taken.add(candidate);
      if (await allPortsFree(candidate, ports)) return candidate;
    }
    throw new Error(
      `no free loopback address found in 100 tries (last bind failure: ${lastBindFailure}; is 127.0.0.0/8 routed to lo?)`,
    );
  };
  return Promise.all(Array.from({ length: count }, one));
}

/** Gives addresses back to this process's pool once their run is over. */
export function releaseLoopbackAddresses(addresses: readonly string[]): void {
  for (const address of addresses) taken.delete(address);
}

/** A UDP port on `host` that nothing listens on: a resolver forwarding there fails at once. */
export async function deadUdpPort(host: string): Promise<number> {
  const socket = createSocket('udp4');
  socket.bind({ address: host, port: 0, exclusive: true });
  await once(socket, 'listening');
  const { port } = socket.address();
  await new Promise<void>((resolve) => {
    socket.close(() => {
      resolve();
    });
  });
  return port;
}
