// The MCP driver against a tiny MCP server in the test (the SDK's low-level Server over an
// in-memory transport pair): paging, finding a remote tool by its _meta target, progress,
// elicitation, cancellation, and results kept exactly as sent.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { JsonObject } from '../../protocol/json/json-value.ts';
import { McpCallerDriver, TARGET_META_KEY } from './mcp-driver.ts';

const target = (tool: string): JsonObject => ({
  [TARGET_META_KEY]: { jid: 'weather@target.example', version: '2.0.0', tool },
});

/** Two pages: the cursor is the bridge's own, nothing like an RSM UID. */
const PAGES: Record<string, { tools: JsonObject[]; nextCursor?: string }> = {
  '': {
    tools: [{ name: 'forecast_get', inputSchema: { type: 'object' }, _meta: target('forecast.get') }],
    nextCursor: 'page-2',
  },
  'page-2': {
    tools: [
      { name: 'alerts_list', inputSchema: { type: 'object' }, _meta: target('alerts.list') },
      { name: 'local', inputSchema: { type: 'object' } },
    ],
  },
};

/** What the tiny server's tools/call handler saw and did. */
interface ServerSide {
  elicited?: unknown;
  /** Resolves when the long call's handler runs. */
  readonly entered: Promise<void>;
  /** Resolves with the reason the long call was cancelled with. */
  readonly cancelled: Promise<unknown>;
  enter(): void;
  cancel(reason: unknown): void;
}

function serverSide(): ServerSide {
  let enter = (): void => undefined;
  let cancel = (_reason: unknown): void => undefined;
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const cancelled = new Promise<unknown>((resolve) => {
    cancel = resolve;
  });
  return { entered, cancelled, enter, cancel };
}

// The low-level Server: paged tools/list and raw results are what the test needs (as
// harness/conformance-tools/server.ts explains).
// eslint-disable-next-line @typescript-eslint/no-deprecated
type TinyServer = Server;

function tinyServer(side: ServerSide): TinyServer {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server: TinyServer = new Server({ name: 'tiny', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(
    ListToolsRequestSchema,
    (request) => PAGES[request.params?.cursor ?? ''] ?? { tools: [] },
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const progress = async (value: number): Promise<void> => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: value, total: 100 },
      });
    };
    switch (request.params.name) {
      case 'forecast_get':
        await progress(10);
        await progress(90);
        // An absent isError and an unusual _meta must come through as they are.
        return {
          content: [{ type: 'text', text: 'sunny' }],
          structuredContent: { t: 21 },
          _meta: { 'x.example/k': 1 },
        };
      case 'alerts_list': {
        const answer = await server.elicitInput({
          mode: 'form',
          message: 'Which region?',
          requestedSchema: { type: 'object', properties: { region: { type: 'string' } } },
        });
        side.elicited = answer;
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      }
      default:
        // Runs until the client cancels.
        await new Promise<void>((resolve) => {
          extra.signal.addEventListener('abort', () => {
            side.cancel(extra.signal.reason);
            resolve();
          });
          side.enter();
        });
        return { content: [], isError: true };
    }
  });
  return server;
}

describe('MCP caller driver', () => {
  let server: TinyServer;
  let driver: McpCallerDriver;
  let side: ServerSide;

  beforeEach(async () => {
    side = serverSide();
    server = tinyServer(side);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    driver = await McpCallerDriver.connect(clientTransport);
  });

  afterEach(async () => {
    await driver.close();
    await server.close();
  });

  it('lists every page, keeping the cursors, and finds a remote tool by its _meta target only', async () => {
    const listing = await driver.listTools();
    expect(listing.tools.map((tool) => tool.name)).toEqual(['forecast_get', 'alerts_list', 'local']);
    expect(listing.cursors).toEqual(['page-2']);
    expect(listing.tools[2]?.target).toBeUndefined();
    const found = await driver.remoteTool('weather@target.example', 'alerts.list');
    expect(found?.name).toBe('alerts_list');
    expect(found?.json).toEqual(PAGES['page-2']?.tools[0]);
    expect(await driver.remoteTool('weather@target.example', 'alerts.list', '1.0.0')).toBeUndefined();
    expect(await driver.remoteTool('weather@target.example', 'local')).toBeUndefined();
  });

  it('collects progress in order and keeps the result exactly as sent', async () => {
    const call = driver.call('forecast_get', { city: 'Riga' });
    expect(await call.done).toEqual({
      content: [{ type: 'text', text: 'sunny' }],
      structuredContent: { t: 21 },
      _meta: { 'x.example/k': 1 },
    });
    expect(call.progress.map((update) => update.progress.progress)).toEqual([10, 90]);
  });

  it('answers elicitations as scripted and declines the ones it was not told about', async () => {
    driver.answerElicitation({ action: 'accept', content: { region: 'Baltic' } });
    await driver.call('alerts_list', {}).done;
    expect(side.elicited).toEqual({ action: 'accept', content: { region: 'Baltic' } });
    await driver.call('alerts_list', {}).done;
    expect(side.elicited).toEqual({ action: 'decline' });
    expect(driver.elicitations.map((received) => received.params.message)).toEqual([
      'Which region?',
      'Which region?',
    ]);
  });

  it('cancels a call with notifications/cancelled, which the server sees with the reason', async () => {
    const call = driver.call('local', {});
    await side.entered;
    call.cancel('the case is done with it');
    await expect(call.done).rejects.toThrow('the case is done with it');
    expect(await side.cancelled).toBe('the case is done with it');
  });
});
