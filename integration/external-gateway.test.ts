// The flows of docs/sut.md for a gateway the harness does not start, each executed as a user
// would: `agentconf` as a child process, and the reference gateway started by hand (`agentconf
// gateway --config`), configured from what the run hands out. Each runs the #gateway-info and
// #list-agents cases (fixtures: the world file the connection file names).
//   1. run --sut external.json --connection-file conn.json; the gateway from conn.json
//   2. federation up --sut external.json --connection-file conn.json; the gateway from conn.json;
//      run --provider external --external conn.json --sut external.json
//   3. a fixed component port and secret in the SUT file: the gateway configured before the run
// (The flows where the harness starts the gateway are cli/run-command.test.ts's.)
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { createConfigAjv } from '../protocol/json/config-problems.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import type { ConnectionFile } from '../harness/federation/connection-file.ts';
import type { RunResult } from '../runner/run-result.ts';
import connectionSchema from '../fixtures/schemas/federation-connection.schema.json' with { type: 'json' };
import { agentconfProcesses, type AgentconfProcess } from './test-support/agentconf-process.ts';

const WORLD = join(REPO_ROOT, 'fixtures', 'worlds', 'reference.json');
const SUBSET = ['--grep', 'gateway-info', '--grep', 'list-agents'];
const validateConnection = createConfigAjv().compile(connectionSchema);

const { agentconf, tempDir } = agentconfProcesses('agentconf-external-');

/** The SUT file of the reference gateway run as an external gateway. */
function externalSut(dir: string, component: Record<string, unknown> = { secret: 'generate' }): string {
  const reference = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
  ) as Record<string, unknown>;
  const file = join(dir, 'external-gateway.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'reference gateway, started by hand',
      component,
      launch: 'external',
      profiles: reference['profiles'],
      adminJid: 'admin@server.example',
      fixtures: 'world-file',
      limits: reference['limits'],
      timeouts: { startupSeconds: 90 },
    }),
  );
  return file;
}

interface GatewayConnection {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly secret: string;
  readonly adminJid: string;
  readonly worldFile: string;
}

/** The reference gateway's own config for a connection, as its operator would write it. */
function writeGatewayConfig(dir: string, connection: GatewayConnection): string {
  const file = join(dir, 'gateway.json');
  const permissive = { burst: 10_000, perSecond: 1_000 };
  writeFileSync(
    file,
    JSON.stringify({
      component: {
        host: connection.host,
        port: connection.port,
        domain: connection.domain,
        secret: connection.secret,
      },
      database: join(dir, 'gateway.sqlite'),
      world: connection.worldFile,
      localDomains: ['server.example'],
      admins: [connection.adminJid],
      limits: {
        rateLimits: Object.fromEntries(
          ['registration', 'administration', 'discovery', 'search', 'metadata', 'invocation'].map((name) => [
            name,
            permissive,
          ]),
        ),
      },
    }),
  );
  return file;
}

/** Reads a connection file, checked against its schema, as the gateway's connection. */
function readConnectionFile(path: string): GatewayConnection {
  const file = JSON.parse(readFileSync(path, 'utf8')) as ConnectionFile;
  expect(validateConnection(file), JSON.stringify(validateConnection.errors)).toBe(true);
  const { host, port, domain, secret } = file.component;
  expect(file.accounts.map((account) => account.jid)).toEqual(
    expect.arrayContaining([
      'alice@example.com',
      'bob@server.example',
      'carol@example.com',
      'mallory@hostile.example',
      'registrant@server.example',
      'admin@server.example',
    ]),
  );
  expect(file.servers.hostile).toBeDefined();
  return {
    host,
    port: port ?? 5347,
    domain: domain ?? 'agents.example',
    secret,
    adminJid: file.gateway?.adminJid ?? '',
    worldFile: file.gateway?.worldFile ?? '',
  };
}

