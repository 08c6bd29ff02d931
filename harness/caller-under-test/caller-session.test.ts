// A caller session on a real federation: a fresh account on server A, the fake target serving
// the world, and a stand-in bridge started from a SUT declaration with the config naming the
// world's endpoints and pins. The stand-in speaks no XMPP: the login itself is proven in
// harness/fake-target/fake-target.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseCallerConfig } from '../../protocol/json/caller-config.ts';
import { simpleManifest } from '../fake-target/target-world.ts';
import { nativeProvider } from '../federation/native-provider.ts';
import type { Federation } from '../federation/server-provider.ts';
import { REPO_ROOT } from '../repo-root.ts';
import { parseSutFile } from '../sut/sut-config.ts';
import { startCallerSession } from './caller-session.ts';

const WEATHER = 'weather@target.example';
const CALENDAR = 'calendar@target.example';

describe('caller session', () => {
  let federation: Federation;
  let dataDir: string;

  beforeAll(async () => {
    federation = await nativeProvider.start();
    dataDir = await mkdtemp(join(tmpdir(), 'caller-session-'));
  }, 300_000);

  afterAll(async () => {
    await federation.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts the declared bridge with an account of server A and the fake target endpoints', async () => {
    const file = parseSutFile(
      JSON.stringify({
        name: 'stand-in',
        caller: {
          mcp: {
            command: [
              process.execPath,
              'bin/run-ts.js',
              'harness/caller-under-test/test-support/tiny-bridge-main.ts',
              '--config',
              '{config}',
            ],
          },
        },
      }),
      join(REPO_ROOT, 'sut.json'),
    );
    if (file.kind !== 'mcp-caller') throw new Error('a bridge file');
    const session = await startCallerSession({
      federation,
      declaration: file.config.caller,
      world: {
        endpoints: [
          { jid: WEATHER, manifests: [simpleManifest(WEATHER, '1.0.0', [{ name: 'forecast.get' }])] },
          { jid: CALENDAR, manifests: [simpleManifest(CALENDAR, '3.1.0', [{ name: 'events.list' }])] },
        ],
      },
      dataDir,
      pins: { [CALENDAR]: '3.1.0' },
      timeoutSeconds: 2,
    });
    try {
      expect(session.account.domain).toBe('example.com');
      expect(session.account.server).toBe('a');
      const config = parseCallerConfig(await readFile(session.caller.configPath), 'caller config');
      expect(config.endpoints).toEqual([{ jid: WEATHER }, { jid: CALENDAR, version: '3.1.0' }]);
      expect(config.xmpp).toMatchObject({
        jid: session.account.jid,
        host: session.account.c2s.host,
        port: session.account.c2s.port,
      });
      const listing = await session.caller.driver.listTools();
      expect(listing.tools.map((tool) => tool.target?.jid)).toEqual([WEATHER, CALENDAR]);
      expect(session.target.world.endpoints.size).toBe(2);
    } finally {
      await session.stop();
    }
  });
});
