// Starting the gateway under test: the template filled in, files and world written, the process
// started through ManagedProcess, readiness by probing; and once against a real federation.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { xml } from '@xmpp/xml';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ProcessExitedError } from '../harness/faults/managed-process.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { canonicalJson } from '../protocol/json/canonical.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { NS } from '../protocol/namespaces.ts';
import { buildDiscoItemsRequest, parseDiscoItems } from '../protocol/stanza/index.ts';
import { loadFixtureWorld } from '../reference-gateway/config/fixture-world.ts';
import { createDriver } from '../harness/driver/index.ts';
import { expandLaunch } from '../harness/sut/expand-launch.ts';
import { componentFor, launchSut, SutMismatchError, type SutInstance } from '../harness/sut/launch.ts';
import type { LaunchFacts } from '../harness/sut/placeholders.ts';
import {
  discoInfoProbe,
  SutNotReadyError,
  waitForSutReady,
  type ProbeAnswer,
} from '../harness/sut/readiness.ts';
import {
  loadSutConfig,
  parseSutConfig,
  SutConfigError,
  type LaunchCommand,
  type SutConfig,
} from '../harness/sut/sut-config.ts';
import { fakeFederation } from '../harness/sut/test-support/fake-federation.ts';

/** Prints what it was given as one JSON line, then stays up until it is stopped. */
const REPORTER = `
const fs = require('node:fs');
const args = process.argv.slice(1);
const config = JSON.parse(fs.readFileSync(args[0], 'utf8'));
const report = { args: args, secret: process.env.GW_SECRET, cwd: process.cwd(), config: config };
process.stdout.write(JSON.stringify(report) + '\\n');
setInterval(() => undefined, 60000);
`;

function config(overrides: Record<string, unknown> = {}): SutConfig {
  const value = {
    name: 'reporter',
    component: { secret: 'generate' },
    launch: {
      command: [
        process.execPath,
        '-e',
        REPORTER,
        '{dataDir}/gw.json',
        '--world',
        '{worldFile}',
        '{{dataDir}',
      ],
      env: { GW_SECRET: '{componentSecret}' },
      cwd: '..',
      files: {
        'gw.json': {
          host: '{serverHost}',
          port: '{componentPort}',
          portText: 'port {componentPort}',
          admins: ['{adminJid}'],
          ca: '{caFile}',
          lua: 'modules = { "x" }',
        },
      },
    },
    profiles: ['admin-provisioning'],
    adminJid: 'admin@server.example',
    fixtures: 'world-file',
    ...overrides,
  };
  return parseSutConfig(JSON.stringify(value), resolve(REPO_ROOT, 'fixtures/sut/test.json'));
}

const FACTS: LaunchFacts = {
  serverHost: '127.0.0.4',
  componentPort: 5347,
  componentDomain: 'agents.example',
  componentSecret: 's3cret',
  worldFile: '/run/world.json',
  dataDir: '/run/data',
  caFile: '/run/ca.crt',
};

describe('expandLaunch', () => {
  const launch: LaunchCommand = {
    command: ['gw', '--port={componentPort}', '{{literal}', 'json: {"a": {"b": 1}}'],
    env: { SECRET: '{componentSecret}' },
    cwd: '/srv/gw',
    files: {
      'a.json': { port: '{componentPort}', at: '{serverHost}:{componentPort}' },
      'b.conf': 'dir={dataDir}\n',
    },
  };

  it('fills in placeholders; other braces stay; a lone numeric placeholder in JSON stays a number', () => {
    expect(expandLaunch(launch, FACTS)).toEqual({
      command: 'gw',
      args: ['--port=5347', '{literal}', 'json: {"a": {"b": 1}}'],
      env: { SECRET: 's3cret' },
      cwd: '/srv/gw',
      files: [
        {
          name: 'a.json',
          path: '/run/data/a.json',
          content: '{\n  "port": 5347,\n  "at": "127.0.0.4:5347"\n}\n',
        },
        { name: 'b.conf', path: '/run/data/b.conf', content: 'dir=/run/data\n' },
      ],
    });
  });

  it('refuses unknown placeholders and placeholders without a fact, naming each', () => {
    const bad: LaunchCommand = {
      ...launch,
      command: ['gw', '{serverPort}', '{adminJid}'],
      env: { X: '{nope}' },
    };
    expect(() => expandLaunch(bad, FACTS, 'gw.json')).toThrow(SutConfigError);
    expect(() => expandLaunch(bad, FACTS, 'gw.json')).toThrow(
      /\/launch\/command\/1: unknown placeholder \{serverPort\}[^\n]*\n {2}\/launch\/command\/2: \{adminJid\} is used, but the config names no adminJid\n {2}\/launch\/env\/X: unknown placeholder \{nope\}/,
    );
  });
});

