// What a server container is given, checked without Docker: the generated files in the staging
// directory use the paths inside the container, listen on every interface, ask the run's DNS stub
// and log to the console. Its log is read from a fake engine (DOCKER_HOST points testcontainers'
// client at it; each test file runs in a process of its own).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DockerResourceGuard } from '../containers/container-cleanup.ts';
import {
  logFrame,
  startFakeDockerEngine,
  type FakeDockerEngine,
} from '../containers/test-support/fake-docker-engine.ts';
import { ContainerServer, containerLog } from './container-server.ts';
import { FEDERATION_PORTS } from './federation-topology.ts';
import { accountFilePath } from './prosody-accounts.ts';

describe('container server files', () => {
  let dir: string;
  let server: ContainerServer;
  const guard = new DockerResourceGuard({ socketPath: '/nonexistent/docker.sock' });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentconf-container-server-'));
    server = await ContainerServer.prepare({
      role: 'b',
      image: 'local/prosody:0.12',
      name: 'agentconf-test-b',
      labels: {},
      networkName: 'agentconf-test',
      hostDir: dir,
      certificate: { certPath: join(dir, 'host.crt'), keyPath: join(dir, 'host.key') },
      caCertPath: join(dir, 'ca.crt'),
      hostAddress: '127.9.8.7',
      ports: FEDERATION_PORTS,
      virtualHosts: ['server.example'],
      components: [{ domain: 'agents.example', secret: 'sekrit' }],
      resolver: { host: '172.18.0.1', port: 40000 },
      logLevel: 'info',
      s2sTimeoutSeconds: 10,
      iterationCount: 1,
      readyTimeoutMs: 1_000,
      guard,
    });
  });

  afterAll(async () => {
    guard.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('renders a config with container paths, every interface, the stub as resolver and console logging', async () => {
    const config = await readFile(server.configPath, 'utf8');
    expect(config).toContain('data_path = "/agentconf/server/data"');
    expect(config).toContain('interfaces = { "*" }');
    expect(config).toContain('component_interfaces = { "*" }');
    expect(config).toContain('forward = "172.18.0.1@40000"');
    expect(config).toContain('hoststxt = "/agentconf/server/hosts"');
    expect(config).toContain('log = { info = "*console" }');
    expect(config).toContain('run_as_root = true');
    expect(config).toContain(
      'certificate = "/agentconf/certs/server.crt"; key = "/agentconf/certs/server.key"',
    );
    expect(config).toContain('Component "agents.example"');
    expect(config).not.toContain(dir);
  });

  it('publishes on its host address and stages accounts before the container exists', async () => {
    expect(server.c2sDirectTls).toEqual({ host: '127.9.8.7', port: 5223 });
    expect(server.domains).toEqual(['server.example', 'agents.example']);
    expect(server.containerId).toBeUndefined();
    await server.addAccount('bob', 'server.example', 'pw');
    const account = await readFile(accountFilePath(join(dir, 'data'), 'server.example', 'bob'), 'utf8');
    expect(account).toMatch(/\["iteration_count"\] = 1;/);
    expect(await server.readLog()).toBe('');
  });
});

describe('a container log', () => {
  let engine: FakeDockerEngine;

  beforeAll(async () => {
    engine = await startFakeDockerEngine({
      version: '99.0.0',
      apiVersion: '1.99',
      images: [],
      logs: new Map([
        ['multiplexed', Buffer.concat([logFrame(1, 'startup info\n'), logFrame(2, 'oops\n')])],
        ['tty', Buffer.from('plain tty output\n')],
        ['silent', Buffer.alloc(0)],
      ]),
    });
    process.env['DOCKER_HOST'] = engine.dockerHost;
  });

  afterAll(async () => {
    delete process.env['DOCKER_HOST'];
    await engine.close();
  });

  it('is stdout and stderr in the order written, split from the engine frames (or as is from a TTY)', async () => {
    expect(await containerLog('multiplexed')).toBe('startup info\noops\n');
    expect(await containerLog('tty')).toBe('plain tty output\n');
    expect(await containerLog('silent')).toBe('');
    expect(engine.calls).toContain('GET /containers/multiplexed/logs');
  });
});
