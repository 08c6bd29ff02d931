// FederationOptions.whileBooting: a component that connects while the servers start is held at
// the component link, not refused, and is online with the servers once start() resolves.
import { xml } from '@xmpp/xml';
import { afterAll, expect, it } from 'vitest';

import { nativeProvider } from './native-provider.ts';
import type { Federation } from './server-provider.ts';
import { connectTestClient } from './test-support/c2s-client.ts';
import { ECHO_NS, startEchoComponent, type EchoComponent } from './test-support/echo-component.ts';

const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it('holds a component that connects while the servers start, and carries its traffic once they are up', async () => {
  let startResolved = false;
  let calledBeforeStart: boolean | undefined;
  let connecting: Promise<EchoComponent> | undefined;
  const starting = nativeProvider.start({
    whileBooting: (booting: Federation) => {
      calledBeforeStart = !startResolved;
      const { host, port, domain, secret } = booting.component;
      // Nothing answers on the server's component port yet: the link must hold this connection.
      connecting = startEchoComponent({ host, port, domain, secret });
    },
  });
  const federation = await starting;
  startResolved = true;
  cleanups.push(() => federation.stop());
  expect(calledBeforeStart).toBe(true);
  if (connecting === undefined) throw new Error('whileBooting was not called');
  const component = await connecting;
  cleanups.push(() => component.stop());

  const bob = await connectTestClient(federation.account('bob@server.example'), federation.caCertPath);
  cleanups.push(() => bob.stop());
  const reply = await bob.iq(
    xml('iq', { type: 'get', to: 'echo@agents.example' }, xml('echo', { xmlns: ECHO_NS }, 'early')),
  );
  expect(reply.type).toBe('result');
  expect(federation.links.component.acceptedConnections).toBe(1);
}, 300_000);
