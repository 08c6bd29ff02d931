// Cross-implementation s2s: ejabberd as server A, Prosody as server B, the same topology and links.
import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nativeProvider } from './native-provider.ts';
import type { Federation } from './server-provider.ts';
import { connectTestClient, type TestClient } from './test-support/c2s-client.ts';
import { startEchoComponent, type EchoComponent } from './test-support/echo-component.ts';
import { descendantsOf } from '../faults/process-tree.ts';
import { isProcessAlive, waitUntilGone } from './test-support/process-liveness.ts';

describe('native federation with ejabberd as server A', () => {
  let federation: Federation;
  let component: EchoComponent;
  let alice: TestClient;

  beforeAll(async () => {
    // The first run on a machine may install ejabberd (and Erlang) from Debian.
    federation = await nativeProvider.start({ serverA: 'ejabberd' });
    const { host, port, domain, secret } = federation.component;
    component = await startEchoComponent({ host, port, domain, secret });
    alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
  }, 600_000);

  afterAll(async () => {
    await alice.stop();
    await component.stop();
    await federation.stop();
  });

  it('runs ejabberd for example.com and Prosody for the rest', () => {
    expect(federation.servers.a.implementation).toBe('ejabberd');
    expect(federation.servers.b.implementation).toBe('prosody');
    expect(alice.jid).toBe('alice@example.com/harness');
  });

  it('carries an IQ from alice@example.com to agents.example across both s2s proxies and back', async () => {
    const reply = await alice.iq(
      xml('iq', { type: 'get', to: 'echo@agents.example' }, xml('echo', { xmlns: 'urn:t' }, 'cross')),
    );
    expect(reply.type).toBe('result');
    if (reply.type === 'result') expect(reply.stanza.getChild('echo', 'urn:t')?.getText()).toBe('cross');
    expect(federation.links.s2sAToB.acceptedConnections).toBeGreaterThan(0);
    expect(federation.links.s2sBToA.acceptedConnections).toBeGreaterThan(0);
    // Authenticated by certificate both ways: Prosody saw ejabberd's incoming stream as secure.
    expect(await federation.servers.b.readLog()).toMatch(
      /Incoming s2s connection example\.com->agents\.example complete/,
    );
  });

  it('creates accounts on the running ejabberd', async () => {
    const dave = await federation.createAccount({ username: 'dave', domain: 'example.com' });
    const client = await connectTestClient(dave, federation.caCertPath);
    expect(client.jid).toBe('dave@example.com/harness');
    await client.stop();
  });

  it("answers a component no block state and applies its users' blocklists to the component's messages itself", async () => {
    // The server behaviour that makes the #messaging blocking cases cantTell on ejabberd
    // (docs/federation.md, "Server stacks in a run").
    const link = component.connection;
    const stanzaFromServer = (predicate: (stanza: Element) => boolean): Promise<Element> =>
      new Promise((resolve) => {
        const listener = (stanza: Element): void => {
          if (!predicate(stanza)) return;
          link.off('stanza', listener);
          resolve(stanza);
        };
        link.on('stanza', listener);
      });
    const sender = 'probe@agents.example';
    const stateReply = stanzaFromServer((stanza) => stanza.attrs['id'] === 'block-state-1');
    await component.sendRaw(
      xml(
        'iq',
        { type: 'get', id: 'block-state-1', from: sender, to: 'alice@example.com' },
        xml('state', { xmlns: 'urn:agentconf:block-state:0' }),
      ).toString(),
    );
    const state = await stateReply;
    expect(state.attrs['type']).toBe('error');
    expect(state.getChild('error')?.getChild('service-unavailable')).toBeDefined();

    const blockIq = (action: 'block' | 'unblock') =>
      alice.iq(
        xml(
          'iq',
          { type: 'set' },
          xml(action, { xmlns: 'urn:xmpp:blocking' }, xml('item', { jid: 'agents.example' })),
        ),
      );
    expect((await blockIq('block')).type).toBe('result');
    const received: string[] = [];
    alice.connection.on('stanza', (stanza: Element) => {
      if (stanza.is('message')) received.push(stanza.getChildText('body') ?? '');
    });
    const message = (id: string, body: string): string =>
      xml(
        'message',
        { type: 'chat', id, from: sender, to: 'alice@example.com' },
        xml('body', {}, body),
      ).toString();
    const bounce = stanzaFromServer((stanza) => stanza.attrs['id'] === 'while-blocked');
    await component.sendRaw(message('while-blocked', 'while blocked'));
    const bounced = await bounce;
    expect(bounced.attrs['type']).toBe('error');
    expect(bounced.getChild('error')?.toString()).toMatch(/service-unavailable/);
    expect((await blockIq('unblock')).type).toBe('result');
    const control = new Promise<void>((resolve) => {
      alice.connection.on('stanza', (stanza: Element) => {
        if (stanza.is('message') && stanza.getChildText('body') === 'after unblocking') resolve();
      });
    });
    await component.sendRaw(message('after-unblocking', 'after unblocking'));
    await control;
    expect(received).toEqual(['after unblocking']);
  });

  it('leaves no Erlang process behind, and restarts with its accounts', async () => {
    const pid = federation.servers.a.pid ?? 0;
    // The VM's helpers (erl_child_setup, inet_gethost) live in sessions of their own.
    const helpers = descendantsOf(pid);
    expect(helpers.length).toBeGreaterThan(0);
    await federation.servers.a.kill9();
    expect(await isProcessAlive(pid)).toBe(false);
    // They were sent SIGKILL too; they are not our children, so their end can only be probed.
    await waitUntilGone(helpers);

    await federation.servers.a.restart();
    expect(federation.servers.a.pid).not.toBe(pid);
    await alice.stop();
    alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
    expect(alice.jid).toBe('alice@example.com/harness');
  });
});
