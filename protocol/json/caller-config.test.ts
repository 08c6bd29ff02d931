import { describe, expect, it } from 'vitest';

import { parseCallerConfig } from './caller-config.ts';
import { ConfigError } from './config-file.ts';

const VALID = {
  xmpp: { jid: 'bridge@example.com', password: 'pw', host: '127.0.0.1', port: 5222 },
  endpoints: [{ jid: 'weather@target.example', version: '2.0.0' }, { jid: 'calendar@target.example' }],
  timeoutSeconds: 2.5,
};

function problemsOf(value: unknown): string[] {
  try {
    parseCallerConfig(JSON.stringify(value), 'c.json');
  } catch (error) {
    if (error instanceof ConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return [];
}

describe('caller config', () => {
  it('reads a valid config as it is written', () => {
    expect(parseCallerConfig(JSON.stringify(VALID), 'c.json')).toEqual(VALID);
  });

  it('names every bad field at its pointer, all at once', () => {
    const bad = {
      xmpp: { jid: 'bridge@example.com/phone/', password: '', host: '127.0.0.1', port: 70000, tls: true },
      endpoints: [{ jid: 'weather@target.example/x' }, { jid: 'w@t.example', version: 'a b' }],
      timeoutSeconds: 0,
    };
    expect(problemsOf(bad)).toEqual(
      expect.arrayContaining([
        '/xmpp/password: must not be empty',
        expect.stringMatching(/^\/xmpp\/port: /),
        expect.stringMatching(/^\/xmpp\/tls: unknown member "tls"/),
        expect.stringMatching(/^\/endpoints\/0\/jid: must match/),
        expect.stringMatching(/^\/endpoints\/1\/version: must match/),
        expect.stringMatching(/^\/timeoutSeconds: /),
      ]),
    );
    expect(problemsOf({ xmpp: VALID.xmpp, endpoints: [] })).toEqual([
      expect.stringMatching(/^\/endpoints: /),
    ]);
    expect(problemsOf({ endpoints: VALID.endpoints })).toEqual(['/xmpp: "xmpp" is required']);
  });

  it('refuses a JID that breaks RFC 7622 and an endpoint listed twice', () => {
    const twice = { ...VALID, endpoints: [{ jid: 'w@t.example' }, { jid: 'w@t.example' }] };
    expect(problemsOf(twice)).toEqual(['/endpoints/1/jid: listed twice']);
    const spelledTwice = { ...VALID, endpoints: [{ jid: 'W@t.example' }, { jid: 'w@T.example' }] };
    expect(problemsOf(spelledTwice)).toEqual(['/endpoints/1/jid: listed twice']);
    const long = { ...VALID, xmpp: { ...VALID.xmpp, jid: `${'a'.repeat(1100)}@example.com` } };
    expect(problemsOf(long)).toEqual([expect.stringMatching(/^\/xmpp\/jid: not a valid JID/)]);
  });

  it('refuses duplicate member names and text that is not JSON', () => {
    expect(() => parseCallerConfig('{"xmpp": {}, "xmpp": {}}', 'c.json')).toThrow(/not acceptable JSON/);
    expect(() => parseCallerConfig('{', 'c.json')).toThrow(ConfigError);
  });
});
