/**
 * The conformance tools as an MCP server, over an in-memory transport: tools/list against the
 * manifest, and each script path as MCP messages (docs/conformance-tools.md, "Over MCP").
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { DEFAULT_EXPIRY_FAILURE, UNKNOWN_TOOL_FAILURE } from '../../protocol/conformance-script/index.ts';
import { MemoryLedger } from '../../protocol/conformance-script/test-support/memory-ledger.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { SETTLED_CANCEL_REASON, TASK_BRIDGE } from '../../protocol/mcp-task-bridge.ts';
import { NS_AGENT_API } from '../../protocol/namespaces.ts';
import { createConformanceToolsServer } from './server.ts';
import { CONFORMANCE_MANIFEST_FILE } from './tool-list.ts';
import {
  connectBridgeClient,
  until,
  type BridgeClient,
  type ElicitParams,
} from './test-support/bridge-client.ts';

let ledger: MemoryLedger;
let bridge: BridgeClient;

async function connect(options: { bridge?: boolean } = {}): Promise<BridgeClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createConformanceToolsServer({ ledger }).connect(serverSide);
  return connectBridgeClient(clientSide, options);
}

/** The bridge data of a JSON-RPC error, or a failure if the promise resolved. */
async function errorData(done: Promise<JsonObject>): Promise<unknown> {
  const error = await done.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof McpError)) throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  return (error.data as JsonObject | undefined)?.[TASK_BRIDGE];
}

function requestedSchemaOf(params: ElicitParams | undefined): unknown {
  return params !== undefined && 'requestedSchema' in params ? params.requestedSchema : undefined;
}

beforeEach(async () => {
  ledger = new MemoryLedger();
  bridge = await connect();
});

afterEach(async () => {
  await bridge.close();
});

describe('tools/list', () => {
  it('lists the manifest tools as MCP tools, the XMPP declarations in _meta, the implementation as serverInfo', async () => {
    const manifest = JSON.parse(readFileSync(CONFORMANCE_MANIFEST_FILE, 'utf8')) as {
      implementation: JsonObject;
      tools: JsonObject[];
    };
    const { tools } = await bridge.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'script',
      'script.typed',
      'script.plain',
      'script.approval',
      'script.bounded',
      'counter',
      'schema.keywords',
    ]);
    for (const [index, tool] of manifest.tools.entries()) {
      const { [NS_AGENT_API]: declarations, ...mcp } = tool;
      expect(tools[index]).toEqual({ ...mcp, _meta: { [TASK_BRIDGE]: { declarations } } });
    }
    expect(bridge.client.getServerVersion()).toEqual(manifest.implementation);
    expect(bridge.client.getServerCapabilities()?.experimental).toEqual({ [TASK_BRIDGE]: { version: 1 } });
  });
});