/** The run's verdict on the subset: every case passed, every claimed profile reached passed. */
function expectSubsetPassed(out: string): void {
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as RunResult;
  expect(result.passed).toBe(true);
  expect(result.cases.length).toBeGreaterThan(20);
  expect(
    result.cases.filter((c) => c.outcome !== 'passed').map((c) => `${c.case.id}: ${c.reason ?? ''}`),
  ).toEqual([]);
}

/** Starts the gateway by hand while `run` waits for it; the run passes the subset. */
async function passesWithGateway(run: AgentconfProcess, gatewayConfig: string, out: string): Promise<void> {
  const gateway = agentconf(['gateway', '--config', gatewayConfig]);
  try {
    const status = await run.exited;
    expect(status.code, run.output()).toBe(0);
    expectSubsetPassed(out);
  } finally {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
}

describe('a gateway the harness does not start (docs/sut.md)', () => {
  it('run --connection-file: the details are written and printed, and the run waits for the gateway', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const connection = join(dir, 'connection.json');
    const run = agentconf([
      'run',
      '--provider',
      'native',
      '--sut',
      externalSut(dir),
      '--connection-file',
      connection,
      ...SUBSET,
      '--out',
      out,
    ]);
    await run.shows(/^waiting up to 90 s for it to answer…$/m);
    const details = readConnectionFile(connection);
    expect(details.worldFile).toBe(WORLD);
    expect(run.output()).toContain(`  secret   ${details.secret}\n`);
    expect(run.output()).toContain(`  port     ${String(details.port)}\n`);
    expect(run.output()).toContain(`connection file: ${connection}`);
    await passesWithGateway(run, writeGatewayConfig(dir, details), out);
  }, 180_000);

  it('federation up --connection-file, then run --provider external --external on it', async () => {
    const dir = tempDir();
    const connection = join(dir, 'connection.json');
    const sut = externalSut(dir);
    const up = agentconf([
      'federation',
      'up',
      '--provider',
      'native',
      '--sut',
      sut,
      '--world',
      WORLD,
      '--connection-file',
      connection,
    ]);
    let gateway: AgentconfProcess | undefined;
    try {
      await up.shows(/^ready: /m);
      const details = readConnectionFile(connection);
      expect(details.worldFile).toBe(WORLD);
      gateway = agentconf(['gateway', '--config', writeGatewayConfig(dir, details)]);
      await up.shows(/^component link: a connection arrived/m);
      const out = join(dir, 'out');
      const run = agentconf([
        'run',
        '--provider',
        'external',
        '--external',
        connection,
        '--sut',
        sut,
        ...SUBSET,
        '--out',
        out,
      ]);
      const status = await run.exited;
      expect(status.code, run.output()).toBe(0);
      expect(run.output()).toContain('external: asked for');
      expectSubsetPassed(out);
    } finally {
      gateway?.child.kill('SIGTERM');
      await gateway?.exited;
      up.child.kill('SIGINT');
      expect((await up.exited).code).toBe(0);
    }
  }, 180_000);

  it('a fixed component port and secret: the gateway is configured before the run', async () => {
    const dir = tempDir();
    const port = await freePort();
    const secret = 'a-secret-written-into-both-configs';
    const sut = externalSut(dir, { port, secret });
    // Written before the run exists: nothing in it comes from the run.
    const config = writeGatewayConfig(dir, {
      host: '127.0.0.1',
      port,
      domain: 'agents.example',
      secret,
      adminJid: 'admin@server.example',
      worldFile: WORLD,
    });
    const out = join(dir, 'out');
    const run = agentconf(['run', '--provider', 'native', '--sut', sut, ...SUBSET, '--out', out]);
    await run.shows(/^waiting up to 90 s for it to answer…$/m);
    expect(run.output()).toContain(`  host     127.0.0.1\n  port     ${String(port)}\n`);
    await passesWithGateway(run, config, out);
  }, 180_000);
});

/** A port on 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
