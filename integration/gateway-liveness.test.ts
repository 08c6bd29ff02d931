// The running gateway (startGatewayRuntime, as `agentconf gateway` starts it) against a real
// native federation whose component link goes through a fault proxy: inactivity pings notice a
// link that went silent, pending outbound IQs fail when the stream drops, the gateway reconnects
// and answers again, and /ready follows the component link.
import { request } from 'node:http';
import { xml } from '@xmpp/xml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { NS } from '../protocol/namespaces.ts';
import { BOB, GATEWAY, useGatewayFederation } from './test-support/gateway-federation.ts';
import type { GatewayComponent, GatewayEvent } from '../reference-gateway/component/gateway-component.ts';
import type { GatewayRuntime } from '../reference-gateway/component/gateway-runtime.ts';
import { OutboundIqError } from '../reference-gateway/component/outbound-iq.ts';

const PING = xml('ping', { xmlns: NS.ping });

/** Resolves on the gateway's next `event`, or fails the test after `ms`. */
function nextWithin(gateway: GatewayComponent, event: GatewayEvent, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no '${event}' within ${String(ms)} ms`));
    }, ms);
    const off = gateway.on(event, () => {
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

function httpGet(runtime: GatewayRuntime, path: string): Promise<{ status: number; body: unknown }> {
  const listener = runtime.health;
  if (listener === undefined) throw new Error('no health listener');
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: listener.address.host, port: listener.address.port, path },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('gateway liveness on a native federation', () => {
  const running = useGatewayFederation({
    runtime: true,
    config: {
      health: { port: 0 },
      // Short enough for a test; the defaults (60 s / 10 s) are for production.
      keepalive: { idleSeconds: 0.3, timeoutSeconds: 0.6 },
      reconnect: { initialDelaySeconds: 0.05, maxDelaySeconds: 0.4, attemptTimeoutSeconds: 1 },
    },
  });
  let federation: Federation;
  let bob: Caller;
  let runtime: GatewayRuntime;
  let log: readonly string[];

  beforeAll(async () => {
    ({ federation, runtime, log } = running());
    bob = await running().caller(BOB, 'desk');
  });

  it('logs the bound health address and answers /health and /ready while online', async () => {
    expect(log).toContain(`gateway: health listener on ${runtime.health?.url ?? '?'}`);
    expect(runtime.health?.address.port).toBeGreaterThan(0);
    expect(await httpGet(runtime, '/health')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await httpGet(runtime, '/ready')).toEqual({
      status: 200,
      body: { ready: true, component: 'online', store: 'open' },
    });
  });

  it('pings its server when the stream is quiet, and a live server keeps it online', async () => {
    const { gateway } = runtime;
    let dead = 0;
    const off = gateway.on('dead', () => (dead += 1));
    try {
      await nextWithin(gateway, 'ping');
      await nextWithin(gateway, 'ping');
      expect(dead).toBe(0);
      expect(gateway.online).toBe(true);
      // The ping target answers: Prosody's mod_ping at server.example.
      const reply = await gateway.iq({ to: 'server.example', type: 'get', payload: PING, timeoutMs: 5000 });
      expect(reply).toMatchObject({ type: 'result', from: 'server.example' });
      // The fallback target without local domains: the server routes a ping to the component's
      // own domain back over the same stream, and the gateway answers itself.
      const loop = await gateway.iq({ to: GATEWAY, type: 'get', payload: PING, timeoutMs: 5000 });
      expect(loop).toMatchObject({ type: 'result', from: GATEWAY });
    } finally {
      off();
    }
  });

  it('notices a blackholed link by the unanswered ping, reconnects once it is back, answers again', async () => {
    const { gateway } = runtime;
    const link = federation.links.component;
    const dead = nextWithin(gateway, 'dead');
    const offline = nextWithin(gateway, 'offline');
    // Nothing is reset: the TCP connection stays up, only silence tells.
    link.blackhole();
    try {
      await dead;
      await offline;
      expect(gateway.online).toBe(false);
      expect((await httpGet(runtime, '/ready')).status).toBe(503);
    } finally {
      link.restore();
    }
    await nextWithin(gateway, 'online');
    expect(await bob.iq(GATEWAY, 'get', PING)).toBeUndefined();
    expect((await httpGet(runtime, '/ready')).status).toBe(200);
  });

  it('notices a frozen link too, and fails the IQs pending on it at once with stream-lost', async () => {
    const { gateway } = runtime;
    const link = federation.links.component;
    const dead = nextWithin(gateway, 'dead');
    link.freeze();
    let outcome: unknown;
    try {
      // Its own deadline is far away: only the lost stream can end it this soon.
      const pending = gateway.iq({ to: 'server.example', type: 'get', payload: PING, timeoutMs: 120_000 });
      expect(gateway.pendingIqs).toBeGreaterThan(0);
      outcome = await pending.catch((error: unknown) => error);
      await dead;
    } finally {
      link.restore();
    }
    expect(outcome).toBeInstanceOf(OutboundIqError);
    expect((outcome as OutboundIqError).reason).toBe('stream-lost');
    await nextWithin(gateway, 'online');
    expect(gateway.pendingIqs).toBe(0);
    expect(await bob.iq(GATEWAY, 'get', PING)).toBeUndefined();
  });

  it('/ready is 503 while the component link is cut and 200 again after the reconnect', async () => {
    const { gateway } = runtime;
    const link = federation.links.component;
    const offline = nextWithin(gateway, 'offline');
    // Cut the connection and keep new ones from getting through, so "cut" lasts while we look.
    link.blackhole();
    link.cut();
    try {
      await offline;
      expect(await httpGet(runtime, '/ready')).toEqual({
        status: 503,
        body: { ready: false, component: 'offline', store: 'open' },
      });
      expect((await httpGet(runtime, '/health')).status).toBe(200);
      expect(await gateway.send(xml('message', { to: 'bob@server.example' }))).toBe(false);
    } finally {
      link.restore();
    }
    await nextWithin(gateway, 'online');
    expect((await httpGet(runtime, '/ready')).status).toBe(200);
  });

  it('sends messages from an endpoint JID once online again (send() with the strict serializer)', async () => {
    const since = bob.inbound.length;
    const sent = await runtime.gateway.send(
      xml('message', { from: 'weather@agents.example', to: 'bob@server.example/desk', type: 'normal' }, [
        xml('body', {}, 'forecast <ready> & "quoted"'),
      ]),
    );
    expect(sent).toBe(true);
    const received = await bob.waitForStanza(
      (stanza) => stanza.name === 'message' && stanza.from === 'weather@agents.example',
      { since },
    );
    // The server re-serializes what it routes; the text is what must arrive intact.
    expect(received.element?.getChildText('body')).toBe('forecast <ready> & "quoted"');
    await expect(
      runtime.gateway.send(xml('message', { from: 'bob@server.example', to: 'bob@server.example' })),
    ).rejects.toThrow(RangeError);
  });

  it('stops promptly even while the link is dead', async () => {
    // A second gateway on the same federation would fight over the domain: stop this one, on a
    // blackholed link, and measure; afterAll's stop is then a no-op.
    const link = federation.links.component;
    link.blackhole();
    try {
      const started = performance.now();
      await runtime.stop();
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(runtime.gateway.online).toBe(false);
      expect(runtime.state.store.isOpen).toBe(false);
    } finally {
      link.restore();
    }
  });
});
