// The bridge config (docs/mcp-bridge.md): defaults filled in, every bad field a problem at its
// JSON pointer, the rules a schema cannot say (JIDs, one entry per endpoint, CA with direct TLS).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../protocol/json/config-file.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { bridgeConfigOf, loadBridgeConfig } from './bridge-config.ts';

const MINIMAL: JsonObject = {
  xmpp: { jid: 'Bob@Server.example', password: 'secret' },
  endpoints: [{ jid: 'Weather@agents.example' }],
};

function problems(value: JsonObject): string[] {
  try {
    bridgeConfigOf(value, 'bridge.json');
  } catch (error) {
    if (error instanceof ConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
    throw error;
  }
  return [];
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-bridge-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('bridge config', () => {
  it('fills in the defaults and normalizes JIDs', () => {
    expect(bridgeConfigOf(MINIMAL, 'bridge.json')).toEqual({
      xmpp: {
        bareJid: 'bob@server.example',
        localpart: 'Bob',
        domain: 'Server.example',
        password: 'secret',
        host: 'Server.example',
        port: 5223,
        tls: 'direct',
      },
      endpoints: [{ jid: 'weather@agents.example' }],
      iqTimeoutMs: 10_000,
      pollMs: 5000,
    });
  });

  it('takes a full JID, a pinned version, the time limits and a CA file relative to the config', () => {
    writeFileSync(join(dir, 'ca.pem'), 'PEM TEXT');
    writeFileSync(
      join(dir, 'bridge.json'),
      JSON.stringify({
        xmpp: {
          jid: 'bob@server.example/bridge',
          password: 'p',
          host: '127.0.0.1',
          port: 5322,
          ca: 'ca.pem',
        },
        endpoints: [{ jid: 'weather@agents.example', version: '1.4.0' }],
        timeoutSeconds: 2.5,
        iqTimeoutSeconds: 1,
        pollSeconds: 0.5,
      }),
    );
    expect(loadBridgeConfig(join(dir, 'bridge.json'))).toMatchObject({
      xmpp: { resource: 'bridge', host: '127.0.0.1', port: 5322, ca: 'PEM TEXT' },
      endpoints: [{ jid: 'weather@agents.example', version: '1.4.0' }],
      callTimeoutMs: 2500,
      iqTimeoutMs: 1000,
      pollMs: 500,
    });
  });

  it.each<[string, JsonObject, RegExp]>([
    ['an unknown member', { ...MINIMAL, extra: 1 }, /^\/extra: unknown member/],
    [
      'a JID without a localpart',
      { ...MINIMAL, xmpp: { jid: 'server.example', password: 'p' } },
      /^\/xmpp\/jid/,
    ],
    ['a zero timeout', { ...MINIMAL, timeoutSeconds: 0 }, /^\/timeoutSeconds/],
    [
      'a bad version',
      { ...MINIMAL, endpoints: [{ jid: 'a@b.example', version: 'one two' }] },
      /^\/endpoints\/0\/version/,
    ],
    [
      'the same endpoint twice',
      { ...MINIMAL, endpoints: [{ jid: 'a@b.example' }, { jid: 'A@b.example' }] },
      /^\/endpoints\/1\/jid: the same endpoint/,
    ],
    [
      'a CA with STARTTLS',
      { ...MINIMAL, xmpp: { jid: 'a@b.example', password: 'p', tls: 'starttls', ca: 'x.pem' } },
      /^\/xmpp\/ca/,
    ],
    ['no endpoint', { ...MINIMAL, endpoints: [] }, /^\/endpoints/],
  ])('refuses %s', (_label, value, expected) => {
    expect(problems(value).join('\n')).toMatch(expected);
  });

  it('names an unreadable CA file', () => {
    writeFileSync(
      join(dir, 'bridge.json'),
      JSON.stringify({ ...MINIMAL, xmpp: { jid: 'a@b.example', password: 'p', ca: 'missing.pem' } }),
    );
    expect(() => loadBridgeConfig(join(dir, 'bridge.json'))).toThrow(
      /\/xmpp\/ca: cannot read .*missing\.pem \(ENOENT\)/,
    );
  });
});
