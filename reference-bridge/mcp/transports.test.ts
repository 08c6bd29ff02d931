// The bridge over Streamable HTTP (stdio is integration/mcp-bridge.test.ts): two MCP sessions on
// one core list the pinned tools of a scripted endpoint, read the loss table, and see no MCP
// Tasks capability; a request without a session is refused.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJsonObject } from '../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { BridgeCore } from '../bridge.ts';
import { PinnedCatalog } from '../../reference-caller/catalog/pinned-catalog.ts';
import { TaskTracker } from '../../reference-caller/tasks/task-tracker.ts';
import { REPO_ROOT_FOR_TESTS } from '../../reference-caller/test-support/repo-root.ts';
import { scriptedQuerier } from '../../reference-caller/test-support/scripted-querier.ts';
import { scriptedWorld } from '../../reference-caller/test-support/scripted-world.ts';
import { McpCatalog } from '../catalog/mcp-catalog.ts';
import { LOSS_RESOURCE_URI } from '../loss/semantic-loss.ts';
import { serveBridgeHttp, type BridgeHttp } from './transports.ts';

const manifest = parseStrictJson(readFileSync(`${REPO_ROOT_FOR_TESTS}/fixtures/manifests/conformance.json`));
if (!isJsonObject(manifest)) throw new Error('fixture manifest is not an object');

let served: BridgeHttp;

beforeAll(async () => {
  const log = (): void => undefined;
  const { querier } = scriptedQuerier(scriptedWorld(manifest));
  const core = {
    catalog: new McpCatalog(new PinnedCatalog(querier, [{ jid: 'conformance@agents.example' }], log)),
    calls: { querier, tracker: new TaskTracker(log), now: () => performance.now(), pollMs: 1000, log },
    log,
  } as unknown as BridgeCore;
  served = await serveBridgeHttp(core, 0);
});

afterAll(async () => {
  await served.close();
});

async function connected(): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return client;
}

describe('serveBridgeHttp', () => {
  it('serves tools/list and the loss table to each of two sessions', async () => {
    const clients = [await connected(), await connected()];
    for (const client of clients) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('script');
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      const loss = await client.readResource({ uri: LOSS_RESOURCE_URI });
      expect(loss.contents[0]?.mimeType).toBe('application/json');
    }
    await Promise.all(clients.map((client) => client.close()));
  });

  it('refuses a request that is not an initialization and names no session', async () => {
    const response = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
  });
});
