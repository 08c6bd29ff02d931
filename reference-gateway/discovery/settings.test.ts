import { describe, expect, it } from 'vitest';
import { DiscoverySettingsError, checkDiscoverySettings } from './settings.ts';
import type { DiscoverySettings } from './settings.ts';
import { SETTINGS } from './test-support/discovery-kit.ts';

const check = (overrides: Partial<DiscoverySettings>): DiscoverySettings =>
  checkDiscoverySettings({ ...SETTINGS, ...overrides });

describe('discovery settings', () => {
  it('normalizes the gateway JID', () => {
    expect(check({ gatewayJid: 'Agents.Example.' }).gatewayJid).toBe('agents.example');
  });

  it.each([
    ['a gateway JID with a localpart', { gatewayJid: 'gw@agents.example' }],
    ['a gateway JID with a resource', { gatewayJid: 'agents.example/x' }],
    ['an invalid gateway JID', { gatewayJid: 'a b' }],
    ['an empty gateway name', { gatewayName: ' ' }],
    ['a page maximum of 0', { pageMaximum: 0 }],
    ['a fractional page maximum', { pageMaximum: 2.5 }],
    ['a replay window of 0', { requestReplaySeconds: 0 }],
    [
      'task sub-features without the core',
      { taskFeatures: { core: false, progress: true, cancel: false, input: false } },
    ],
  ] as const)('refuses %s', (_title, overrides) => {
    expect(() => check(overrides)).toThrow(DiscoverySettingsError);
  });
});
