// The exit-time remover, without Docker: a fake engine in a process of its own (the remover runs
// synchronously, so this process could not answer it) records what it is asked to delete.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ManagedProcess } from '../faults/managed-process.ts';
import { removeDockerResourcesSync } from './container-cleanup.ts';

/** Answers every call with 204 and prints it as `METHOD URL`. */
const FAKE_ENGINE = String.raw`
const http = require('node:http');
http
  .createServer((request, response) => {
    console.log(request.method + ' ' + request.url);
    response.statusCode = 204;
    response.end();
  })
  .listen(process.argv[1], () => console.log('listening'));
`;

describe('the exit-time remover', () => {
  let dir: string;
  let engine: ManagedProcess;
  let socketPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentconf-fake-docker-'));
    socketPath = join(dir, 'docker.sock');
    engine = await ManagedProcess.start({
      name: 'fake Docker engine',
      command: process.execPath,
      args: ['-e', FAKE_ENGINE, socketPath],
    });
    await engine.waitForOutput(/^listening$/m);
  });

  afterAll(async () => {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('force-removes the containers with their volumes, then the networks, through dockerode', async () => {
    removeDockerResourcesSync({ socketPath }, ['c1', 'c2'], ['n1']);
    await engine.waitForOutput(/^DELETE \/networks\/n1$/m);
    const calls = engine.output
      .split('\n')
      .filter((line) => line.startsWith('DELETE '))
      .sort();
    expect(calls).toEqual([
      'DELETE /containers/c1?force=true&v=true',
      'DELETE /containers/c2?force=true&v=true',
      'DELETE /networks/n1',
    ]);
    expect(engine.output.indexOf('/networks/n1')).toBeGreaterThan(engine.output.indexOf('/containers/c2'));
  });
});
