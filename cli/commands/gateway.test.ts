// `agentconf gateway` start failures through the CLI's main(): each exits 1 with one readable
// line naming what failed (the world's problems follow, one per line), never a stack trace, and
// leaves no signal handler or socket behind. A refused component secret needs a real server and
// is tested in reference-gateway/component/gateway-component.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { REFERENCE_WORLD } from '../../reference-gateway/registration/test-support/manifests.ts';
import type { CliIo } from '../io.ts';
import { main } from '../main.ts';
import { closedPort } from '../test-support/closed-port.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-gateway-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function runGateway(config: JsonObject): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = join(dir, 'gateway.json');
  writeFileSync(path, JSON.stringify(config));
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: (file) => readFileSync(file),
  };
  const signalHandlers = process.listenerCount('SIGTERM') + process.listenerCount('SIGINT');
  const code = await main(['gateway', '--config', path], io);
  expect(process.listenerCount('SIGTERM') + process.listenerCount('SIGINT')).toBe(signalHandlers);
  expect(stderr).not.toMatch(/^\s+at /m);
  return { code, stdout, stderr };
}

async function config(extra: JsonObject = {}): Promise<JsonObject> {
  return {
    component: { domain: 'agents.example', host: '127.0.0.1', port: await closedPort(), secret: 's' },
    database: 'gateway.sqlite',
    ...extra,
  };
}

describe('agentconf gateway start failures', () => {
  it('an invalid fixture world: one line naming the world, then its problems', async () => {
    writeFileSync(
      join(dir, 'world.json'),
      JSON.stringify({
        endpoints: [{ jid: 'weather@agents.example', versions: [{ file: 'missing.json' }], active: '1.0.0' }],
      }),
    );
    const result = await runGateway(await config({ world: 'world.json' }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `agentconf gateway: cannot load the fixture world ${join(dir, 'world.json')}: 1 problem(s)\n` +
        `  /endpoints/0/versions/0/file: cannot read ${join(dir, 'missing.json')} (ENOENT)\n`,
    );
  });

  it('a world whose manifest breaks the rules: the provisioning problems are listed', async () => {
    writeFileSync(
      join(dir, 'world.json'),
      JSON.stringify({
        endpoints: [
          {
            jid: 'echo@agents.example',
            versions: [
              {
                manifest: {
                  manifestSpecVersion: '0',
                  agent: { jid: 'other@agents.example', name: 'echo', version: '1' },
                  tools: [],
                },
              },
            ],
          },
        ],
      }),
    );
    const result = await runGateway(await config({ world: 'world.json' }));
    expect(result.code).toBe(1);
    const [first, ...problems] = result.stderr.trimEnd().split('\n');
    expect(first).toBe(
      `agentconf gateway: cannot load the fixture world ${join(dir, 'world.json')}: 1 problem(s)`,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^ {2}\/endpoints\/0\/versions\/0\S*: /);
  });

  it.each([
    ['in a directory that does not exist', 'absent/gateway.sqlite', /the directory does not exist/],
    ['that is a directory', '.', /\(SQLITE_CANTOPEN\)$/],
    ['that is not a database', 'garbage.sqlite', /\(SQLITE_NOTADB\)$/],
  ])('a database %s: one line naming the database', async (_label, database, reason) => {
    writeFileSync(join(dir, 'garbage.sqlite'), 'this is not an SQLite file, not even close'.repeat(100));
    const result = await runGateway(await config({ database, world: REFERENCE_WORLD }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^agentconf gateway: cannot open the database ${join(dir, database)}: `),
    );
    expect(lines[0]).toMatch(reason);
  });

  it('a refused first connection: one line naming the server, no retry', async () => {
    const settings = await config();
    const result = await runGateway(settings);
    const { port } = settings['component'] as { port: number };
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `agentconf gateway: cannot connect as agents.example to 127.0.0.1:${String(port)} (ECONNREFUSED)\n`,
    });
  });

  it('a server that accepts but never speaks: one line once the attempt deadline passes', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      // The client giving up may reset the connection: that is the test's point, not an error.
      socket.on('error', () => undefined);
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const result = await runGateway({
        ...(await config()),
        component: { domain: 'agents.example', host: '127.0.0.1', port, secret: 's' },
        reconnect: { attemptTimeoutSeconds: 0.3 },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `agentconf gateway: cannot connect as agents.example to 127.0.0.1:${String(port)}: ` +
          "no component handshake within 300 ms (is this the server's component port?)\n",
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        silent.close(() => {
          resolve();
        }),
      );
    }
  });

  it('a health port in use: one line naming the listener', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as { port: number };
      mkdirSync(join(dir, 'data'));
      const result = await runGateway(await config({ database: 'data/gateway.sqlite', health: { port } }));
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `agentconf gateway: cannot listen on http://127.0.0.1:${String(port)} (EADDRINUSE)\n`,
      });
    } finally {
      await new Promise<void>((resolve) =>
        taken.close(() => {
          resolve();
        }),
      );
    }
  });
});
