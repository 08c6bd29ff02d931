/**
 * The `mcp` runtime behind a fake task engine: against `agentconf conformance-tools` over stdio
 * (a server that speaks the task-bridge extension: every script path arrives as the same
 * actions the built-in conformance runtime takes), and against a plain in-memory MCP server
 * (the plain MCP mapping and its losses).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_EXPIRY_FAILURE,
  REFUSAL_FAILURE,
  UNKNOWN_TOOL_FAILURE,
} from '../../../protocol/conformance-script/index.ts';
import { FakeEngine } from '../../../protocol/conformance-script/test-support/fake-actions.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import type { McpServerSpec } from '../../config/mcp-endpoints.ts';
import { TASK_BRIDGE, TASK_BRIDGE_CAPABILITY } from '../../../protocol/mcp-task-bridge.ts';
import { McpRuntime, SERVER_GONE } from './mcp-runtime.ts';
import { McpSessionPool } from './mcp-session-pool.ts';
import { plainServer, type PlainServerFactory } from './test-support/plain-server.ts';

const CLIENT = { clientInfo: { name: 'test-gateway', version: '1' }, timeoutMs: 20_000 };
const CONFORMANCE_TOOLS_SPEC: McpServerSpec = {
  kind: 'stdio',
  command: process.execPath,
  args: [join(REPO_ROOT, 'bin', 'agentconf.js'), 'conformance-tools'],
  cwd: REPO_ROOT,
  env: {},
};

function execute(runtime: McpRuntime, engine: FakeEngine, tool: string, args: JsonValue): Promise<void> {
  return runtime.execute({ taskHandle: 'h', tool, apiVersion: '1.0.0', arguments: args }, engine.actions);
}

/** A runtime on an in-memory plain server, closed after `use`. */
async function withRuntime(
  server: PlainServerFactory,
  use: (runtime: McpRuntime) => Promise<void>,
): Promise<void> {
  const { pool } = await McpSessionPool.open(
    { kind: 'http', url: 'http://in-memory/' },
    { ...CLIENT, transport: server.transport },
  );
  try {
    await use(new McpRuntime({ pool }));
  } finally {
    await pool.close();
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('with agentconf conformance-tools (task-bridge extension)', () => {
  let pool: McpSessionPool;
  let runtime: McpRuntime;

  beforeAll(async () => {
    pool = (await McpSessionPool.open(CONFORMANCE_TOOLS_SPEC, CLIENT)).pool;
    runtime = new McpRuntime({ pool });
  }, 30_000);

  afterAll(async () => {
    await pool.close();
  });

  async function count(key: string): Promise<JsonValue | undefined> {
    const engine = new FakeEngine();
    await execute(runtime, engine, 'counter', { key });
    const [call] = engine.calls;
    return call?.kind === 'complete' ? call.result.structuredContent : undefined;
  }

  it('progress and a completion arrive as the same actions, the summary out of _meta', async () => {
    const engine = new FakeEngine();
    await execute(runtime, engine, 'script', {
      ledgerKey: 'mcp:progress',
      steps: [
        { progress: { percent: 25, stage: 'fetch' } },
        { progress: { message: 'almost' } },
        { progress: { percent: 150 } },
        {
          complete: {
            content: [{ type: 'text', text: 'done' }],
            structuredContent: { value: 'done' },
            isError: true,
            _meta: { 'example.org/trace': 'x' },
            summary: 'ok',
          },
        },
      ],
    });
    expect(engine.calls).toEqual([
      { kind: 'progress', update: { percent: 25, stage: 'fetch' } },
      { kind: 'progress', update: { message: 'almost' } },
      { kind: 'progress', update: { percent: 150 } },
      {
        kind: 'complete',
        result: {
          content: [{ type: 'text', text: 'done' }],
          structuredContent: { value: 'done' },
          isError: true,
          _meta: { 'example.org/trace': 'x' },
        },
        summary: 'ok',
      },
    ]);
    expect(await count('mcp:progress')).toEqual({ key: 'mcp:progress', count: 1 });
  });

  it('failures keep their code; an unknown tool and a refused result fail as the built-in runtime does', async () => {
    const failure = { code: 'org.example:quota', message: 'Out of quota.', retryable: true };
    const failing = new FakeEngine();
    await execute(runtime, failing, 'script', { steps: [{ fail: failure }] });
    expect(failing.calls).toEqual([{ kind: 'fail', failure }]);
    const unknown = new FakeEngine();
    await execute(runtime, unknown, 'forecast.get', { city: 'Oslo' });
    expect(unknown.calls).toEqual([{ kind: 'fail', failure: UNKNOWN_TOOL_FAILURE }]);
    const refused = new FakeEngine().refuseNext('complete', 'invalid');
    await execute(runtime, refused, 'script.typed', {
      steps: [{ complete: { structuredContent: { value: 1 } } }],
    });
    expect(refused.calls.map((call) => call.kind)).toEqual(['complete', 'fail']);
    expect(refused.calls[1]).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
  });

  it('input requests carry the exact schema and expiry; answers, expiries and re-issues', async () => {
    const engine = new FakeEngine();
    const inputSchema = { type: 'object', properties: { unit: { enum: ['C', 'F'] } }, required: ['unit'] };
    const running = execute(runtime, engine, 'script', {
      steps: [
        { input: { question: 'Which unit?', inputSchema, expiresInMs: 60_000 } },
        { input: { question: 'Days?', inputSchema: { type: 'integer' }, reissue: 1 } },
        { complete: { echoInputs: true } },
      ],
    });
    await engine.whenCalled('requestInput');
    const [first] = engine.calls;
    expect(first?.kind === 'requestInput' && first.request.question).toBe('Which unit?');
    expect(first?.kind === 'requestInput' && first.request.inputSchema).toEqual(inputSchema);
    const expiresAt = first?.kind === 'requestInput' ? first.request.expiresAt : undefined;
    expect(Date.parse(expiresAt ?? '') - Date.now()).toBeGreaterThan(50_000);
    engine.answer({ unit: 'C' });
    await engine.whenCalled('requestInput', 2);
    engine.expire();
    await engine.whenCalled('requestInput', 3);
    engine.answer(5);
    await running;
    expect(engine.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }, 5] } },
    });

    const expiring = new FakeEngine();
    const unanswered = execute(runtime, expiring, 'script', {
      steps: [{ input: { question: '?', inputSchema: { type: 'object' }, expiresInMs: 1000 } }],
    });
    await expiring.whenCalled('requestInput');
    expiring.expire();
    await unanswered;
    expect(expiring.calls.at(-1)).toEqual({ kind: 'fail', failure: DEFAULT_EXPIRY_FAILURE });
  });

  it('cancellation stays advisory: confirm, proceed to a completion, ignore a superseded input', async () => {
    const confirm = new FakeEngine();
    const confirming = execute(runtime, confirm, 'script', { steps: [{ wait: {} }] });
    await pause(100);
    confirm.cancel();
    await confirming;
    expect(confirm.calls).toEqual([{ kind: 'confirmCancellation' }]);

    const proceed = new FakeEngine();
    const proceeding = execute(runtime, proceed, 'script', {
      steps: [
        { wait: { onCancel: 'proceed' } },
        { complete: { content: [{ type: 'text', text: 'anyway' }] } },
      ],
    });
    await pause(100);
    proceed.cancel();
    await proceeding;
    expect(proceed.calls).toEqual([
      { kind: 'complete', result: { content: [{ type: 'text', text: 'anyway' }] } },
    ]);

    const ignore = new FakeEngine();
    const ignoring = execute(runtime, ignore, 'script', {
      steps: [
        { input: { question: '?', inputSchema: { type: 'object' }, onCancel: 'ignore' } },
        { complete: { echoInputs: true } },
      ],
    });
    await ignore.whenCalled('requestInput');
    ignore.cancel({ supersedeInput: true });
    await ignoring;
    expect(ignore.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [] } },
    });
  });

  it('output after the confirmed cancellation is discarded; a task settled from outside stops the script', async () => {
    const engine = new FakeEngine();
    const running = execute(runtime, engine, 'script', {
      steps: [
        { wait: { onCancel: 'proceed' } },
        { cancel: { reason: 'stopped as asked' } },
        { progress: { percent: 99 } },
        { complete: { structuredContent: { value: 'late' } } },
        { increment: { key: 'mcp:late' } },
      ],
    });
    await pause(100);
    engine.cancel();
    await running;
    // The increment is the script's last step: once it counted, every late attempt was made.
    for (
      let tries = 0;
      tries < 100 && JSON.stringify(await count('mcp:late')).endsWith('"count":0}');
      tries += 1
    ) {
      await pause(20);
    }
    expect(await count('mcp:late')).toEqual({ key: 'mcp:late', count: 1 });
    expect(engine.calls).toEqual([{ kind: 'confirmCancellation', reason: 'stopped as asked' }]);

    // The tool cancelling on its own: the answer, then late output after it.
    const own = new FakeEngine();
    await execute(runtime, own, 'script', {
      steps: [{ cancel: { reason: 'on my own' } }, { progress: { message: 'late' } }, { complete: {} }],
    });
    await pause(100);
    expect(own.calls).toEqual([{ kind: 'confirmCancellation', reason: 'on my own' }]);

    const settled = new FakeEngine();
    const stopping = execute(runtime, settled, 'script', {
      steps: [{ wait: { onCancel: 'proceed' } }, { increment: { key: 'mcp:settled' } }, { complete: {} }],
    });
    await pause(100);
    settled.settleFromOutside();
    await stopping;
    await pause(200);
    expect(await count('mcp:settled')).toEqual({ key: 'mcp:settled', count: 0 });
    expect(settled.calls).toEqual([]);
  });
});

