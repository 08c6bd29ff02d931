// Readiness by asking, never by waiting a fixed time: a server is ready for a domain when a stream
// opened to that domain on its port is answered with a stream header of its own (a host that is
// not yet activated answers <host-unknown/> instead, and a port not yet bound refuses).
import { createHash } from 'node:crypto';
import { connect } from 'node:net';

import type { Endpoint } from '../faults/fault-proxy.ts';

export type StreamProbe =
  | {
      readonly endpoint: Endpoint;
      readonly domain: string;
      /** Ready when the stream is answered with stream features. */
      readonly namespace: 'jabber:client' | 'jabber:server';
    }
  | {
      readonly endpoint: Endpoint;
      readonly domain: string;
      /** Ready when a XEP-0114 handshake with this secret succeeds. */
      readonly namespace: 'jabber:component:accept';
      readonly secret: string;
    };

type Answer = 'ready' | 'not-yet';

function probeOnce(probe: StreamProbe, timeoutMs: number): Promise<Answer> {
  const { endpoint, domain, namespace } = probe;
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    let received = '';
    let handshakeSent = false;
    const finish = (answer: Answer): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      finish('not-yet');
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(
        `<?xml version='1.0'?><stream:stream xmlns='${namespace}' ` +
          `xmlns:stream='http://etherx.jabber.org/streams' to='${domain}' version='1.0'>`,
      );
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (handshakeSent && /<stream:error>\s*<conflict\b/.test(received)) {
        // The server checked the secret and routes the domain, but a component holds it
        // already: the server is ready; who holds the domain is for the run to judge and name
        // (harness/sut/stale-gateway.ts), not a reason to wait for the boot deadline.
        finish('ready');
      } else if (received.includes('<stream:error')) {
        finish('not-yet');
      } else if (probe.namespace !== 'jabber:component:accept') {
        if (received.includes('<stream:features')) finish('ready');
      } else if (/<handshake\s*\/>|<handshake><\/handshake>/.test(received)) {
        finish('ready');
      } else if (!handshakeSent) {
        const id = /<stream:stream[^>]*\sid=['"]([^'"]+)['"]/.exec(received)?.[1];
        if (id === undefined) return;
        handshakeSent = true;
        const digest = createHash('sha1')
          .update(id + probe.secret)
          .digest('hex');
        socket.write(`<handshake>${digest}</handshake>`);
      }
    });
    socket.on('error', () => {
      finish('not-yet');
    });
    socket.on('close', () => {
      finish('not-yet');
    });
  });
}

export interface ReadinessOptions {
  readonly deadline: number;
  /** Rejects when waiting is pointless (the server process died); its reason is passed on. */
  readonly abandon?: Promise<never>;
}

/** Resolves once every probe is answered; rejects at the deadline naming what never answered. */
export async function waitForXmppStreams(
  probes: readonly StreamProbe[],
  options: ReadinessOptions,
): Promise<void> {
  const pending = new Set(probes);
  let gaveUp = false;
  const attempt = async (probe: StreamProbe): Promise<void> => {
    // Refusals come back within microseconds; back off a little so a slow start does not spin a core.
    for (let pause = 2; !gaveUp; pause = Math.min(pause * 2, 50)) {
      const remaining = options.deadline - Date.now();
      if (remaining <= 0) break;
      if ((await probeOnce(probe, Math.min(remaining, 1_000))) === 'ready') {
        pending.delete(probe);
        return;
      }
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(pause, Math.max(0, options.deadline - Date.now()))),
      );
    }
    const what = [...pending].map(
      (p) => `${p.namespace} ${p.domain} at ${p.endpoint.host}:${p.endpoint.port}`,
    );
    throw new Error(`not ready before the deadline: ${what.join('; ')}`);
  };
  try {
    await Promise.race([Promise.all(probes.map(attempt)), ...(options.abandon ? [options.abandon] : [])]);
  } finally {
    gaveUp = true;
  }
}
