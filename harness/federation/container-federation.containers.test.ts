// The container provider, proven the way the native one is: a caller on example.com reaches a
// component on agents.example across s2s (through both s2s fault proxies), and the links and the
// component fail on demand. Needs a Docker engine and a Prosody image (see
// vitest.containers.config.ts: `npm run test:containers`).
import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { listContainers } from '../containers/docker-api.ts';
import type { ManagedProcess } from '../faults/managed-process.ts';
import { containerProvider, FEDERATION_LABEL, type ContainerFederation } from './container-provider.ts';
import { connectTestClient, type IqReply, type TestClient } from './test-support/c2s-client.ts';
import { startEchoComponentProcess } from './test-support/echo-component-process.ts';

const ECHO_NS = 'urn:agentconf:test:echo';

function echoRequest(to: string, text: string): Element {
  return xml('iq', { type: 'get', to }, xml('echo', { xmlns: ECHO_NS }, text));
}

function echoedText(reply: IqReply): string {
  if (reply.type !== 'result') throw new Error(`expected a result, got error ${reply.condition}`);
  return reply.stanza.getChild('echo', ECHO_NS)?.getText() ?? '(no payload)';
}

describe('container federation', () => {
  let federation: ContainerFederation;
  let component: ManagedProcess;
  let alice: TestClient;
  let bob: TestClient;
  const target = 'echo@agents.example';

  beforeAll(async () => {
    federation = await containerProvider.start({ hostile: true });
    process.stdout.write(
      `[container federation] image ${federation.image}: boot to ready ${Math.round(federation.timings.bootMs)} ms ` +
        `(preparation ${Math.round(federation.timings.prepareMs)} ms)\n`,
    );
    component = await startEchoComponentProcess(federation);
    [alice, bob] = await Promise.all([
      connectTestClient(federation.account('alice@example.com'), federation.caCertPath),
      connectTestClient(federation.account('bob@server.example'), federation.caCertPath),
    ]);
  });

  afterAll(async () => {
    await Promise.all([alice.stop(), bob.stop()]);
    await component.kill9();
    await federation.stop();
  });

  it('runs each server in a container of its own on the run network, with the topology of the design', async () => {
    const { a, b, hostile } = federation.servers;
    expect(federation.provider).toBe('container');
    const hostAddresses = new Set([a.address, b.address, hostile?.address, federation.component.host]);
    expect(hostAddresses.size).toBe(4);
    for (const address of hostAddresses) expect(address).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(a.domains).toEqual(['example.com']);
    expect(b.domains).toEqual(['server.example', 'agents.example']);
    expect(hostile?.domains).toEqual(['hostile.example']);
    expect(federation.component.direct).toEqual({ host: b.address, port: 5347 });

    const containers = await listContainers(federation.engine, `${FEDERATION_LABEL}=${federation.runId}`);
    expect(containers.map((container) => container.state)).toEqual(['running', 'running', 'running']);
    for (const server of [a, b, hostile]) {
      expect(server?.networkAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(server?.pid).toBeGreaterThan(0);
    }
  });

  it('logs in with the accounts copied in before the start, and refuses a wrong password', async () => {
    expect(alice.jid).toBe('alice@example.com/harness');
    expect(bob.jid).toBe('bob@server.example/harness');
    const wrong = { ...federation.account('alice@example.com'), password: 'not-the-password' };
    await expect(connectTestClient(wrong, federation.caCertPath, 'wrong')).rejects.toThrow(/not-authorized/);
  });

  it('creates accounts on a running server (copied into its container)', async () => {
    const carol = await federation.createAccount({ username: 'carol', domain: 'example.com' });
    const client = await connectTestClient(carol, federation.caCertPath);
    expect(client.jid).toBe('carol@example.com/harness');
    await client.stop();
  });

  it('carries an IQ from example.com to agents.example across both s2s proxies and back', async () => {
    const { s2sAToB, s2sBToA } = federation.links;
    const reply = await alice.iq(echoRequest(target, 'across'));
    expect(echoedText(reply)).toBe('across');
    expect(reply.type === 'result' && reply.stanza.attrs['from']).toBe(target);
    expect(s2sAToB.acceptedConnections).toBeGreaterThan(0);
    expect(s2sBToA.acceptedConnections).toBeGreaterThan(0);
    const logA = await federation.servers.a.readLog();
    expect(logA).toMatch(/s2sout\w+\s+info\s+Stream encrypted \(TLSv1\.3/);
    expect(logA).toMatch(/Outgoing s2s connection example\.com->agents\.example complete/);
  });

  it('answers local callers, and lets the hostile peer reach the component directly', async () => {
    expect(echoedText(await bob.iq(echoRequest(target, 'local')))).toBe('local');
    const mallory = await connectTestClient(
      federation.account('mallory@hostile.example'),
      federation.caCertPath,
    );
    try {
      expect(echoedText(await mallory.iq(echoRequest(target, 'from afar')))).toBe('from afar');
    } finally {
      await mallory.stop();
    }
  });

  it('bounces a stanza caught on an s2s link that is cut, and recovers after restore', async () => {
    const link = federation.links.s2sAToB;
    expect(echoedText(await alice.iq(echoRequest(target, 'before')))).toBe('before');
    link.freeze();
    const pending = alice.iq(echoRequest(target, 'caught'));
    await link.waitFor('held', () => link.heldBytesTowardsTarget > 0);
    link.cut();
    const bounce = await pending;
    expect(bounce).toMatchObject({ type: 'error', condition: 'recipient-unavailable', errorType: 'cancel' });

    link.restore();
    expect(echoedText(await alice.iq(echoRequest(target, 'after')))).toBe('after');
  });

  it('answers remote-server-timeout while the component is down, and recovers when it is back', async () => {
    expect(echoedText(await alice.iq(echoRequest(target, 'up')))).toBe('up');
    await component.kill9();
    await federation.links.component.waitFor(
      'closed',
      () => federation.links.component.openConnections === 0,
    );
    const reply = await alice.iq(echoRequest(target, 'down'));
    expect(reply).toMatchObject({ type: 'error', condition: 'remote-server-timeout', errorType: 'wait' });

    await component.restart();
    await component.waitForOutput('online', 20_000);
    expect(echoedText(await alice.iq(echoRequest(target, 'back')))).toBe('back');
  });

  it('kills and restarts a server container; s2s comes back on the next stanza', async () => {
    const { a } = federation.servers;
    const before = a.pid;
    await alice.stop();
    await a.kill9();
    await a.restart();
    expect(a.pid).not.toBe(before);
    // The accounts live in the container's data directory, which survives the restart.
    alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
    expect(echoedText(await alice.iq(echoRequest(target, 'again')))).toBe('again');
  });
});
