// `agentconf federation up`: argument handling and the printed summary with a fake provider (no
// servers), then once for real as a child process, stopped with SIGINT.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import type { ProviderChoice, SelectProviderOptions } from '../../harness/federation/auto-provider.ts';
import type { FederationOptions } from '../../harness/federation/server-provider.ts';
import type { ConnectionFile } from '../../harness/federation/connection-file.ts';
import { createConfigAjv } from '../../protocol/json/config-problems.ts';
import connectionSchema from '../../fixtures/schemas/federation-connection.schema.json' with { type: 'json' };
import { waitUntilGone } from '../../harness/federation/test-support/process-liveness.ts';
import { launchSut, type SutInstance, type SutLaunchOptions } from '../../harness/sut/launch.ts';
import { fakeFederation, type FakeFederation } from '../../harness/sut/test-support/fake-federation.ts';
import type { CliIo } from '../io.ts';
import { main } from '../main.ts';
import {
  accountsToCreate,
  createFederationCommand,
  type FederationUpDeps,
  type StopRequest,
} from './federation.ts';

interface Harness {
  readonly deps: FederationUpDeps;
  readonly federation: FakeFederation;
  readonly startOptions: FederationOptions[];
  readonly selected: { choice: ProviderChoice; options: SelectProviderOptions }[];
  readonly disposed: () => number;
}

/**
 * Fakes for every dependency: a federation that starts nothing, and a stop request already made
 * (or, for the failure paths, one that never comes).
 */
function harness(overrides: Partial<FederationUpDeps> = {}, stopRequested = true): Harness {
  const federation = fakeFederation();
  const startOptions: FederationOptions[] = [];
  const selected: Harness['selected'] = [];
  let disposed = 0;
  const deps: FederationUpDeps = {
    selectProvider: (choice, options) => {
      selected.push({ choice, options });
      return Promise.resolve({
        name: 'native',
        reason: 'native: asked for',
        provider: {
          name: 'native',
          start: (options = {}) => {
            startOptions.push(options);
            return Promise.resolve(federation);
          },
        },
      });
    },
    listenForStop: (): StopRequest => ({
      requested: stopRequested ? Promise.resolve('SIGINT') : new Promise<string>(() => undefined),
      dispose: () => (disposed += 1),
    }),
    launchSut,
    waitUntilAnswering: () => Promise.resolve(),
    ...overrides,
  };
  return { deps, federation, startOptions, selected, disposed: () => disposed };
}

