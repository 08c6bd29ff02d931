// Provider selection without Docker: the engine finder is injected, nothing is started.
import { describe, expect, it } from 'vitest';

import type { DockerEngine } from '../containers/docker-engine.ts';
import { imageBuildable } from '../containers/prosody-image.ts';
import { decideAuto, isProviderChoice, PROVIDER_CHOICES, selectProvider } from './auto-provider.ts';

const ENGINE: DockerEngine = {
  version: '20.10.24',
  apiVersion: '1.41',
  where: 'unix:///var/run/docker.sock',
  connection: { socketPath: '/var/run/docker.sock' },
  startedByAgentconf: false,
};

describe('provider selection', () => {
  it('auto: containers only when the engine has a Prosody image or one can be built, and says why', () => {
    const engine = { version: '27.1.0', where: 'unix:///var/run/docker.sock' };
    expect(decideAuto({})).toEqual({
      name: 'native',
      reason: 'auto: native Prosody processes (no Docker engine answers)',
    });
    expect(decideAuto({ engine, image: { image: 'local/prosody:0.12', present: true } })).toEqual({
      name: 'container',
      reason:
        'auto: containers (Docker 27.1.0 answers at unix:///var/run/docker.sock and has local/prosody:0.12)',
    });
    expect(
      decideAuto({
        engine,
        image: { image: 'prosody/prosody:0.12', present: false },
        build: { possible: true, why: 'root' },
      }),
    ).toEqual({
      name: 'container',
      reason:
        'auto: containers (Docker 27.1.0 answers at unix:///var/run/docker.sock; it has no Prosody image (prosody/prosody:0.12), so local/prosody:0.12 is built first, once: 1.5–3 min)',
      buildImage: true,
    });
    expect(
      decideAuto({
        engine,
        image: { image: 'prosody/prosody:0.12', present: false },
        build: imageBuildable({
          linux: true,
          root: false,
          localEngine: true,
          docker: true,
          debootstrapOrApt: false,
        }),
      }),
    ).toEqual({
      name: 'native',
      reason:
        'auto: native Prosody processes (Docker 27.1.0 answers at unix:///var/run/docker.sock, but it has no Prosody image (prosody/prosody:0.12) and none can be built here: not root, neither debootstrap nor apt-get)',
    });
  });

  it('auto asks the engine finder once, the image only with an engine, the build only without an image', async () => {
    const asked: string[] = [];
    const select = (image: boolean, build: boolean) =>
      selectProvider('auto', {
        findEngine: () => {
          asked.push('engine');
          return Promise.resolve(ENGINE);
        },
        findImage: () => {
          asked.push('image');
          return Promise.resolve({ image: 'prosody/prosody:0.12', present: image });
        },
        canBuildImage: () => {
          asked.push('build');
          return Promise.resolve({ possible: build, why: 'not root' });
        },
      });
    const withImage = await select(true, false);
    expect(withImage.name).toBe('container');
    expect(withImage.provider.name).toBe('container');
    expect(withImage.reason).toBe(
      'auto: containers (Docker 20.10.24 answers at unix:///var/run/docker.sock and has prosody/prosody:0.12)',
    );
    expect(asked).toEqual(['engine', 'image']);
    expect((await select(false, true)).name).toBe('container');
    const neither = await select(false, false);
    expect(neither.name).toBe('native');
    expect(neither.provider.name).toBe('native');
    expect(asked).toEqual(['engine', 'image', 'engine', 'image', 'build', 'engine', 'image', 'build']);

    const without = await selectProvider('auto', {
      findEngine: () => Promise.resolve(undefined),
      findImage: () => Promise.reject(new Error('must not be asked')),
    });
    expect(without.name).toBe('native');
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

  it('auto builds a pair topology natively, without asking Docker', async () => {
    const selection = await selectProvider('auto', {
      pair: true,
      findEngine: () => Promise.reject(new Error('auto asked for an engine')),
    });
    expect(selection.name).toBe('native');
    expect(selection.reason).toMatch(/pair topology/);
  });

  it('recognises the four choices', () => {
    expect(PROVIDER_CHOICES).toEqual(['auto', 'native', 'container', 'external']);
    expect(PROVIDER_CHOICES.every(isProviderChoice)).toBe(true);
    expect(isProviderChoice('docker')).toBe(false);
  });
});