describe('launchSut (no servers)', () => {
  it('writes the files and the world, fills in the command and starts it', async () => {
    const federation = fakeFederation();
    const sut = await launchSut({ config: config(), federation, world: { endpoints: [] } });
    try {
      const managed = sut.process;
      if (managed === undefined) throw new Error('no process');
      const line = await managed.waitForOutput(/\{.*\}\n/);
      const report = JSON.parse(line) as Record<string, unknown>;
      const { dataDir, worldFile } = sut.facts;
      expect(report).toEqual({
        args: [`${dataDir}/gw.json`, '--world', worldFile, '{dataDir}'],
        secret: 'fake-secret',
        cwd: resolve(REPO_ROOT, 'fixtures'),
        config: {
          host: '127.0.0.4',
          port: 5347,
          portText: 'port 5347',
          admins: ['admin@server.example'],
          ca: '/run/fake/certs/ca.crt',
          lua: 'modules = { "x" }',
        },
      });
      expect(JSON.parse(await readFile(worldFile, 'utf8'))).toEqual({ endpoints: [] });
      expect(sut.adminAccount).toMatchObject({ jid: 'admin@server.example', server: 'b' });
      expect(federation.account('admin@server.example').password).toBe(sut.adminAccount?.password);
    } finally {
      await sut.stop();
    }
    expect(sut.process?.running).toBe(false);
    expect(existsSync(sut.facts.dataDir)).toBe(false);
    await sut.stop(); // idempotent
  });

  it('writes a world given by path self-contained: its manifests inlined, loadable from the run directory', async () => {
    const reference = resolve(REPO_ROOT, 'fixtures/worlds/reference.json');
    const sut = await launchSut({ config: config(), federation: fakeFederation(), worldFile: reference });
    try {
      const { worldFile } = sut.facts;
      expect(dirname(worldFile)).not.toBe(dirname(reference));
      const written = await readFile(worldFile, 'utf8');
      expect(written).not.toContain('"file"');
      // Read where it was written: every manifest is there, with the same canonical content.
      const copied = loadFixtureWorld(worldFile);
      const original = loadFixtureWorld(reference);
      const canonical = (world: typeof original) =>
        world.endpoints.map((endpoint) => ({
          jid: endpoint.jid,
          versions: endpoint.versions.map((v) =>
            canonicalJson(parseStrictJson(typeof v.text === 'string' ? v.text : Buffer.from(v.text))),
          ),
        }));
      expect(canonical(copied)).toEqual(canonical(original));
      expect(copied.grants).toEqual(original.grants);
    } finally {
      await sut.stop();
    }
  });

  it('refuses a world file with problems before starting anything, and a world given twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-world-'));
    try {
      const broken = join(dir, 'world.json');
      writeFileSync(
        broken,
        JSON.stringify({ endpoints: [{ jid: 'x@agents.example', versions: [{ file: 'gone.json' }] }] }),
      );
      await expect(
        launchSut({ config: config(), federation: fakeFederation(), worldFile: broken }),
      ).rejects.toThrow(
        /the fixture world is not usable: .*world\.json: 1 problem\(s\)\n {2}\/endpoints\/0\/versions\/0\/file: /,
      );
      await expect(
        launchSut({ config: config(), federation: fakeFederation(), worldFile: broken, world: {} }),
      ).rejects.toThrow(SutMismatchError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts nothing for an external gateway, but still provides the admin account', async () => {
    const federation = fakeFederation();
    const external = await launchSut({
      config: config({ launch: 'external', fixtures: 'admin-iq', adminJid: 'alice@example.com' }),
      federation,
    });
    expect(external.process).toBeUndefined();
    expect(external.launch).toBeUndefined();
    expect(external.adminAccount).toBe(federation.account('alice@example.com'));
    expect(external.facts.componentSecret).toBe('fake-secret');
  });

  it('refuses a config the federation cannot serve', async () => {
    const federation = fakeFederation();
    const other = config({ component: { domain: 'gw.example', secret: 'generate' } });
    expect(() => componentFor(other, federation)).toThrow(
      /component domain is gw\.example, but the fake federation routes agents\.example/,
    );
    const fixed = config({ component: { secret: 'fixed' }, launch: 'external', fixtures: 'manual' });
    expect(() => componentFor(fixed, federation)).toThrow(/fixes the component secret/);
    expect(componentFor(fixed, fakeFederation({ secret: 'fixed' }))).toEqual({
      domain: 'agents.example',
      secret: 'fixed',
    });
    await expect(launchSut({ config: config(), federation })).rejects.toThrow(
      /takes its fixtures from a world file, but no fixture world was given/,
    );
    await expect(
      launchSut({ config: config({ adminJid: 'admin@hostile.example' }), federation, world: {} }),
    ).rejects.toThrow(SutMismatchError);
  });
});