describe('with a plain MCP server', () => {
  const tools = [{ name: 'echo', inputSchema: { type: 'object' } }];

  it('maps results, plain progress and elicitation; a JSON-RPC error is left to the engine', async () => {
    const server = plainServer({
      tools,
      handlers: {
        echo: async (request, { server: mcp }) => {
          await mcp.notification({
            method: 'notifications/progress',
            params: {
              progressToken: request.params._meta?.progressToken ?? '',
              progress: 1,
              total: 4,
              message: 'a quarter',
            },
          });
          const answer = await mcp.elicitInput({
            message: 'Name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return { content: [{ type: 'text', text: String(answer.content?.['name']) }] };
        },
        broken: () => Promise.reject(new McpError(ErrorCode.InternalError, 'boom')),
      },
    });
    await withRuntime(server, async (runtime) => {
      const engine = new FakeEngine();
      const running = execute(runtime, engine, 'echo', {});
      await engine.whenCalled('requestInput');
      expect(engine.calls).toEqual([
        { kind: 'progress', update: { percent: 25, message: 'a quarter' } },
        {
          kind: 'requestInput',
          request: {
            question: 'Name?',
            inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
      ]);
      engine.answer({ name: 'Ada' });
      await running;
      expect(engine.calls.at(-1)).toEqual({
        kind: 'complete',
        result: { content: [{ type: 'text', text: 'Ada' }] },
      });

      const broken = new FakeEngine();
      await execute(runtime, broken, 'broken', {});
      expect(broken.calls).toEqual([]);
    });
  });

  it('a cancellation ends the call at once (MCP cancellation is terminal); concurrent calls get sessions of their own', async () => {
    const server = plainServer({
      tools,
      handlers: {
        wait: ({ params }, { signal }) =>
          new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              resolve({ content: [{ type: 'text', text: `cancelled ${params.name}` }] });
            });
          }),
      },
    });
    await withRuntime(server, async (runtime) => {
      const engines = [new FakeEngine(), new FakeEngine()];
      const running = engines.map((engine) => execute(runtime, engine, 'wait', {}));
      await pause(50);
      expect(server.servers).toHaveLength(2);
      for (const engine of engines) engine.cancel();
      await Promise.all(running);
      expect(engines.map((engine) => engine.calls)).toEqual([[], []]);
    });
  });

  it('a bridge server that answered before it saw the cancellation: its response is the outcome, though the SDK stopped waiting', async () => {
    // The response is held on its way until the engine has cancelled (the SDK has then dropped
    // the request and sent notifications/cancelled, which the server, done with the call, ignores).
    let held: (() => void) | undefined;
    const heldResponse = new Promise<void>((resolve) => {
      held = resolve;
    });
    let responseWritten: () => void = () => undefined;
    const written = new Promise<void>((resolve) => {
      responseWritten = resolve;
    });
    const server = plainServer({
      tools,
      experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY },
      handlers: { quick: () => Promise.resolve({ content: [{ type: 'text', text: 'done first' }] }) },
      beforeDelivery: async (message) => {
        if (!('result' in message) || !('content' in message.result)) return;
        responseWritten();
        await heldResponse;
      },
    });
    await withRuntime(server, async (runtime) => {
      const engine = new FakeEngine();
      const running = execute(runtime, engine, 'quick', {});
      await written;
      engine.cancel();
      await pause(20);
      held?.();
      await running;
      expect(engine.calls).toEqual([
        { kind: 'complete', result: { content: [{ type: 'text', text: 'done first' }] } },
      ]);
    });
  });

  it('a server that goes away under a call fails it unavailable, retryable', async () => {
    const server = plainServer({ tools, handlers: { hang: () => new Promise(() => undefined) } });
    await withRuntime(server, async (runtime) => {
      const engine = new FakeEngine();
      const running = execute(runtime, engine, 'hang', {});
      await pause(50);
      await server.servers[0]?.close();
      await running;
      expect(engine.calls).toEqual([{ kind: 'fail', failure: SERVER_GONE }]);
    });
  });
});
