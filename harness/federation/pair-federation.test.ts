// The pair topology of interop runs: a gateway component on each server, each reached from the
// other server's accounts only across s2s, through the fault proxies, with either implementation
// as server A.
import { xml } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FaultProxy } from '../faults/fault-proxy.ts';
import { PAIR_COMPONENT_DOMAIN } from './domains.ts';
import { nativeProvider } from './native-provider.ts';
import { federationForSide, pairComponentOf } from './pair-side.ts';
import type { Federation, ServerImplementation } from './server-provider.ts';
import { connectTestClient, type TestClient } from './test-support/c2s-client.ts';
import { startEchoComponent, type EchoComponent } from './test-support/echo-component.ts';
import { recordCrossing } from './test-support/s2s-crossing.ts';

function pairLink(federation: Federation): FaultProxy {
  const link = federation.links.pairComponent;
  if (link === undefined) throw new Error('the federation has no pair component link');
  return link;
}

describe.each<ServerImplementation>(['prosody', 'ejabberd'])('pair topology, %s as server A', (serverA) => {
  let federation: Federation;
  let gatewayA: EchoComponent;
  let gatewayB: EchoComponent;
  let alice: TestClient;
  let bob: TestClient;

  beforeAll(async () => {
    // The first run on a machine may install ejabberd (and Erlang) from Debian.
    federation = await nativeProvider.start({ serverA, pair: true });
    gatewayA = await startEchoComponent(pairComponentOf(federation, 'a'));
    gatewayB = await startEchoComponent(pairComponentOf(federation, 'b'));
    alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
    bob = await connectTestClient(federation.account('bob@server.example'), federation.caCertPath);
  }, 600_000);

  afterAll(async () => {
    await Promise.all([alice.stop(), bob.stop(), gatewayA.stop(), gatewayB.stop()]);
    await federation.stop();
  });

  it('puts the second gateway on server A, with a secret and a fault proxy of its own', () => {
    const pair = federation.pairComponent;
    expect(pair?.domain).toBe(PAIR_COMPONENT_DOMAIN);
    expect(federation.domains.pairComponent).toBe(PAIR_COMPONENT_DOMAIN);
    expect(pair?.secret).not.toBe(federation.component.secret);
    expect(pair?.direct).toEqual({ host: federation.servers.a.address, port: 5347 });
    expect(federation.links.pairComponent?.listen).toEqual({ host: pair?.host, port: pair?.port });
    expect(federation.servers.a.implementation).toBe(serverA);
    expect(federation.servers.a.domains).toContain(PAIR_COMPONENT_DOMAIN);
    // The view the second gateway is started with: its own link, the same federation otherwise.
    const sideA = federationForSide(federation, 'a');
    expect(sideA.component).toBe(pair);
    expect(sideA.account('bob@server.example')).toBe(federation.account('bob@server.example'));
  });

  it("carries bob@server.example's query to gateway A across both s2s directions", async () => {
    const id = `pair-a-${serverA}`;
    const { reply, record } = await recordCrossing(
      {
        request: federation.links.s2sBToA,
        reply: federation.links.s2sAToB,
        answeringComponent: pairLink(federation),
      },
      id,
      () =>
        bob.iq(
          xml(
            'iq',
            { type: 'get', to: `echo@${PAIR_COMPONENT_DOMAIN}`, id },
            xml('ping', { xmlns: 'urn:t' }),
          ),
        ),
    );
    expect(reply.type).toBe('result');
    expect(record.requestBytesHeld).toBeGreaterThan(0);
    expect(record.replyBytesHeld).toBeGreaterThan(0);
    expect(record.replyOnComponentLink.attrs['to']).toMatch(/^bob@server\.example\//);
    expect(gatewayA.answered).toBeGreaterThan(0);
  });

  it("carries alice@example.com's query to gateway B across both s2s directions", async () => {
    const id = `pair-b-${serverA}`;
    const { reply, record } = await recordCrossing(
      {
        request: federation.links.s2sAToB,
        reply: federation.links.s2sBToA,
        answeringComponent: federation.links.component,
      },
      id,
      () =>
        alice.iq(xml('iq', { type: 'get', to: 'echo@agents.example', id }, xml('ping', { xmlns: 'urn:t' }))),
    );
    expect(reply.type).toBe('result');
    expect(record.requestBytesHeld).toBeGreaterThan(0);
    expect(record.replyBytesHeld).toBeGreaterThan(0);
    expect(record.replyOnComponentLink.attrs['to']).toMatch(/^alice@example\.com\//);
    expect(gatewayB.answered).toBeGreaterThan(0);
  });

  it("lists each server's gateway among its services, where the other side's accounts look", async () => {
    const items = async (client: TestClient, domain: string): Promise<string[]> => {
      const reply = await client.iq(
        xml(
          'iq',
          { type: 'get', to: domain },
          xml('query', { xmlns: 'http://jabber.org/protocol/disco#items' }),
        ),
      );
      if (reply.type !== 'result') throw new Error(`disco#items of ${domain}: ${reply.condition}`);
      return (reply.stanza.getChild('query')?.getChildren('item') ?? []).map((item) =>
        String(item.attrs['jid']),
      );
    };
    expect(await items(bob, 'example.com')).toContain(PAIR_COMPONENT_DOMAIN);
    expect(await items(alice, 'server.example')).toContain('agents.example');
  });
});

describe('a federation without a pair', () => {
  it('has no second gateway link, and says so when one is asked for', async () => {
    const federation = await nativeProvider.start();
    try {
      expect(federation.pairComponent).toBeUndefined();
      expect(federation.links.pairComponent).toBeUndefined();
      expect(federation.domains.pairComponent).toBeUndefined();
      expect(() => pairComponentOf(federation, 'a')).toThrow(/pair: true/);
    } finally {
      await federation.stop();
    }
  }, 120_000);
});