describe('tools/call', () => {
  it('progress becomes notifications/progress with the exact payload; complete answers with the result and summary', async () => {
    const { record, done } = bridge.call('script', {
      ledgerKey: 'k:progress',
      steps: [
        { progress: { percent: 25, stage: 'fetch' } },
        { progress: { message: 'almost' } },
        {
          complete: {
            content: [{ type: 'text', text: 'done' }],
            structuredContent: { value: 'done' },
            summary: 'ok',
          },
        },
      ],
    });
    expect(await done).toEqual({
      content: [{ type: 'text', text: 'done' }],
      structuredContent: { value: 'done' },
      _meta: { [TASK_BRIDGE]: { summary: 'ok' } },
    });
    expect(record.progress).toEqual([
      {
        progressToken: record.token,
        progress: 25,
        total: 100,
        _meta: { [TASK_BRIDGE]: { progress: { percent: 25, stage: 'fetch' } } },
      },
      {
        progressToken: record.token,
        progress: 2,
        message: 'almost',
        _meta: { [TASK_BRIDGE]: { progress: { message: 'almost' } } },
      },
    ]);
    expect(ledger.increments).toEqual(['k:progress']);
  });

  it('fail answers with a JSON-RPC error carrying the failure; an unknown tool and bad arguments too', async () => {
    const failure = {
      code: 'org.example:quota',
      message: 'Out of quota.',
      retryable: true,
      details: { n: 1 },
    };
    expect(await errorData(bridge.call('script.plain', { steps: [{ fail: failure }] }).done)).toEqual({
      failed: failure,
    });
    expect(await errorData(bridge.call('forecast.get', {}).done)).toEqual({ failed: UNKNOWN_TOOL_FAILURE });
    expect(await errorData(bridge.call('script', { steps: [{ jump: {} }] }).done)).toEqual({
      failed: {
        code: 'internal-error',
        message: "The arguments do not match the tool's inputSchema (at /steps/0).",
        retryable: false,
      },
    });
  });

  it('a script without a terminal step ends in a plain JSON-RPC error (the runtime-fault path)', async () => {
    expect(await errorData(bridge.call('script', { steps: [{ progress: {} }] }).done)).toBeUndefined();
  });

  it('input asks by elicitation with the exact schema, expiry and call; the answer in _meta is echoed', async () => {
    const answers: JsonObject[] = [{ unit: 'C' }];
    bridge.answer = () => ({ action: 'accept', _meta: { [TASK_BRIDGE]: { input: answers.shift() ?? 5 } } });
    const inputSchema = { type: 'object', properties: { unit: { enum: ['C', 'F'] } }, required: ['unit'] };
    const { record, done } = bridge.call('script', {
      steps: [
        { input: { question: 'Which unit?', inputSchema, expiresInMs: 60_000 } },
        { input: { question: 'How many days?', inputSchema: { type: 'integer' } } },
        { complete: { echoInputs: true } },
      ],
    });
    expect(await done).toEqual({ content: [], structuredContent: { inputs: [{ unit: 'C' }, 5] } });
    const [first, second] = record.elicitations;
    expect(first?.message).toBe('Which unit?');
    // Not an MCP form schema (an enum without a type): an open form, the exact schema in _meta.
    expect(requestedSchemaOf(first)).toEqual({ type: 'object', properties: {} });
    const part = first?._meta?.[TASK_BRIDGE] as JsonObject;
    expect(part['call']).toBe(record.token);
    expect(part['inputSchema']).toEqual(inputSchema);
    expect(Date.parse(part['expiresAt'] as string) - Date.now()).toBeGreaterThan(50_000);
    expect((second?._meta?.[TASK_BRIDGE] as JsonObject)['expiresAt']).toBeUndefined();
  });

  it('a plain MCP form schema is sent as requestedSchema; accepted content is the input without _meta', async () => {
    bridge.answer = () => ({ action: 'accept', content: { city: 'Oslo' } });
    const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const { record, done } = bridge.call('script', {
      steps: [{ input: { question: 'Where?', inputSchema } }, { complete: { echoInputs: true } }],
    });
    expect(await done).toEqual({ content: [], structuredContent: { inputs: [{ city: 'Oslo' }] } });
    expect(requestedSchemaOf(record.elicitations[0])).toEqual(inputSchema);
  });

  it('an expired request is asked again, then the expiry failure; a refused one falls back to internal-error', async () => {
    bridge.answer = () => ({ action: 'cancel', _meta: { [TASK_BRIDGE]: { outcome: 'expired' } } });
    const expiring = bridge.call('script', {
      steps: [
        { input: { question: 'Still there?', inputSchema: { type: 'object' }, expiresInMs: 10, reissue: 1 } },
      ],
    });
    expect(await errorData(expiring.done)).toEqual({ failed: DEFAULT_EXPIRY_FAILURE });
    expect(expiring.record.elicitations).toHaveLength(2);
    bridge.answer = () => ({ action: 'decline', _meta: { [TASK_BRIDGE]: { refusal: 'invalid' } } });
    const refused = bridge.call('script', {
      steps: [{ input: { question: '?', inputSchema: { type: 'object' } } }, { complete: {} }],
    });
    expect(await errorData(refused.done)).toEqual({
      failed: {
        code: 'internal-error',
        message: 'The gateway refused what the tool reported.',
        retryable: false,
      },
    });
  });

  it('cancellation: confirm, proceed to a completion, and the cancel step with late output', async () => {
    const confirm = new AbortController();
    const confirming = bridge.call('script', { steps: [{ wait: {} }] }, confirm.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    confirm.abort('stop');
    await expect(confirming.done).rejects.toThrow('stop');
    await until(() => confirming.record.outcomes.length === 1);
    expect(confirming.record.outcomes[0]).toEqual({
      progressToken: confirming.record.token,
      outcome: { cancelled: {} },
    });

    const proceed = new AbortController();
    const proceeding = bridge.call(
      'script',
      {
        steps: [
          { wait: { onCancel: 'proceed' } },
          { complete: { content: [{ type: 'text', text: 'anyway' }] } },
        ],
      },
      proceed.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    proceed.abort('stop');
    await until(() => proceeding.record.outcomes.length === 1);
    expect(proceeding.record.outcomes[0]?.['outcome']).toEqual({
      completed: { result: { content: [{ type: 'text', text: 'anyway' }] } },
    });

    const late = new AbortController();
    const lateCall = bridge.call(
      'script',
      {
        steps: [
          { wait: { onCancel: 'proceed' } },
          { cancel: { reason: 'stopped as asked' } },
          { progress: { percent: 99 } },
          { complete: { structuredContent: { value: 'late' } } },
          { fail: { code: 'org.example:late', message: 'late', retryable: false } },
          { increment: { key: 'k:late' } },
        ],
      },
      late.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    late.abort('stop');
    await until(() => ledger.read('k:late') === 1);
    expect(lateCall.record.outcomes.map((entry) => entry['outcome'])).toEqual([
      { cancelled: { reason: 'stopped as asked' } },
      { completed: { result: { content: [], structuredContent: { value: 'late' } } } },
      { failed: { code: 'org.example:late', message: 'late', retryable: false } },
    ]);
    expect(lateCall.record.progress).toHaveLength(1);
  });

  it('a cancel step without a cancellation answers with the cancellation; its late output follows as notifications', async () => {
    const { record, done } = bridge.call('script', {
      steps: [
        { cancel: { reason: 'on my own' } },
        { progress: { message: 'late' } },
        { increment: { key: 'k:own' } },
      ],
    });
    expect(await errorData(done)).toEqual({ cancelled: { reason: 'on my own' } });
    await until(() => ledger.read('k:own') === 1);
    await until(() => record.progress.length === 1);
  });

  it('a settled task stops the script: nothing is reported after notifications/cancelled says so', async () => {
    const settle = new AbortController();
    const { record } = bridge.call(
      'script',
      { steps: [{ wait: { onCancel: 'proceed' } }, { increment: { key: 'k:settled' } }, { complete: {} }] },
      settle.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    settle.abort(SETTLED_CANCEL_REASON);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ledger.read('k:settled')).toBe(0);
    expect(record.outcomes).toEqual([]);
  });

  it('counter reads the ledger that ledgerKey and increment steps write', async () => {
    await errorData(
      bridge.call('script', { ledgerKey: 'k:count', steps: [{ increment: { key: 'k:count' } }] }).done,
    );
    expect(await bridge.call('counter', { key: 'k:count' }).done).toEqual({
      content: [{ type: 'text', text: '2' }],
      structuredContent: { key: 'k:count', count: 2 },
    });
  });

  it('schema.keywords answers at once with the arguments it was given', async () => {
    const args = { code: 'abc', email: 'not an address' };
    expect(await bridge.call('schema.keywords', args).done).toEqual({
      content: [],
      structuredContent: { arguments: args },
    });
  });

  it('a client without the extension gets no outcome notification after cancelling', async () => {
    const plain = await connect({ bridge: false });
    try {
      const cancel = new AbortController();
      const { record } = plain.call(
        'script',
        { steps: [{ wait: {} }, { increment: { key: 'k:plain' } }] },
        cancel.signal,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      cancel.abort('stop');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(record.outcomes).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
