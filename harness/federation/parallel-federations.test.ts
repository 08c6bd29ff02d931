// Two federations in one process at the same time share nothing: addresses, CA, secrets,
// accounts, and the traffic of one never reaches the other.
import { xml } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nativeProvider } from './native-provider.ts';
import type { Federation } from './server-provider.ts';
import { connectTestClient, type TestClient } from './test-support/c2s-client.ts';
import { startEchoComponent, type EchoComponent } from './test-support/echo-component.ts';

interface Run {
  readonly federation: Federation;
  readonly component: EchoComponent;
  readonly alice: TestClient;
}

async function startRun(): Promise<Run> {
  const federation = await nativeProvider.start();
  const { host, port, domain, secret } = federation.component;
  const component = await startEchoComponent({ host, port, domain, secret });
  const alice = await connectTestClient(federation.account('alice@example.com'), federation.caCertPath);
  return { federation, component, alice };
}

describe('parallel federations', () => {
  let runs: Run[] = [];

  beforeAll(async () => {
    runs = await Promise.all([startRun(), startRun()]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(
      runs.map(async ({ federation, component, alice }) => {
        await alice.stop();
        await component.stop();
        await federation.stop();
      }),
    );
  });

  it('use disjoint addresses, their own CA and their own component secret', () => {
    const [first, second] = runs.map((run) => run.federation);
    if (first === undefined || second === undefined) throw new Error('two runs expected');
    const addressesOf = ({ servers, links }: Federation): string[] => [
      servers.a.address,
      servers.b.address,
      ...[links.s2sAToB, links.s2sBToA, links.component].map((link) => link.listen.host),
    ];
    const all = [...addressesOf(first), ...addressesOf(second)];
    expect(new Set(all).size).toBe(all.length);
    expect(first.caCertPath).not.toBe(second.caCertPath);
    expect(first.component.secret).not.toBe(second.component.secret);
    expect(first.account('alice@example.com').password).not.toBe(
      second.account('alice@example.com').password,
    );
  });

  it("route each caller's IQs to its own federation's component only", async () => {
    const replies = await Promise.all(
      runs.map(({ alice }, index) =>
        Promise.all(
          Array.from({ length: 5 }, () =>
            alice.iq(
              xml(
                'iq',
                { type: 'get', to: 'echo@agents.example' },
                xml('run', { xmlns: 'urn:t' }, `${index}`),
              ),
            ),
          ),
        ),
      ),
    );
    replies.forEach((ofRun, index) => {
      for (const reply of ofRun) {
        expect(reply.type).toBe('result');
        if (reply.type === 'result')
          expect(reply.stanza.getChild('run', 'urn:t')?.getText()).toBe(`${index}`);
      }
    });
    expect(runs.map(({ component }) => component.answered)).toEqual([5, 5]);
  });

  it("do not trust each other: one run's CA does not vouch for the other's servers", async () => {
    const [first, second] = runs.map((run) => run.federation);
    if (first === undefined || second === undefined) throw new Error('two runs expected');
    const alice = first.account('alice@example.com');
    const elsewhere = { ...alice, c2sDirectTls: second.servers.a.c2sDirectTls };
    await expect(connectTestClient(elsewhere, first.caCertPath, 'stray')).rejects.toThrow(/certificate/i);
  });
});
