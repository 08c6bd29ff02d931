// Provider selection without Docker: the engine finder is injected, nothing is started.
import { describe, expect, it } from 'vitest';

import type { DockerEngine } from '../containers/docker-engine.ts';
import { decideAuto, isProviderChoice, PROVIDER_CHOICES, selectProvider } from './auto-provider.ts';

const ENGINE: DockerEngine = {
  endpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' },
  version: '20.10.24',
  apiVersion: '1.41',
  startedByAgentconf: false,
};

describe('provider selection', () => {
  it('auto: container when an engine answers, native otherwise, and says why', () => {
    expect(decideAuto(undefined)).toEqual({
      name: 'native',
      reason: 'auto: no Docker engine answers, native Prosody processes',
    });
    expect(decideAuto({ version: '27.1.0', where: 'unix:///var/run/docker.sock' })).toEqual({
      name: 'container',
      reason: 'auto: Docker 27.1.0 answers at unix:///var/run/docker.sock',
    });
  });

  it('auto asks the engine finder once and returns the provider it chose, without starting anything', async () => {
    let asked = 0;
    const withEngine = await selectProvider('auto', {
      findEngine: () => {
        asked += 1;
        return Promise.resolve(ENGINE);
      },
    });
    expect(withEngine.name).toBe('container');
    expect(withEngine.provider.name).toBe('container');
    expect(withEngine.reason).toBe('auto: Docker 20.10.24 answers at unix:///var/run/docker.sock');

    const without = await selectProvider('auto', {
      findEngine: () => {
        asked += 1;
        return Promise.resolve(undefined);
      },
    });
    expect(without.name).toBe('native');
    expect(without.provider.name).toBe('native');
    expect(asked).toBe(2);
  });

  it('takes native, container and external as asked, without looking for an engine', async () => {
    const findEngine = (): Promise<undefined> => Promise.reject(new Error('must not be asked'));
    expect((await selectProvider('native', { findEngine })).provider.name).toBe('native');
    expect((await selectProvider('container', { findEngine })).provider.name).toBe('container');
    const external = await selectProvider('external', {
      findEngine,
      external: {
        servers: { a: { host: '192.0.2.1' }, b: { host: '192.0.2.2' } },
        component: { host: '192.0.2.2', secret: 's3cret' },
        accounts: [],
        caCertPath: '/etc/ssl/ca.pem',
      },
    });
    expect(external.provider.name).toBe('external');
    await expect(selectProvider('external', { findEngine })).rejects.toThrow(/needs a config/);
  });

  it('recognises the four choices', () => {
    expect(PROVIDER_CHOICES).toEqual(['auto', 'native', 'container', 'external']);
    expect(PROVIDER_CHOICES.every(isProviderChoice)).toBe(true);
    expect(isProviderChoice('docker')).toBe(false);
  });
});
