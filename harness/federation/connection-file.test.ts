// The connection file: what a running federation writes, read back as the external provider's
// config; the committed example is valid and names every account a run needs.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ConfigError } from '../../protocol/json/config-file.ts';
import { REPO_ROOT } from '../../protocol/test-support/shared-paths.ts';
import { fakeFederation } from '../sut/test-support/fake-federation.ts';
import { connectionFileOf, parseConnectionFile, writeConnectionFile } from './connection-file.ts';
import { externalProvider } from './external-provider.ts';

/** Every account agentconf run logs in as (suites/fixtures/world-accounts.ts and the admin). */
const RUN_ACCOUNTS = [
  'alice@example.com',
  'carol@example.com',
  'grantee@example.com',
  'bob@server.example',
  'dave@server.example',
  'prober@server.example',
  'registrant@server.example',
  'admin@server.example',
  'mallory@hostile.example',
];

describe('connection file', () => {
  it('describes a running federation, and reads back as the same federation for the external provider', async () => {
    const running = fakeFederation({ secret: 'per-run secret' });
    const file = connectionFileOf(running, { adminJid: 'admin@server.example', worldFile: '/w.json' });
    expect(file.component).toEqual({
      host: '127.0.0.4',
      port: 5347,
      domain: 'agents.example',
      secret: 'per-run secret',
    });
    expect(file.servers.b).toMatchObject({ host: '127.0.0.3', domains: ['server.example'], c2sPort: 5222 });
    const again = await externalProvider(parseConnectionFile(JSON.stringify(file), 'c.json')).start();
    expect(again.component).toMatchObject({ host: '127.0.0.4', port: 5347, secret: 'per-run secret' });
    expect(again.account('bob@server.example')).toMatchObject({
      password: 'pw-bob',
      c2s: running.servers.b.c2s,
    });
    expect(again.servers.b.domains).toEqual(['server.example', 'agents.example']);
  });

  it("declares what server A does with blocks only where the harness's own server does it, and reads it back", async () => {
    const running = fakeFederation({ secret: 's' });
    const undeclared = await externalProvider(
      parseConnectionFile(JSON.stringify(connectionFileOf(running)), 'c.json'),
    ).start();
    // The harness's own Prosody as server A, as prosody-server.ts reports it.
    Object.assign(running.servers.a, { leavesBlockingToSender: true });
    const file = connectionFileOf(running);
    expect(file.servers.a.leavesBlockingToSender).toBe(true);
    expect(file.servers.b).not.toHaveProperty('leavesBlockingToSender');
    const again = await externalProvider(parseConnectionFile(JSON.stringify(file), 'c.json')).start();
    expect([again.servers.a.leavesBlockingToSender, again.servers.b.leavesBlockingToSender]).toEqual([
      true,
      false,
    ]);
    expect(undeclared.servers.a.leavesBlockingToSender).toBe(false);
  });

  it('is written whole, for its owner only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentconf-connection-'));
    try {
      const path = join(dir, 'c.json');
      await writeConnectionFile(path, connectionFileOf(fakeFederation()));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ caCertPath: '/run/fake/certs/ca.crt' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every problem of a hand-written file, and a component domain that disagrees', () => {
    const problems = (text: string): string[] => {
      try {
        parseConnectionFile(text, 'x.json');
      } catch (error) {
        if (error instanceof ConfigError) return error.violations.map((v) => `${v.path}: ${v.message}`);
        throw error;
      }
      return [];
    };
    expect(
      problems('{"servers": {"a": {"host": "a"}}, "accounts": [{"jid": "nobody"}], "caCertPath": ""}'),
    ).toEqual([
      '/component: "component" is required',
      '/servers/b: "b" is required',
      '/accounts/0/password: "password" is required',
      '/accounts/0/jid: must match ^[^@/\\s]+@[^@/\\s]+$',
      '/caCertPath: must not be empty',
    ]);
    const disagreeing = {
      domains: { component: 'gw.example' },
      servers: { a: { host: 'a' }, b: { host: 'b' } },
      component: { host: 'b', domain: 'agents.example', secret: 's' },
      accounts: [],
      caCertPath: '/ca.pem',
    };
    expect(problems(JSON.stringify(disagreeing))).toEqual([
      '/component/domain: agents.example is not domains.component (gw.example): give one, or the same in both',
    ]);
  });

  it('has a committed example (fixtures/federation/external.example.json) with every account a run needs', async () => {
    const path = join(REPO_ROOT, 'fixtures', 'federation', 'external.example.json');
    const config = parseConnectionFile(readFileSync(path), path);
    const federation = await externalProvider(config).start({ hostile: true });
    expect(federation.accounts.map((account) => account.jid).sort()).toEqual([...RUN_ACCOUNTS].sort());
    expect(federation.servers.a.implementation).toBe('ejabberd');
  });
});
