// Starting a caller under test from a SUT file's declaration, on stdio and on Streamable HTTP:
// the config it is handed is the contract's, and the driver finds its tools by the _meta target.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { parseCallerConfig } from '../../protocol/json/caller-config.ts';
import { ProcessExitedError } from '../faults/managed-process.ts';
import type { Account } from '../federation/server-provider.ts';
import { REPO_ROOT } from '../repo-root.ts';
import { parseSutFile, type McpCallerDeclaration } from '../sut/sut-config.ts';
import { callerConfigFor } from './caller-config-file.ts';
import { fillCallerTemplate, startMcpCaller, type McpCallerUnderTest } from './mcp-caller.ts';

const TINY_BRIDGE = 'harness/caller-under-test/test-support/tiny-bridge-main.ts';

const ACCOUNT: Account = {
  jid: 'bridge@example.com',
  username: 'bridge',
  domain: 'example.com',
  password: 'secret-pw',
  server: 'a',
  c2s: { host: '127.0.0.1', port: 5222 },
  c2sDirectTls: { host: '127.0.0.1', port: 5223 },
};

function declared(mcp: Record<string, unknown>): McpCallerDeclaration {
  const file = parseSutFile(JSON.stringify({ name: 'tiny', caller: { mcp } }), join(REPO_ROOT, 'sut.json'));
  if (file.kind !== 'mcp-caller') throw new Error('a bridge file');
  return file.config.caller;
}

const RUN_TINY = [process.execPath, 'bin/run-ts.js', TINY_BRIDGE, '--config', '{config}'];

describe('caller under test over MCP', () => {
  let dataDir: string;
  let caller: McpCallerUnderTest | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'caller-under-test-'));
  });

  afterEach(async () => {
    await caller?.stop();
    caller = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  const config = callerConfigFor({
    account: ACCOUNT,
    endpoints: [{ jid: 'weather@target.example', version: '2.0.0' }, { jid: 'calendar@target.example' }],
    timeoutSeconds: 3,
  });

  it('fills {config} and {port}, and keeps {{name} literal', () => {
    expect(
      fillCallerTemplate('--config={config} :{port} {{config}', { config: '/d/c.json', port: 4711 }),
    ).toBe('--config=/d/c.json :4711 {config}');
  });

  it('starts a stdio bridge with the contract config, owner-readable, and finds tools by _meta', async () => {
    caller = await startMcpCaller({
      declaration: declared({ command: RUN_TINY, cwd: '.' }),
      config,
      dataDir,
      caFile: '/run/ca.pem',
    });
    const written = parseCallerConfig(await readFile(caller.configPath), caller.configPath);
    expect(written).toEqual(config);
    expect(written.xmpp).toMatchObject({ jid: 'bridge@example.com', host: '127.0.0.1', port: 5222 });
    expect((await stat(caller.configPath)).mode & 0o077).toBe(0);

    const tool = await caller.driver.remoteTool('calendar@target.example', 'echo');
    expect(tool?.name).toBe('endpoint_1');
    expect(tool?.target).toEqual({ jid: 'calendar@target.example', version: 'active', tool: 'echo' });
    const result = await caller.driver.call('endpoint_0', {}).done;
    expect(result['structuredContent']).toEqual({
      jid: 'bridge@example.com',
      timeoutSeconds: 3,
      caInEnvironment: '/run/ca.pem',
      authorization: null,
    });
    expect(caller.requestsWithHeaders()).toBe(0);
  });

  it('refuses HTTP headers for a stdio bridge, which has nowhere to carry them', async () => {
    const failure = await startMcpCaller({
      declaration: declared({ command: RUN_TINY, cwd: '.' }),
      config,
      dataDir,
      httpHeaders: { Authorization: 'Bearer never-sent' },
    }).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/only Streamable HTTP carries them/);
  });

  it('starts a Streamable HTTP bridge on a free port and connects once it answers', async () => {
    const declaration = declared({
      command: [...RUN_TINY, '--http', '{port}'],
      url: 'http://127.0.0.1:{port}/mcp',
      cwd: '.',
    });
    caller = await startMcpCaller({ declaration, config, dataDir });
    expect(caller.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect((await caller.driver.listTools()).tools.map((tool) => tool.target?.jid)).toEqual([
      'weather@target.example',
      'calendar@target.example',
    ]);
  });

  it('sends the given headers with every HTTP request and counts those that carried them', async () => {
    const declaration = declared({
      command: [...RUN_TINY, '--http', '{port}'],
      url: 'http://127.0.0.1:{port}/mcp',
      cwd: '.',
    });
    const httpHeaders = { Authorization: 'Bearer canary-1', 'X-API-Key': 'canary-2' };
    caller = await startMcpCaller({ declaration, config, dataDir, httpHeaders });
    const result = await caller.driver.call('endpoint_0', {}).done;
    expect(result['structuredContent']).toMatchObject({ authorization: 'Bearer canary-1' });
    // initialize, its notification, tools/call at least (the GET stream too, when opened)
    expect(caller.requestsWithHeaders()).toBeGreaterThanOrEqual(3);
  });

  it('ends the wait with the output when the HTTP bridge exits instead of answering', async () => {
    const declaration = declared({
      command: [
        process.execPath,
        '-e',
        'console.error("no such bridge"); process.exit(3)',
        '{config}',
        '{port}',
      ],
      url: 'http://127.0.0.1:{port}/mcp',
    });
    const failure = await startMcpCaller({ declaration, config, dataDir }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProcessExitedError);
    expect(String(failure)).toContain('no such bridge');
  });
});
