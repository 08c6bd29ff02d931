// Engine discovery and the decisions around it, without Docker: a fake engine answers on a unix
// socket of the test's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  demultiplexLogs,
  dockerEndpointCandidates,
  imageExists,
  parseDockerHost,
  pingDockerEngine,
  type DockerEndpoint,
} from './docker-api.ts';
import { decideDockerSetup, findDockerEngine, type DockerSetupFacts } from './docker-engine.ts';

describe('Docker endpoints', () => {
  it('parses DOCKER_HOST', () => {
    expect(parseDockerHost('unix:///run/user/1000/docker.sock')).toEqual({
      kind: 'unix',
      socketPath: '/run/user/1000/docker.sock',
    });
    expect(parseDockerHost('tcp://10.0.0.5:2375')).toEqual({ kind: 'tcp', host: '10.0.0.5', port: 2375 });
    expect(parseDockerHost('tcp://[::1]:2375')).toEqual({ kind: 'tcp', host: '::1', port: 2375 });
    expect(parseDockerHost('ssh://user@host')).toBeUndefined();
  });

  it('looks where testcontainers looks: DOCKER_HOST alone, else the system socket, then rootless ones', () => {
    expect(dockerEndpointCandidates({ DOCKER_HOST: 'tcp://h:1' }, '/home/u')).toEqual([
      { kind: 'tcp', host: 'h', port: 1 },
    ]);
    expect(dockerEndpointCandidates({ XDG_RUNTIME_DIR: '/run/user/1000' }, '/home/u')).toEqual([
      { kind: 'unix', socketPath: '/var/run/docker.sock' },
      { kind: 'unix', socketPath: '/run/user/1000/docker.sock' },
      { kind: 'unix', socketPath: '/home/u/.docker/run/docker.sock' },
    ]);
  });

  it('splits the multiplexed log stream of a container', () => {
    const frame = (type: number, text: string): Buffer => {
      const head = Buffer.alloc(8);
      head[0] = type;
      head.writeUInt32BE(Buffer.byteLength(text), 4);
      return Buffer.concat([head, Buffer.from(text)]);
    };
    expect(demultiplexLogs(Buffer.concat([frame(1, 'startup info\n'), frame(2, 'oops\n')]))).toBe(
      'startup info\noops\n',
    );
    expect(demultiplexLogs(Buffer.from('plain tty output\n'))).toBe('plain tty output\n');
  });
});

describe('a fake engine on a unix socket', () => {
  let dir: string;
  let server: Server;
  let endpoint: DockerEndpoint;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentconf-fake-docker-'));
    endpoint = { kind: 'unix', socketPath: join(dir, 'docker.sock') };
    server = createServer((request, response) => {
      if (request.url === '/version') {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ Version: '99.0.0', ApiVersion: '1.99' }));
      } else if (request.url === `/images/${encodeURIComponent('local/prosody:0.12')}/json`) {
        response.end('{}');
      } else {
        response.statusCode = 404;
        response.end('{"message":"No such image"}');
      }
    });
    await new Promise<void>((resolve) =>
      server.listen(endpoint.kind === 'unix' ? endpoint.socketPath : '', resolve),
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('is found and asked for its version; a socket nobody listens on is skipped', async () => {
    const nobody: DockerEndpoint = { kind: 'unix', socketPath: join(dir, 'nobody.sock') };
    expect(await pingDockerEngine(nobody)).toBeUndefined();
    const engine = await findDockerEngine([nobody, endpoint]);
    expect(engine).toMatchObject({ endpoint, version: '99.0.0', apiVersion: '1.99' });
    expect(await findDockerEngine([nobody])).toBeUndefined();
  });

  it('tells which images it has', async () => {
    expect(await imageExists(endpoint, 'local/prosody:0.12')).toBe(true);
    expect(await imageExists(endpoint, 'prosody/prosody:0.12')).toBe(false);
  });
});

describe('getting an engine', () => {
  const facts: DockerSetupFacts = {
    answers: false,
    dockerHostSet: false,
    dockerdPath: '/usr/sbin/dockerd',
    isRoot: true,
    hasApt: true,
  };

  it('uses an engine that answers, whatever else is true', () => {
    expect(decideDockerSetup({ ...facts, answers: true, isRoot: false })).toEqual({ action: 'use' });
  });

  it('starts dockerd as root, installing docker.io first when dockerd is missing', () => {
    expect(decideDockerSetup(facts)).toEqual({ action: 'start', install: false });
    expect(decideDockerSetup({ ...facts, dockerdPath: undefined })).toEqual({
      action: 'start',
      install: true,
    });
  });

  it('refuses with the reason and what to do otherwise', () => {
    const notRoot = decideDockerSetup({ ...facts, isRoot: false });
    expect(notRoot).toMatchObject({ action: 'refuse' });
    expect(notRoot.action === 'refuse' && notRoot.message).toMatch(
      /only root may start one.*docker-engine-cli\.ts start/s,
    );
    const remote = decideDockerSetup({ ...facts, dockerHostSet: true });
    expect(remote.action === 'refuse' && remote.message).toMatch(/DOCKER_HOST/);
    const noApt = decideDockerSetup({ ...facts, dockerdPath: undefined, hasApt: false });
    expect(noApt.action === 'refuse' && noApt.message).toMatch(/no apt-get/);
  });
});
