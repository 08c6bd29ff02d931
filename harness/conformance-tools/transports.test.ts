/**
 * `agentconf conformance-tools` on its two transports, and the ledger read out of band: stdio
 * (the CLI as a child process, the ledger in a file that outlives it) and Streamable HTTP (in
 * process and as the CLI with --http 0, the ledger at /ledger/KEY).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '../repo-root.ts';
import { ConformanceLedger, readLedgerFile } from './ledger.ts';
import { serveConformanceToolsHttp } from './transports.ts';
import { connectBridgeClient } from './test-support/bridge-client.ts';

const CLI = join(REPO_ROOT, 'bin', 'agentconf.js');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-tools-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function stdioClient(ledgerFile: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'conformance-tools', '--ledger', ledgerFile],
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
}

describe('stdio', () => {
  it('serves the tools from a child process; the ledger file is read out of band and survives a restart', async () => {
    const file = join(dir, 'ledger.jsonl');
    const first = await connectBridgeClient(stdioClient(file));
    try {
      expect((await first.client.listTools()).tools).toHaveLength(7);
      await expect(
        first.call('script', {
          ledgerKey: 'k:stdio',
          steps: [{ complete: { structuredContent: { value: 'x' } } }],
        }).done,
      ).resolves.toEqual({ content: [], structuredContent: { value: 'x' } });
    } finally {
      await first.close();
    }
    expect(readLedgerFile(file).get('k:stdio')).toBe(1);
    const second = await connectBridgeClient(stdioClient(file));
    try {
      await second.call('script', { ledgerKey: 'k:stdio', steps: [{ complete: {} }] }).done;
      expect(await second.call('counter', { key: 'k:stdio' }).done).toMatchObject({
        structuredContent: { key: 'k:stdio', count: 2 },
      });
    } finally {
      await second.close();
    }
    expect(readLedgerFile(file).get('k:stdio')).toBe(2);
  }, 30_000);
});

describe('Streamable HTTP', () => {
  it('serves sessions on one ledger, readable at /ledger/KEY', async () => {
    const ledger = ConformanceLedger.inMemory();
    const served = await serveConformanceToolsHttp({ ledger, port: 0 });
    try {
      const one = await connectBridgeClient(new StreamableHTTPClientTransport(new URL(served.url)));
      const two = await connectBridgeClient(new StreamableHTTPClientTransport(new URL(served.url)));
      const { record, done } = one.call('script', {
        ledgerKey: 'k:http',
        steps: [{ progress: { percent: 50 } }, { complete: {} }],
      });
      await done;
      expect(record.progress).toHaveLength(1);
      await two.call('script', { ledgerKey: 'k:http', steps: [{ complete: {} }] }).done;
      const answer = await fetch(`${served.ledgerUrl}/k:http`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ key: 'k:http', count: 2 });
      expect(await (await fetch(served.ledgerUrl)).json()).toEqual({ counts: { 'k:http': 2 } });
      expect((await fetch(`${served.ledgerUrl}/not%20a%20key`)).status).toBe(400);
      expect((await fetch(new URL('/elsewhere', served.url))).status).toBe(404);
      await one.close();
      await two.close();
    } finally {
      await served.close();
    }
  });

  it('agentconf conformance-tools --http 0 prints its address and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'conformance-tools', '--http', '0'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const found = /MCP at (http:\/\/\S+\/mcp);/.exec(stdout);
        if (found?.[1] !== undefined) resolve(found[1]);
      });
      child.once('exit', () => {
        reject(new Error(`exited before listening: ${stdout}`));
      });
    });
    const client = await connectBridgeClient(new StreamableHTTPClientTransport(new URL(url)));
    await client.call('script', { ledgerKey: 'k:cli', steps: [{ complete: {} }] }).done;
    expect(await (await fetch(new URL('/ledger/k:cli', url))).json()).toEqual({ key: 'k:cli', count: 1 });
    await client.close();
    const code = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(stdout).toContain('conformance-tools: stopped (SIGTERM)');
  }, 30_000);
});
