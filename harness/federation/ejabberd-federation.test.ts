// Cross-implementation s2s: ejabberd as server A, Prosody as server B, the same topology and links.
import { xml } from '@xmpp/xml';
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