function memoryIo(files: Record<string, string> = {}) {
  const output = { stdout: '', stderr: '' };
  const io: CliIo = {
    out: (text) => (output.stdout += text),
    err: (text) => (output.stderr += text),
    readFile: (path) => {
      const content = files[path];
      if (content === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return Buffer.from(content, 'utf8');
    },
  };
  return { io, output };
}

async function up(args: string[], deps: FederationUpDeps, files: Record<string, string> = {}) {
  const { io, output } = memoryIo(files);
  const code = await createFederationCommand(deps).run(['up', ...args], io);
  return { code, ...output };
}

/**
 * `federation up` of a world-file gateway started for real, with ARGS after its --sut: it must be
 * handed the world inline, manifests and all, never a file to read. Returns that world as JSON.
 */
async function upWorldReader(args: string[]): Promise<string> {
  let given: SutLaunchOptions | undefined;
  const h = harness({
    launchSut: (options) => {
      given = options;
      return launchSut(options);
    },
    waitUntilAnswering: async (sut) => {
      await sut.process?.waitForOutput('up');
    },
  });
  const sut = JSON.stringify({
    name: 'world reader',
    component: { secret: 'generate' },
    launch: {
      command: [
        process.execPath,
        '-e',
        'console.log("up"); setInterval(() => 0, 1e5)',
        '{worldFile}',
        '{componentSecret}',
      ],
    },
    profiles: ['core-directory'],
    fixtures: 'world-file',
  });
  const result = await up(['--sut', 'sut.json', ...args], h.deps, { 'sut.json': sut });
  expect(result.stderr).toBe('[gateway] up\n');
  expect(result.code).toBe(0);
  const inlined = JSON.stringify(given?.world);
  expect(inlined).not.toContain('"file"');
  expect(inlined).toContain('"manifestSpecVersion"');
  expect(given?.worldFile).toBeUndefined();
  return inlined;
}

const EXTERNAL_SUT = JSON.stringify({
  name: 'their gateway',
  version: '2.0',
  component: { secret: 'generate' },
  launch: 'external',
  profiles: ['tool-discovery', 'admin-provisioning'],
  adminJid: 'admin@server.example',
  fixtures: 'admin-iq',
});

/** What every `federation up` creates: the run's accounts and the default admin. */
const RUN_ACCOUNTS = [
  { username: 'bob', domain: 'server.example' },
  { username: 'alice', domain: 'example.com' },
  { username: 'carol', domain: 'example.com' },
  { username: 'mallory', domain: 'hostile.example' },
  { username: 'registrant', domain: 'server.example' },
  { username: 'dave', domain: 'server.example' },
  { username: 'prober', domain: 'server.example' },
  { username: 'grantee', domain: 'example.com' },
  { username: 'admin', domain: 'server.example' },
];

const validateConnection = createConfigAjv().compile(connectionSchema);

describe('agentconf federation up (fake provider)', () => {
  it('prints what a person needs to log in, runs until asked to stop, then tears down', async () => {
    const h = harness();
    const result = await up([], h.deps);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'native: asked for',
        'starting the native federation…',
        'federation up: provider fake, servers ready in 123 ms',
        '',
        'servers',
        '  A  example.com                     prosody  127.0.0.2  c2s 5222 (STARTTLS), 5223 (direct TLS); s2s 5269  pid 1001',
        '  B  server.example, agents.example  prosody  127.0.0.3  c2s 5222 (STARTTLS), 5223 (direct TLS); s2s 5269  pid 1002',
        '',
        'accounts (the domains are not in DNS: set the server address as the connect host in your client)',
        '  alice@example.com   password pw-alice  connect 127.0.0.2:5222 (STARTTLS) or 127.0.0.2:5223 (direct TLS)',
        '  bob@server.example  password pw-bob    connect 127.0.0.3:5222 (STARTTLS) or 127.0.0.3:5223 (direct TLS)',
        '',
        'component (XEP-0114)',
        '  domain   agents.example',
        "  connect  127.0.0.4:5347 (the component link's fault proxy; server B itself: 127.0.0.3:5347)",
        '  secret   fake-secret',
        '',
        'CA certificate  /run/fake/certs/ca.crt (every server certificate chains to it)',
        'run directory   /run/fake (configs and logs; removed at the end)',
        'log of A        /run/fake/server-a/prosody.log',
        'log of B        /run/fake/server-b/prosody.log',
        '',
        'ready: Ctrl-C (SIGINT) or SIGTERM stops everything',
        'stopping (SIGINT)…',
        'stopped',
        '',
      ].join('\n'),
    );
    expect(h.selected).toEqual([{ choice: 'auto', options: {} }]);
    expect(h.startOptions).toEqual([{ hostile: true, accounts: RUN_ACCOUNTS, component: {} }]);
    expect(h.federation.stops).toBe(1);
    expect(h.disposed()).toBe(1);
  });

  it('starts what a run needs: the hostile server and every run account (--hostile is accepted, and the default)', async () => {
    const h = harness();
    expect((await up(['--provider', 'native', '--hostile'], h.deps)).code).toBe(0);
    expect(h.selected).toEqual([{ choice: 'native', options: {} }]);
    expect(h.startOptions).toEqual([{ hostile: true, accounts: RUN_ACCOUNTS, component: {} }]);
  });

  it('--accounts N adds N numbered accounts on each domain; a bad N is a usage error', async () => {
    const h = harness();
    expect((await up(['--accounts', '2'], h.deps)).code).toBe(0);
    const extra = (h.startOptions[0]?.accounts ?? []).slice(RUN_ACCOUNTS.length);
    expect(extra.map(({ username, domain }) => `${username}@${domain}`)).toEqual([
      'user1@example.com',
      'user2@example.com',
      'user1@server.example',
      'user2@server.example',
      'user1@hostile.example',
      'user2@hostile.example',
    ]);
    for (const bad of ['two', '1.5', '1001']) {
      const { io, output } = memoryIo();
      expect(await main(['federation', 'up', '--accounts', bad], io)).toBe(2);
      expect(output.stderr).toBe(
        `agentconf federation: --accounts takes an integer from 0 to 1000, not ${JSON.stringify(bad)}\n`,
      );
    }
  });

  it('--json prints the connection details as one JSON line on stdout, everything else on stderr', async () => {
    const h = harness();
    const result = await up(['--json'], h.deps);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toHaveLength(2);
    const details = JSON.parse(lines[0] ?? '') as ConnectionFile;
    expect(validateConnection(details), JSON.stringify(validateConnection.errors)).toBe(true);
    expect(details).toMatchObject({
      provider: 'fake',
      component: { host: '127.0.0.4', port: 5347, domain: 'agents.example', secret: 'fake-secret' },
      accounts: [
        { jid: 'alice@example.com', password: 'pw-alice' },
        { jid: 'bob@server.example', password: 'pw-bob' },
      ],
      caCertPath: '/run/fake/certs/ca.crt',
      gateway: { adminJid: 'admin@server.example' },
    });
    expect(details.servers.b.domains).toEqual(['server.example']);
    expect(result.stderr).toContain('federation up: provider fake');
    expect(result.stderr).toMatch(/ready: .*\nstopping \(SIGINT\)…\nstopped\n$/);
  });

  it('--connection-file writes the same details, for its owner only; an unwritable one is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-connection-'));
    try {
      const path = join(dir, 'connection.json');
      const h = harness();
      const result = await up(['--connection-file', path], h.deps);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`connection file  ${path}`);
      const written = JSON.parse(readFileSync(path, 'utf8')) as ConnectionFile;
      expect(validateConnection(written)).toBe(true);
      expect(written.component.secret).toBe('fake-secret');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const { io, output } = memoryIo();
      expect(await main(['federation', 'up', '--connection-file', '/nonexistent/dir/c.json'], io)).toBe(2);
      expect(output.stderr).toContain(
        '--connection-file /nonexistent/dir/c.json cannot be written (its folder: ENOENT)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates every account the committed external federation example lists, and no other', () => {
    const example = JSON.parse(
      readFileSync(resolve(REPO_ROOT, 'fixtures/federation/external.example.json'), 'utf8'),
    ) as ConnectionFile;
    expect(
      accountsToCreate(undefined, 0)
        .map(({ username, domain }) => `${username}@${domain}`)
        .sort(),
    ).toEqual(example.accounts.map((account) => account.jid).sort());
  });

  it('passes a fixed component port and secret of the SUT file to the federation', async () => {
    const h = harness();
    const sut = JSON.stringify({ ...JSON.parse(EXTERNAL_SUT), component: { port: 15347, secret: 'fixed' } });
    await up(['--sut', 'sut.json'], h.deps, { 'sut.json': sut });
    expect(h.startOptions[0]?.component).toEqual({ port: 15347, secret: 'fixed' });
  });

  it('--server-a ejabberd asks the provider for ejabberd as server A (auto then runs natively); ejabberd as B is refused', async () => {
    const h = harness();
    await up(['--server-a', 'ejabberd'], h.deps);
    expect(h.selected[0]?.options.servers).toEqual({ a: 'ejabberd' });
    expect(h.startOptions[0]?.serverA).toBe('ejabberd');
    await expect(up(['--server-b', 'ejabberd'], harness().deps)).rejects.toThrow(
      /^--server-b ejabberd is not supported: /,
    );
    const { io, output } = memoryIo();
    expect(await main(['federation', 'up', '--provider', 'container', '--server-a', 'ejabberd'], io)).toBe(2);
    expect(output.stderr).toMatch(/^agentconf federation: --server-a ejabberd needs the native provider/);
  });

  it('--pair asks for the pair topology (auto then runs natively); container and external are refused', async () => {
    const h = harness();
    await up(['--pair'], h.deps);
    expect(h.selected[0]?.options.pair).toBe(true);
    expect(h.startOptions[0]?.pair).toBe(true);
    await up([], h.deps);
    expect(h.startOptions[1]?.pair).toBeUndefined();
    const { io, output } = memoryIo();
    expect(await main(['federation', 'up', '--provider', 'container', '--pair'], io)).toBe(2);
    expect(output.stderr).toMatch(/^agentconf federation: --pair needs the native provider/);
  });

  it('reads the external provider config from --external FILE', async () => {
    const h = harness();
    const external = {
      servers: { a: { host: 'a.internal' }, b: { host: 'b.internal' } },
      component: { host: 'b.internal', secret: 's' },
      accounts: [],
      caCertPath: '/srv/ca.pem',
    };
    const files = { 'ext.json': JSON.stringify(external) };
    expect((await up(['--provider', 'external', '--external', 'ext.json'], h.deps, files)).code).toBe(0);
    expect(h.selected).toEqual([{ choice: 'external', options: { external: { ...external, domains: {} } } }]);
    const bad = await up(['--provider', 'external', '--external', 'ext.json'], h.deps, {
      'ext.json': JSON.stringify({ ...external, component: { host: 'b.internal', prot: 5347 } }),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      [
        'invalid: ext.json: 2 problem(s) in the external federation file',
        '  /component/secret: "secret" is required',
        '  /component/prot: unknown member "prot" (did you mean "port"?); allowed here: host, port, domain, secret',
        '',
      ].join('\n'),
    );
  });

  it('shows an external gateway with its admin account, and tells how to connect it', async () => {
    const h = harness();
    const result = await up(['--sut', 'sut.json'], h.deps, { 'sut.json': EXTERNAL_SUT });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('starting the native federation and their gateway…');
    expect(result.stdout).toMatch(
      /^ {2}admin@server\.example +password pw-admin +connect 127\.0\.0\.3:5222 \(STARTTLS\) or 127\.0\.0\.3:5223 \(direct TLS\) +\(the gateway admin\)$/m,
    );
    expect(result.stdout).toContain(
      [
        'gateway under test: their gateway 2.0, not started by the harness: connect it as the component above',
        '  profiles  core-directory, tool-discovery, admin-provisioning',
        '  fixtures  admin-iq',
      ].join('\n'),
    );
  });

  it('starts a gateway with a launch command, forwards its output and stops it', async () => {
    let launched: SutInstance | undefined;
    const h = harness({
      launchSut: async (options) => (launched = await launchSut(options)),
      waitUntilAnswering: async (sut) => {
        await sut.process?.waitForOutput('connected');
      },
    });
    const sut = JSON.stringify({
      name: 'tiny gateway',
      component: { secret: 'generate' },
      launch: {
        command: [
          process.execPath,
          '-e',
          'console.log("connected as " + process.argv[1]); setInterval(() => 0, 1e5)',
          '{componentSecret}',
        ],
      },
      profiles: ['core-directory'],
      fixtures: 'manual',
    });
    const result = await up(['--sut', 'sut.json'], h.deps, { 'sut.json': sut });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('[gateway] connected as fake-secret\n');
    expect(result.stdout).toMatch(
      /^gateway under test: tiny gateway, pid \d+, answering on agents\.example$/m,
    );
    expect(result.stdout).toMatch(/^ {2}data directory +\/.*agentconf-sut-.*\/data$/m);
    expect(launched?.process?.running).toBe(false);
    expect(h.federation.stops).toBe(1);
  });

  it('hands the gateway the --world file with its manifests inlined', async () => {
    await upWorldReader(['--world', resolve(REPO_ROOT, 'fixtures/worlds/reference.json')]);
  });

  it('hands a world-file gateway the reference world when no --world names one, as run does', async () => {
    expect(await upWorldReader([])).toContain('weather@agents.example');
  });

  it('exits 2 for a --world file with problems, naming each, before starting anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-world-'));
    try {
      const world = join(dir, 'world.json');
      writeFileSync(
        world,
        JSON.stringify({ endpoints: [{ jid: 'x@agents.example', versions: [{ file: 'gone.json' }] }] }),
      );
      const h = harness({}, false);
      const sut = JSON.stringify({
        name: 'world reader',
        component: { secret: 'generate' },
        launch: { command: ['gw', '{worldFile}', '{componentSecret}'] },
        profiles: ['core-directory'],
        fixtures: 'world-file',
      });
      const result = await up(['--sut', 'sut.json', '--world', world], h.deps, { 'sut.json': sut });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `invalid: ${world}: 1 problem(s)\n` +
          `  /endpoints/0/versions/0/file: ${join(dir, 'gone.json')}: 1 problem(s); /: cannot read the file (ENOENT)\n`,
      });
      expect(h.selected).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1, after tearing down, when the gateway does not come up', async () => {
    const h = harness({ waitUntilAnswering: () => Promise.reject(new Error('unexpected')) }, false);
    const sut = JSON.stringify({
      name: 'silent gateway',
      component: { secret: 'generate' },
      launch: { command: [process.execPath, '-e', 'setInterval(() => 0, 1e5)', '{componentSecret}'] },
      profiles: ['core-directory'],
      fixtures: 'manual',
    });
    const result = await up(['--sut', 'sut.json'], h.deps, { 'sut.json': sut });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('agentconf federation up: cannot start: unexpected\n');
    expect(h.federation.stops).toBe(1);
    expect(result.stdout).not.toContain('ready');
  });

  it('exits 2 for an invalid SUT config, naming every problem, before starting anything', async () => {
    const h = harness();
    const result = await up(['--sut', 'sut.json'], h.deps, {
      'sut.json': JSON.stringify({
        name: 'x',
        component: { secret: 'generate' },
        launch: 'external',
        profiles: [],
      }),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: [
        'invalid: sut.json: 2 problem(s) in the SUT config',
        '  /fixtures: "fixtures" is required',
        '  /profiles: must have at least 1 item(s)',
        '',
      ].join('\n'),
    });
    expect(h.selected).toEqual([]);
  });

  it('exits 1 when the provider cannot be had, or the federation does not start', async () => {
    const unavailable = harness(
      { selectProvider: () => Promise.reject(new Error('no Docker engine')) },
      false,
    );
    expect(await up([], unavailable.deps)).toMatchObject({
      code: 1,
      stderr: 'agentconf federation up: no federation provider: no Docker engine\n',
    });
    const failing = harness(
      {
        selectProvider: () =>
          Promise.resolve({
            name: 'native',
            reason: 'native: asked for',
            provider: { name: 'native', start: () => Promise.reject(new Error('prosody is not installed')) },
          }),
      },
      false,
    );
    const result = await up([], failing.deps);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('agentconf federation up: cannot start: prosody is not installed\n');
    expect(failing.disposed()).toBe(1);
  });

  it('exits 1 when the SUT config and the federation disagree', async () => {
    const h = harness({}, false);
    const sut = JSON.stringify({ ...JSON.parse(EXTERNAL_SUT), adminJid: 'root@elsewhere.example' });
    const result = await up(['--sut', 'sut.json'], h.deps, { 'sut.json': sut });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /adminJid root@elsewhere\.example must be an account on server\.example or example\.com/,
    );
    expect(h.federation.stops).toBe(1);
  });
});

