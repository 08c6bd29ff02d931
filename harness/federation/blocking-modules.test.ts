// The harness's blocking modules on a live native federation (docs/federation.md, "Blocking and
// offline storage"): the block-state query answers about the exact asker, server A hands a
// blocked message from the component domain through while server B filters it, and both
// servers keep messages for offline users.
import { xml, type Element } from '@xmpp/xml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_STATE_NS, MESSAGING_NS } from '../../protocol/messaging.ts';
import { nativeProvider } from './native-provider.ts';
import type { Federation } from './server-provider.ts';
import { connectTestClient, type TestClient } from './test-support/c2s-client.ts';
import { startEchoComponent, type EchoComponent } from './test-support/echo-component.ts';

const ENDPOINT = 'weather@agents.example';
const OTHER_ENDPOINT = 'calendar@agents.example';

describe('blocking modules of the harness', () => {
  let federation: Federation;
  let component: EchoComponent;
  let alice: TestClient;
  let bob: TestClient;
  const fromServers: Element[] = [];
  const received = new Map<string, Element[]>();

  function inbox(client: TestClient): Element[] {
    const list = received.get(client.jid) ?? [];
    received.set(client.jid, list);
    return list;
  }

  async function until<T>(find: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (performance.now() > deadline) throw new Error(`no ${what} within ${String(timeoutMs)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  let queries = 0;
  async function blockState(from: string, to: string): Promise<string | undefined> {
    queries += 1;
    const id = `bs-${String(queries)}`;
    await component.sendRaw(
      `<iq type='get' id='${id}' from='${from}' to='${to}'><state xmlns='${BLOCK_STATE_NS}'/></iq>`,
    );
    const reply = await until(() => fromServers.find((stanza) => stanza.attrs['id'] === id), `reply ${id}`);
    if (reply.attrs['type'] !== 'result')
      return `error:${String(reply.getChild('error')?.children[0]?.toString())}`;
    return String(reply.getChild('state', BLOCK_STATE_NS)?.attrs['blocked']);
  }

  async function blocklist(client: TestClient, action: 'block' | 'unblock', jid: string): Promise<void> {
    const reply = await client.iq(
      xml('iq', { type: 'set' }, xml(action, { xmlns: MESSAGING_NS.blocking }, xml('item', { jid }))),
    );
    expect(reply.type).toBe('result');
  }

  beforeAll(async () => {
    federation = await nativeProvider.start({ scramIterations: 1 });
    const { host, port, domain, secret } = federation.component;
    component = await startEchoComponent({ host, port, domain, secret });
    component.connection.on('stanza', (stanza: Element) => {
      if (stanza.name !== 'iq' || stanza.attrs['type'] === 'result' || stanza.attrs['type'] === 'error')
        fromServers.push(stanza);
      if (stanza.name === 'message') fromServers.push(stanza);
    });
    [alice, bob] = await Promise.all([
      connectTestClient(federation.account('alice@example.com'), federation.caCertPath),
      connectTestClient(federation.account('bob@server.example'), federation.caCertPath),
    ]);
    for (const client of [alice, bob]) {
      client.connection.on('stanza', (stanza: Element) => {
        if (stanza.name === 'message') inbox(client).push(stanza);
      });
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all([alice.stop(), bob.stop()]);
    await component.stop();
    await federation.stop();
  });

  it('answers the block state about the exact asker: its bare JID, or its domain', async () => {
    for (const client of [alice, bob]) {
      const user = client.jid.slice(0, client.jid.indexOf('/'));
      expect(await blockState(ENDPOINT, user)).toBe('false');
      await blocklist(client, 'block', ENDPOINT);
      expect(await blockState(ENDPOINT, user)).toBe('true');
      expect(await blockState(`${ENDPOINT}/runtime`, user)).toBe('true');
      expect(await blockState(OTHER_ENDPOINT, user)).toBe('false');
      await blocklist(client, 'unblock', ENDPOINT);
      expect(await blockState(ENDPOINT, user)).toBe('false');
      await blocklist(client, 'block', 'agents.example');
      expect(await blockState(OTHER_ENDPOINT, user)).toBe('true');
      await blocklist(client, 'unblock', 'agents.example');
      expect(await blockState(OTHER_ENDPOINT, user)).toBe('false');
    }
    expect(await blockState(ENDPOINT, 'nobody@example.com')).toMatch(/^error:.*service-unavailable/);
  });

  it('delivers a blocked message from the component domain on server A only', async () => {
    await blocklist(alice, 'block', ENDPOINT);
    await blocklist(bob, 'block', ENDPOINT);
    try {
      // To the bare JIDs: to an online full JID mod_blocklist drops silently instead of bouncing.
      for (const client of [alice, bob]) {
        const user = client.jid.slice(0, client.jid.indexOf('/'));
        await component.sendRaw(
          `<message type='chat' from='${ENDPOINT}' to='${user}'><body>while blocked</body></message>`,
        );
      }
      // Server A (example.com) hands it through; server B bounces it to the component.
      await until(
        () => inbox(alice).find((stanza) => stanza.getChildText('body') === 'while blocked'),
        'delivery to alice',
      );
      const bounce = await until(
        () => fromServers.find((stanza) => stanza.name === 'message' && stanza.attrs['type'] === 'error'),
        'bounce from server.example',
      );
      expect(bounce.attrs['from']).toBe('bob@server.example');
      expect(inbox(bob).some((stanza) => stanza.getChildText('body') === 'while blocked')).toBe(false);
    } finally {
      await blocklist(alice, 'unblock', ENDPOINT);
      await blocklist(bob, 'unblock', ENDPOINT);
    }
  });

  it('keeps a message for an offline user and delivers it at the next login (mod_offline)', async () => {
    const carol = await federation.createAccount({ username: 'carol-offline', domain: 'example.com' });
    await component.sendRaw(
      `<message type='chat' from='${ENDPOINT}' to='carol-offline@example.com'><body>stored</body></message>`,
    );
    // Ordered behind the message on the same path: once answered, the message was stored.
    expect(await blockState(ENDPOINT, 'carol-offline@example.com')).toBe('false');
    const client = await connectTestClient(carol, federation.caCertPath);
    const messages: Element[] = [];
    client.connection.on('stanza', (stanza: Element) => {
      if (stanza.name === 'message') messages.push(stanza);
    });
    try {
      await until(
        () => messages.find((stanza) => stanza.getChildText('body') === 'stored'),
        'the stored message',
      );
    } finally {
      await client.stop();
    }
  });
});
