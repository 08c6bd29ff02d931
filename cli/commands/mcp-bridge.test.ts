// `agentconf mcp-bridge` through the CLI's main(): --loss-table prints the table, an invalid
// caller config exits 1 with every problem, a login that cannot happen exits 1 in one line, a
// server without STARTTLS gets no authentication, usage mistakes exit 2. The bridge at work is integration/mcp-bridge.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../io.ts';
import { main } from '../main.ts';
import { closedPort } from '../test-support/closed-port.ts';

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

/** A valid caller config for bob@server.example whose server is at 127.0.0.1:port. */
function bridgeConfig(port: number): string {
  const path = join(dir, 'bridge.json');
  writeFileSync(
    path,
    JSON.stringify({
      xmpp: { jid: 'bob@server.example', password: 'p', host: '127.0.0.1', port },
      endpoints: [{ jid: 'a@agents.example' }],
    }),
  );
  return path;
}

describe('agentconf mcp-bridge', () => {
  it('prints the semantic-loss table with --loss-table', async () => {
    const { code, stdout } = await run(['--loss-table']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ transparentMcpTasks: false });
  });

  it('lists every problem of an invalid config and exits 1', async () => {
    const path = join(dir, 'bridge.json');
    writeFileSync(
      path,
      JSON.stringify({ xmpp: { jid: 'nobody', password: '', tls: 'direct' }, endpoints: [], pollSeconds: 5 }),
    );
    const { code, stderr } = await run(['--config', path]);
    expect(code).toBe(1);
    for (const pointer of ['/xmpp/jid', '/xmpp/password', '/xmpp/tls', '/endpoints', '/pollSeconds']) {
      expect(stderr).toContain(`${pointer}:`);
    }
  });

  it('exits 1 in one line when the server cannot be reached', async () => {
    const path = bridgeConfig(await closedPort());
    const { code, stderr } = await run(['--config', path]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^agentconf mcp-bridge: cannot log in as bob@server\.example at xmpp:\/\/127\.0\.0\.1:\d+: /,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('never authenticates on a stream without STARTTLS', async () => {
    const received: string[] = [];
    const server = createServer((socket: Socket) => {
      // A client that closes at once may reset the connection: not what this test judges.
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        received.push(text);
        if (text.includes('</stream:stream>')) socket.end('</stream:stream>');
        if (!text.includes('<stream:stream')) return;
        socket.write(
          "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s1' from='server.example' version='1.0'>" +
            "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>",
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const path = bridgeConfig(port);
      const { code, stderr } = await run(['--config', path]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/offered no STARTTLS/);
      expect(received.join('')).not.toMatch(/<auth /);
    } finally {
      server.close();
    }
  });

  it.each([
    [[]],
    [['--loss-table', '--http', '0']],
    [['--loss-table', '--poll', '1']],
    [['--config', 'x.json', '--host', '0.0.0.0']],
    [['--config', 'x.json', '--iq-timeout', '0']],
  ])('refuses %j as a usage error', async (args) => {
    expect((await run(args)).code).toBe(2);
  });
});