describe('agentconf federation: usage', () => {
  async function usage(argv: string[], files: Record<string, string> = {}) {
    const { io, output } = memoryIo(files);
    const code = await main(argv, io);
    return { code, ...output };
  }

  it.each([
    [['federation'], /the subcommand is up \(agentconf federation up\), no subcommand/],
    [['federation', 'down'], /the subcommand is up \(agentconf federation up\), not "down"/],
    [['federation', 'up', 'now'], /unexpected argument "now"/],
    [
      ['federation', 'up', '--provider', 'docker'],
      /--provider takes one of auto, native, container, external, not "docker"/,
    ],
    [['federation', 'up', '--provider', 'external'], /--provider external and --external FILE go together/],
    [['federation', 'up', '--external', 'x.json'], /--provider external and --external FILE go together/],
    [['federation', 'up', '--world', 'w.json'], /--world needs --sut/],
    [['federation', 'up', '--sut', 'absent.json'], /--sut absent\.json does not exist/],
    [['federation', 'up', '--verbose'], /unknown option "--verbose" \(agentconf federation --help lists/],
  ])('%j exits 2 with one line', async (argv, message) => {
    const result = await usage(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^agentconf federation: [^\n]+\n$/);
  });

  it('is listed in the help, and its own help names every option with its default', async () => {
    expect((await usage(['--help'])).stdout).toMatch(/^ {2}federation +run the federation/m);
    const help = (await usage(['federation', 'up', '--help'])).stdout;
    expect(help).toMatch(/^usage: agentconf federation up \[OPTIONS\]$/m);
    expect(help).toMatch(/--provider P +how the servers run .*\(one of auto, native, container,/);
    expect(help).toMatch(/--world FILE [\s\S]*?\(default:\s+fixtures\/worlds\/reference\.json\)/);
  });
});

/** Command lines of every live process that mentions `text`. */
async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (cmdline.includes(text)) found.push(`${entry}: ${cmdline}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe('agentconf federation up (native, as a process)', () => {
  it('comes up, prints the ready line, and on SIGINT tears down and exits 0', async () => {
    const child = spawn(process.execPath, ['bin/agentconf.js', 'federation', 'up', '--provider', 'native'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
      child.once('exit', (code, signal) => {
        resolveExit({ code, signal });
      });
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ready = new Promise<void>((resolveReady, rejectReady) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (/^ready: /m.test(stdout)) resolveReady();
      });
      void exited.then((status) => {
        rejectReady(new Error(`exited before ready (${JSON.stringify(status)}):\n${stdout}\n${stderr}`));
      });
    });
    try {
      await ready;
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }

    const pids = [...stdout.matchAll(/ pid (\d+)$/gm)].map((match) => Number(match[1]));
    const runDir = /^run directory +(\S+)/m.exec(stdout)?.[1] ?? '';
    expect(pids).toHaveLength(3);
    expect(runDir).toMatch(/agentconf-federation-/);
    expect(await processesMentioning(runDir)).toHaveLength(3);
    // Accounts any standard client can log in to (aiosasl, nbxmpp want at least 4096 iterations).
    const registrant = await readFile(
      join(runDir, 'server-b', 'data', 'server%2eexample', 'accounts', 'registrant.dat'),
      'utf8',
    );
    expect(registrant).toContain('["iteration_count"] = 4096;');

    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout).toMatch(/stopping \(SIGINT\)…\nstopped\n$/);
    await waitUntilGone(pids);
    expect(await processesMentioning(runDir)).toEqual([]);
    expect(existsSync(runDir)).toBe(false);
  }, 120_000);
});
