import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { engineSockets, noEnginePlace, type EnginePlaceFacts } from './engine-places.ts';

function facts(
  overrides: Partial<EnginePlaceFacts> & { present?: readonly string[] } = {},
): EnginePlaceFacts {
  const present = new Set(overrides.present ?? []);
  return {
    platform: 'linux',
    env: {},
    home: '/home/dev',
    uid: 1000,
    exists: (path) => present.has(path),
    ...overrides,
  };
}

describe('noEnginePlace', () => {
  it('is true on Linux with no socket, no DOCKER_HOST and no ~/.testcontainers.properties', () => {
    expect(noEnginePlace(facts())).toBe(true);
    expect(noEnginePlace(facts({ platform: 'darwin' }))).toBe(true);
  });

  it.each(engineSockets({ env: { XDG_RUNTIME_DIR: '/run/user/1000' }, home: '/home/dev', uid: 1000 }))(
    'is false when %s exists',
    (socket) => {
      expect(noEnginePlace(facts({ env: { XDG_RUNTIME_DIR: '/run/user/1000' }, present: [socket] }))).toBe(
        false,
      );
    },
  );

  it('is false with DOCKER_HOST set, a properties file, or on Windows (a named pipe)', () => {
    expect(noEnginePlace(facts({ env: { DOCKER_HOST: 'tcp://10.0.0.5:2375' } }))).toBe(false);
    expect(noEnginePlace(facts({ present: ['/home/dev/.testcontainers.properties'] }))).toBe(false);
    expect(noEnginePlace(facts({ platform: 'win32' }))).toBe(false);
  });

  it('knows every strategy and socket of the installed testcontainers (an upgrade that adds one fails here)', () => {
    const require = createRequire(import.meta.url);
    const build = dirname(require.resolve('testcontainers'));
    const client = readFileSync(join(build, 'container-runtime', 'clients', 'client.js'), 'utf8');
    const strategies = [...client.matchAll(/new [\w.]*?(\w+Strategy)\(\)/g)].map((match) => match[1]);
    expect(strategies).toEqual([
      'TestcontainersHostStrategy',
      'ConfigurationStrategy',
      'UnixSocketStrategy',
      'RootlessUnixSocketStrategy',
      'NpipeSocketStrategy',
    ]);
    const strategiesDir = join(build, 'container-runtime', 'strategies');
    const sockets = ['unix-socket-strategy.js', 'rootless-unix-socket-strategy.js']
      .map((file) => readFileSync(join(strategiesDir, file), 'utf8'))
      .join('\n');
    for (const place of [
      'existsSync)("/var/run/docker.sock")',
      'this.env["XDG_RUNTIME_DIR"]',
      'homedir(), ".docker", "run", "docker.sock"',
      'homedir(), ".docker", "desktop", "docker.sock"',
      'path_1.default.join("/run", "user", `${os_1.default.userInfo().uid}`, "docker.sock")',
    ]) {
      expect(sockets, place).toContain(place);
    }
    expect([...sockets.matchAll(/this\.getSocketPathFrom\w+\(\),/g)].length).toBe(4);
    const config = readFileSync(join(strategiesDir, 'utils', 'config.js'), 'utf8');
    expect(new Set([...config.matchAll(/env\["(\w+)"\]/g)].map((match) => match[1]))).toEqual(
      new Set(['DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH']),
    );
  });
});
