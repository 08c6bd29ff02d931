// The bridge's settings: the caller config as it is (readCallerConfig has checked it), JIDs
// split and normalized, the timing options in milliseconds.
import { describe, expect, it } from 'vitest';
import { parseCallerConfig } from '../../protocol/json/caller-config.ts';
import { bridgeSettingsOf, DEFAULT_IQ_TIMEOUT_SECONDS, DEFAULT_POLL_SECONDS } from './bridge-settings.ts';

const DEFAULTS = { iqTimeoutSeconds: DEFAULT_IQ_TIMEOUT_SECONDS, pollSeconds: DEFAULT_POLL_SECONDS };

describe('bridge settings', () => {
  it('splits a bare JID, normalizes endpoints and has no call limit without timeoutSeconds', () => {
    const config = parseCallerConfig(
      JSON.stringify({
        xmpp: { jid: 'Bob@Server.example', password: 'secret', host: '127.0.0.1', port: 5222 },
        endpoints: [{ jid: 'Weather@agents.example' }],
      }),
      'caller.json',
    );
    expect(bridgeSettingsOf(config, DEFAULTS)).toEqual({
      xmpp: {
        bareJid: 'bob@server.example',
        localpart: 'Bob',
        domain: 'Server.example',
        password: 'secret',
        host: '127.0.0.1',
        port: 5222,
      },
      endpoints: [{ jid: 'weather@agents.example' }],
      iqTimeoutMs: 10_000,
      pollMs: 5000,
    });
  });

  it('binds the resource of a full JID and keeps pins, the call limit and the timings', () => {
    const config = parseCallerConfig(
      JSON.stringify({
        xmpp: { jid: 'bob@server.example/bridge', password: 'p', host: '127.0.0.1', port: 5322 },
        endpoints: [{ jid: 'weather@agents.example', version: '1.4.0' }],
        timeoutSeconds: 2.5,
      }),
      'caller.json',
    );
    expect(bridgeSettingsOf(config, { iqTimeoutSeconds: 1, pollSeconds: 0.5 })).toMatchObject({
      xmpp: { resource: 'bridge', host: '127.0.0.1', port: 5322 },
      endpoints: [{ jid: 'weather@agents.example', version: '1.4.0' }],
      callTimeoutMs: 2500,
      iqTimeoutMs: 1000,
      pollMs: 500,
    });
  });
});
