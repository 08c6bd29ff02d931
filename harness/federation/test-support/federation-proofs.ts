/**
 * The proofs every federation provider must pass, as tests will use a federation: a caller on
 * example.com reaches a component on agents.example across s2s (through both s2s fault proxies),
 * local and hostile callers reach it too, and the links, the component and the servers fail on
 * demand. Each provider's test file runs them once over its own federation (native-federation.test.ts;
 * container-federation.containers.test.ts, which stays in a file of its own so the Docker-less
 * default run never collects it).
 */
import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ManagedProcess } from '../../faults/managed-process.ts';
import type { Federation } from '../server-provider.ts';
import { connectTestClient, type IqReply, type TestClient } from './c2s-client.ts';
import { startEchoComponentProcess } from './echo-component-process.ts';

const ECHO_NS = 'urn:agentconf:test:echo';
const TARGET = 'echo@agents.example';

function echoRequest(to: string, text: string): Element {
  return xml('iq', { type: 'get', to }, xml('echo', { xmlns: ECHO_NS }, text));
}

function echoedText(reply: IqReply): string {
  if (reply.type !== 'result') throw new Error(`expected a result, got error ${reply.condition}`);
  return reply.stanza.getChild('echo', ECHO_NS)?.getText() ?? '(no payload)';
}

/** What differs between providers; everything else is one proof for all. */
export interface FederationUnderProof<F extends Federation> {
  /** The describe block's title. */
  readonly title: string;
  /** Starts the federation with the hostile server. */
  start(): Promise<F>;
  /** Deadline of the starting hook; absent, the vitest config's hookTimeout applies. */
  readonly startTimeoutMs?: number;
  /** The provider's own topology checks (e.g. its containers), after the shared ones. */
  topology?(federation: F): Promise<void>;
  /**
   * Whether the server restart proof SIGKILLs server A first (a container provider must show a
   * killed container comes back) or restarts it while it runs (the native process path).
   */
  readonly killBeforeRestart: boolean;
}