describe('waitForSutReady', () => {
  const answers = (...sequence: ProbeAnswer[]): (() => Promise<ProbeAnswer>) => {
    let index = 0;
    return () => Promise.resolve(sequence[Math.min(index++, sequence.length - 1)] ?? { ready: true });
  };

  it('probes until the gateway answers', async () => {
    let probes = 0;
    const probe = answers({ ready: false, detail: 'a' }, { ready: false, detail: 'b' }, { ready: true });
    await waitForSutReady({ config: config(), process: undefined }, () => {
      probes += 1;
      return probe();
    });
    expect(probes).toBe(3);
  });

  it('gives up at the deadline, with the last answer', async () => {
    await expect(
      waitForSutReady(
        { config: config(), process: undefined },
        answers({ ready: false, detail: 'remote-server-timeout' }),
        60,
      ),
    ).rejects.toThrow(
      // No process: a gateway the harness did not start.
      new SutNotReadyError('reporter did not answer within 60 ms (last: remote-server-timeout)', false),
    );
  });

  it('stops waiting as soon as the gateway process exits, with its output', async () => {
    const crashing = config({
      launch: {
        command: [
          process.execPath,
          '-e',
          'console.error("cannot bind"); process.exit(3)',
          '{worldFile}',
          '{componentSecret}',
        ],
      },
    });
    const sut = await launchSut({ config: crashing, federation: fakeFederation(), world: {} });
    try {
      const started = Date.now();
      const failure = waitForSutReady(sut, answers({ ready: false, detail: 'not yet' }), 20_000);
      await expect(failure).rejects.toThrow(ProcessExitedError);
      await expect(failure).rejects.toThrow(/code 3.*cannot bind/s);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await sut.stop();
    }
  });
});

describe('launchSut on a native federation', () => {
  let federation: Federation;
  let sut: SutInstance;

  beforeAll(async () => {
    federation = await nativeProvider.start();
    sut = await launchSut({
      config: await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/echo-component.json')),
      federation,
    });
  }, 300_000);

  afterAll(async () => {
    await sut.stop();
    await federation.stop();
  });

  it('starts the echo component from its SUT config, waits until it answers, and restarts it', async () => {
    const probe = await discoInfoProbe(federation, sut.facts.componentDomain);
    try {
      expect(await probe.probe()).toMatchObject({ ready: false });
      await waitForSutReady(sut, () => probe.probe());
      expect(await probe.probe()).toEqual({ ready: true });
      await sut.process?.restart();
      await waitForSutReady(sut, () => probe.probe());
      expect(sut.process?.starts).toBe(2);
    } finally {
      await probe.close();
    }
  });
});

// Its own federation: the echo component above holds agents.example on the other one.
describe('launchSut of the reference gateway on a native federation', () => {
  let federation: Federation;

  beforeAll(async () => {
    federation = await nativeProvider.start();
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
  });

  it('launches the reference gateway with the reference world read from another directory', async () => {
    // The run directory is not fixtures/worlds: the world's relative manifest paths would name
    // nothing there unless the harness inlined them.
    const reference = await launchSut({
      config: await loadSutConfig(resolve(REPO_ROOT, 'fixtures/sut/reference-gateway.json')),
      federation,
      worldFile: resolve(REPO_ROOT, 'fixtures/worlds/reference.json'),
    });
    const probe = await discoInfoProbe(federation, reference.facts.componentDomain);
    const driver = createDriver(federation);
    try {
      await waitForSutReady(reference, () => probe.probe(), 60_000);
      const bob = await driver.connect('bob@server.example', 'launch');
      const items = parseDiscoItems(
        (await bob.iq('agents.example', 'get', buildDiscoItemsRequest({}))) ?? xml('none'),
      );
      // Each of these manifests is a file next to the world, named by a relative path.
      expect(items.items.map((item) => item.jid)).toEqual(
        expect.arrayContaining([
          'calendar@agents.example',
          'toolbox@agents.example',
          'translator@agents.example',
          'weather@agents.example',
        ]),
      );
      expect(await bob.iq('agents.example', 'get', xml('ping', { xmlns: NS.ping }))).toBeUndefined();
    } finally {
      await driver.closeAll();
      await probe.close();
      await reference.stop();
    }
  }, 120_000);
});
