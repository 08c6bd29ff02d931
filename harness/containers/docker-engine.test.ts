// Engine discovery and the decisions around it, without Docker: a fake engine answers on a unix
// socket of the test's own, and DOCKER_HOST points testcontainers' client at it (each test file
// runs in a process of its own, and the client is found once per process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { decideSetup } from '../federation/debian-packages.ts';
import { systemTool } from '../system-tools.ts';
import {
  decideDockerSetup,
  describeConnection,
  ensureDockerEngine,
  findDockerEngine,
  type DockerSetupFacts,
} from './docker-engine.ts';
import { resolveProsodyImage } from './prosody-image.ts';
import { startFakeDockerEngine, type FakeDockerEngine } from './test-support/fake-docker-engine.ts';

describe('the engine testcontainers finds', () => {
  let engine: FakeDockerEngine;

  beforeAll(async () => {
    engine = await startFakeDockerEngine({
      version: '99.0.0',
      apiVersion: '1.99',
      images: ['local/prosody:0.12'],
      logs: new Map(),
    });
    process.env['DOCKER_HOST'] = engine.dockerHost;
  });

  afterAll(async () => {
    delete process.env['DOCKER_HOST'];
    await engine.close();
  });

  it('is asked for its version and said where it answers', async () => {
    const found = await findDockerEngine();
    expect(found).toEqual({
      version: '99.0.0',
      apiVersion: '1.99',
      where: engine.dockerHost,
      connection: { socketPath: engine.socketPath, protocol: 'http' },
      startedByAgentconf: false,
    });
    await expect(ensureDockerEngine()).resolves.toEqual(found);
    expect(engine.calls).toContain('GET /info');
  });

  it('tells which Prosody image it has', async () => {
    await expect(resolveProsodyImage(undefined, {})).resolves.toEqual({
      image: 'local/prosody:0.12',
      reason: 'locally built image, present',
      present: true,
    });
    expect(engine.calls).toContain('GET /images/prosody/prosody:0.12/json');
  });
});

describe('no engine', () => {
  it('is undefined when no engine is found or it does not answer in time', async () => {
    const none = (): Promise<never> =>
      Promise.reject(new Error('Could not find a working container runtime strategy'));
    expect(await findDockerEngine({ connect: none })).toBeUndefined();
    const began = performance.now();
    const silent = (): Promise<never> => new Promise(() => undefined);
    expect(await findDockerEngine({ connect: silent, timeoutMs: 50 })).toBeUndefined();
    expect(performance.now() - began).toBeLessThan(1_000);
  });

  it('is described by its connection', () => {
    expect(describeConnection({ socketPath: '/run/user/1000/docker.sock' })).toBe(
      'unix:///run/user/1000/docker.sock',
    );
    expect(describeConnection({ host: '10.0.0.5', port: '2375', protocol: 'http' })).toBe(
      'tcp://10.0.0.5:2375',
    );
    expect(describeConnection({ host: '10.0.0.5', port: 2376, protocol: 'https' })).toBe(
      'https://10.0.0.5:2376',
    );
  });
});

describe('getting an engine', () => {
  const facts: DockerSetupFacts = { answers: false, dockerHostSet: false, isRoot: true };

  it('uses an engine that answers, whatever else is true', () => {
    expect(decideDockerSetup({ ...facts, answers: true, isRoot: false })).toEqual({ action: 'use' });
  });

  it('starts dockerd as root; docker.io is installed first, by the system-tools installer, when dockerd is missing', () => {
    expect(decideDockerSetup(facts)).toEqual({ action: 'start' });
    const docker = systemTool('docker');
    const missing = { programPath: undefined, missingPackages: ['docker.io'], isRoot: true, hasApt: true };
    expect(decideSetup(docker, missing)).toEqual({ action: 'install', packages: ['docker.io'] });
  });

  it('refuses with the reason and what to do otherwise', () => {
    const notRoot = decideDockerSetup({ ...facts, isRoot: false });
    expect(notRoot).toMatchObject({ action: 'refuse' });
    expect(notRoot.action === 'refuse' && notRoot.message).toMatch(
      /only root may start one.*docker-engine-cli\.ts start/s,
    );
    const remote = decideDockerSetup({ ...facts, dockerHostSet: true });
    expect(remote.action === 'refuse' && remote.message).toMatch(/DOCKER_HOST/);
    const noApt = decideSetup(systemTool('docker'), {
      programPath: undefined,
      missingPackages: ['docker.io'],
      isRoot: true,
      hasApt: false,
    });
    expect(noApt).toMatchObject({ action: 'refuse', reason: 'no apt-get' });
    expect(noApt.action === 'refuse' && noApt.message).toMatch(/apt-get install -y docker\.io/);
  });
});