export function describeFederationProofs<F extends Federation>(subject: FederationUnderProof<F>): void {
  describe(subject.title, () => {
    let federation: F;
    let component: ManagedProcess;
    let alice: TestClient;
    let bob: TestClient;

    beforeAll(async () => {
      federation = await subject.start();
      component = await startEchoComponentProcess(federation);
      [alice, bob] = await Promise.all([
        connectTestClient(federation.account('alice@example.com'), federation.caCertPath),
        connectTestClient(federation.account('bob@server.example'), federation.caCertPath),
      ]);
    }, subject.startTimeoutMs);

    afterAll(async () => {
      await Promise.all([alice.stop(), bob.stop()]);
      await component.kill9();
      await federation.stop();
    });

    it('runs each server on an address of its own, with the topology of the design', async () => {
      const { a, b, hostile } = federation.servers;
      const addresses = new Set([a.address, b.address, hostile?.address, federation.component.host]);
      expect(addresses.size).toBe(4);
      for (const address of addresses) expect(address).toMatch(/^127\.\d+\.\d+\.\d+$/);
      expect(a.domains).toEqual(['example.com']);
      expect(b.domains).toEqual(['server.example', 'agents.example', 'target.example']);
      expect(hostile?.domains).toEqual(['hostile.example']);
      expect(federation.component.direct).toEqual({ host: b.address, port: 5347 });
      await subject.topology?.(federation);
    });

    it('logs in with the accounts made before the start, and refuses a wrong password', async () => {
      expect(alice.jid).toBe('alice@example.com/harness');
      expect(bob.jid).toBe('bob@server.example/harness');
      const wrong = { ...federation.account('alice@example.com'), password: 'not-the-password' };
      await expect(connectTestClient(wrong, federation.caCertPath, 'wrong')).rejects.toThrow(
        /not-authorized/,
      );
    });

    it('creates accounts on a running server', async () => {
      const carol = await federation.createAccount({ username: 'carol', domain: 'example.com' });
      const mallory = federation.account('mallory@hostile.example');
      const clients = await Promise.all([
        connectTestClient(carol, federation.caCertPath),
        connectTestClient(mallory, federation.caCertPath),
      ]);
      expect(clients.map((client) => client.jid)).toEqual([
        'carol@example.com/harness',
        'mallory@hostile.example/harness',
      ]);
      await Promise.all(clients.map((client) => client.stop()));
      await expect(federation.createAccount({ username: 'x', domain: 'agents.example' })).rejects.toThrow(
        /no server of this federation hosts user accounts/,
      );
    });

    it('carries an IQ from example.com to agents.example across both s2s proxies and back', async () => {
      const { s2sAToB, s2sBToA } = federation.links;
      const reply = await alice.iq(echoRequest(TARGET, 'across'));
      expect(echoedText(reply)).toBe('across');
      expect(reply.type === 'result' && reply.stanza.attrs['from']).toBe(TARGET);
      // The request went A→B and the answer B→A, each through its proxy.
      expect(s2sAToB.acceptedConnections).toBeGreaterThan(0);
      expect(s2sBToA.acceptedConnections).toBeGreaterThan(0);
      // ... over TLS, authenticated by certificate.
      const logA = await federation.servers.a.readLog();
      expect(logA).toMatch(/s2sout\w+\s+info\s+Stream encrypted \(TLSv1\.3/);
      expect(logA).toMatch(/Outgoing s2s connection example\.com->agents\.example complete/);
    });

    it("lets the hostile peer reach the component (denying it is the gateway's job)", async () => {
      const mallory = await connectTestClient(
        federation.account('mallory@hostile.example'),
        federation.caCertPath,
      );
      try {
        expect(echoedText(await mallory.iq(echoRequest(TARGET, 'from afar')))).toBe('from afar');
      } finally {
        await mallory.stop();
      }
    });

    it('answers local callers too', async () => {
      expect(echoedText(await bob.iq(echoRequest(TARGET, 'local')))).toBe('local');
    });

    it("lists the gateway among its server's services (#find-gateway)", async () => {
      const reply = await bob.iq(
        xml(
          'iq',
          { type: 'get', to: 'server.example' },
          xml('query', { xmlns: 'http://jabber.org/protocol/disco#items' }),
        ),
      );
      if (reply.type !== 'result') throw new Error(`expected a result, got error ${reply.condition}`);
      const items = reply.stanza.getChild('query')?.getChildren('item') ?? [];
      expect(items.map((item) => item.attrs['jid'])).toContain(federation.component.domain);
    });

    it('delays the s2s link on demand', async () => {
      federation.links.s2sAToB.delay(150);
      try {
        const began = performance.now();
        expect(echoedText(await alice.iq(echoRequest(TARGET, 'slow')))).toBe('slow');
        expect(performance.now() - began).toBeGreaterThanOrEqual(150);
      } finally {
        federation.links.restoreAll();
      }
    });

    it('bounces a stanza caught on an s2s link that is cut, and recovers after restore', async () => {
      const link = federation.links.s2sAToB;
      expect(echoedText(await alice.iq(echoRequest(TARGET, 'before')))).toBe('before');
      link.freeze();
      const pending = alice.iq(echoRequest(TARGET, 'caught'));
      // Only bytes from A count: B's stream-management ack for 'before' may still be on its way back.
      // Once A's request is inside the proxy, the cut catches it in flight, unacknowledged.
      await link.waitFor('held', () => link.heldBytesTowardsTarget > 0);
      link.cut();
      const bounce = await pending;
      expect(bounce).toMatchObject({
        type: 'error',
        condition: 'recipient-unavailable',
        errorType: 'cancel',
      });

      link.restore();
      expect(echoedText(await alice.iq(echoRequest(TARGET, 'after')))).toBe('after');
    });

    it('answers remote-server-timeout while the component is down, and recovers when it is back', async () => {
      expect(echoedText(await alice.iq(echoRequest(TARGET, 'up')))).toBe('up');
      await component.kill9();
      // Prosody learns of the loss through the proxy, which closes as soon as the component is gone.
      await federation.links.component.waitFor(
        'closed',
        () => federation.links.component.openConnections === 0,
      );
      const reply = await alice.iq(echoRequest(TARGET, 'down'));
      expect(reply).toMatchObject({ type: 'error', condition: 'remote-server-timeout', errorType: 'wait' });

      await component.restart();
      await component.waitForOutput('online', 20_000);
      expect(echoedText(await alice.iq(echoRequest(TARGET, 'back')))).toBe('back');
    });

    const restartTitle = subject.killBeforeRestart ? 'kills and restarts a server' : 'restarts a server';
    it(`${restartTitle}; s2s comes back on the next stanza`, async () => {
      const { a } = federation.servers;
      const before = a.pid;
      await alice.stop();
      if (subject.killBeforeRestart) await a.kill9();
      await a.restart();
      expect(a.pid).not.toBe(before);
      // The accounts live in the server's data directory, which survives the restart.
      alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
      expect(echoedText(await alice.iq(echoRequest(TARGET, 'again')))).toBe('again');
    });
  });
}
