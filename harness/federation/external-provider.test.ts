// The external provider only wraps facts: no process, no network, no fault links.
import { describe, expect, it } from 'vitest';

import { ExternalConfigError, externalProvider, type ExternalFederationConfig } from './external-provider.ts';

const CONFIG: ExternalFederationConfig = {
  servers: {
    a: { host: 'xmpp-a.internal' },
    b: { host: 'xmpp-b.internal', c2sDirectTlsPort: 5223, s2sPort: 5270 },
  },
  component: { host: 'xmpp-b.internal', port: 5275, secret: 'component-secret' },
  accounts: [
    { jid: 'alice@example.com', password: 'pa' },
    { jid: 'bob@server.example', password: 'pb' },
  ],
  caCertPath: '/srv/ca.pem',
};

describe('external provider', () => {
  it('wraps the given servers, component and accounts into a federation', async () => {
    const federation = await externalProvider(CONFIG).start();
    expect(federation.provider).toBe('external');
    expect(federation.domains.component).toBe('agents.example');
    expect(federation.servers.a.c2s).toEqual({ host: 'xmpp-a.internal', port: 5222 });
    expect(federation.servers.b.s2s).toEqual({ host: 'xmpp-b.internal', port: 5270 });
    expect(federation.servers.b.domains).toEqual(['server.example', 'agents.example']);
    expect(federation.component).toEqual({
      domain: 'agents.example',
      secret: 'component-secret',
      host: 'xmpp-b.internal',
      port: 5275,
      direct: { host: 'xmpp-b.internal', port: 5275 },
    });
    expect(federation.account('bob@server.example')).toMatchObject({
      username: 'bob',
      domain: 'server.example',
      password: 'pb',
      server: 'b',
      c2sDirectTls: { host: 'xmpp-b.internal', port: 5223 },
    });
    expect(federation.caCertPath).toBe('/srv/ca.pem');
  });

  it('has no fault links and controls no server; stop() only marks it stopped', async () => {
    const federation = await externalProvider(CONFIG).start();
    expect(() => federation.links).toThrow(/fault links/);
    await expect(federation.servers.a.kill9()).rejects.toThrow(/does not control its servers/);
    await expect(federation.servers.b.restart()).rejects.toThrow(/does not control its servers/);
    await expect(federation.createAccount({ username: 'carol', domain: 'example.com' })).rejects.toThrow(
      /list the accounts in the config/,
    );
    expect(await federation.servers.a.readLog()).toBe('');
    expect(federation.stopped).toBe(false);
    await federation.stop();
    expect(federation.stopped).toBe(true);
  });

  it('takes other domain names', async () => {
    const federation = await externalProvider({
      ...CONFIG,
      domains: { remote: 'remote.test', component: 'gw.local.test' },
      servers: { a: { host: 'a' }, b: { host: 'b', domains: ['local.test'] } },
      accounts: [{ jid: 'x@remote.test', password: 'p' }],
    }).start();
    expect(federation.servers.a.domains).toEqual(['remote.test']);
    expect(federation.servers.b.domains).toEqual(['local.test', 'gw.local.test']);
    expect(federation.account('x@remote.test').server).toBe('a');
  });

  it('reports every problem of a bad config at once', async () => {
    const bad: ExternalFederationConfig = {
      servers: { a: { host: '', c2sPort: 70_000 }, b: { host: 'b' } },
      component: { host: 'b', secret: '' },
      accounts: [
        { jid: 'not a jid', password: 'p' },
        { jid: 'mallory@hostile.example', password: 'p' },
      ],
      caCertPath: '',
    };
    const error: unknown = await externalProvider(bad)
      .start()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExternalConfigError);
    expect((error as ExternalConfigError).problems).toEqual([
      'servers.a.host is empty',
      'servers.a.c2sPort is not a port number',
      'component.secret is empty',
      'caCertPath is empty',
      'accounts[0].jid "not a jid" is not a bare JID',
      'accounts[1] (mallory@hostile.example): no configured server hosts hostile.example',
    ]);
    await expect(externalProvider(CONFIG).start({ hostile: true })).rejects.toThrow(/servers.hostile/);
  });
});
