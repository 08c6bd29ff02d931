// `agentconf mcp-bridge` through the CLI's main(): --loss-table prints the table, an invalid
// config exits 1 with every problem, a login that cannot happen exits 1 in one line, usage
// mistakes exit 2. The bridge at work is integration/mcp-bridge.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../io.ts';
import { main } from '../main.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-bridge-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: () => Buffer.alloc(0),
  };
  const code = await main(['mcp-bridge', ...args], io);
  return { code, stdout, stderr };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}

describe('agentconf mcp-bridge', () => {
  it('prints the semantic-loss table with --loss-table', async () => {
    const { code, stdout } = await run(['--loss-table']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ transparentMcpTasks: false });
  });

  it('lists every problem of an invalid config and exits 1', async () => {
    const path = join(dir, 'bridge.json');
    writeFileSync(path, JSON.stringify({ xmpp: { jid: 'nobody', password: '' }, endpoints: [] }));
    const { code, stderr } = await run(['--config', path]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/3 problem\(s\)/);
  });

  it('exits 1 in one line when the server cannot be reached', async () => {
    const path = join(dir, 'bridge.json');
    const port = await closedPort();
    writeFileSync(
      path,
      JSON.stringify({
        xmpp: { jid: 'bob@server.example', password: 'p', host: '127.0.0.1', port },
        endpoints: [{ jid: 'a@agents.example' }],
      }),
    );
    const { code, stderr } = await run(['--config', path]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^agentconf mcp-bridge: cannot log in as bob@server\.example at xmpps:\/\/127\.0\.0\.1:\d+: /,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([[[]], [['--loss-table', '--http', '0']], [['--config', 'x.json', '--host', '0.0.0.0']]])(
    'refuses %j as a usage error',
    async (args) => {
      expect((await run(args)).code).toBe(2);
    },
  );
});
