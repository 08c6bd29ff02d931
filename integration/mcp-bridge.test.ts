/**
 * #mcp-mapping, #invocation, #events, #interactive-input, #cancellation, #task-message-routing:
 * `agentconf mcp-bridge` over stdio against the reference gateway's conformance endpoint, driven
 * by the official MCP SDK client: tools/list, a call to completion, one with progress, one that
 * needs input (elicitation), one cancelled, and what the bridge sent on the XMPP side (every
 * command to the bare JID, one fresh request ID per call).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { isIdentifier } from '../protocol/identifiers.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import {
  OUTCOME_NOTIFICATION,
  TASK_BRIDGE,
  TASK_BRIDGE_CAPABILITY,
  outcomeFromWire,
  type BridgeOutcome,
} from '../protocol/mcp-task-bridge.ts';
import { TARGET_META_KEY } from '../reference-bridge/catalog/mcp-tool.ts';
import { LOSS_RESOURCE_URI } from '../reference-bridge/loss/semantic-loss.ts';
import { PROGRESS_META_KEY } from '../reference-bridge/mcp/progress-mapping.ts';
import { BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  CONFORMANCE_MANIFEST,
  CONFORMANCE_VERSION,
  withConformanceEndpoint,
} from './test-support/tasks.ts';

const world = useGatewayFederation({ world: withConformanceEndpoint });

interface TranscriptLine {
  readonly direction: 'sent' | 'received';
  readonly xml: string;
}

let dir: string;
let client: Client;
let stderr = '';
const elicitations: ElicitRequest['params'][] = [];
const outcomes: { progressToken: unknown; outcome: BridgeOutcome | undefined }[] = [];
const outcomeWaiters: (() => void)[] = [];

function transcript(): TranscriptLine[] {
  return readFileSync(join(dir, 'transcript.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TranscriptLine);
}

function script(steps: JsonObject[]): { name: string; arguments: JsonObject } {
  return { name: 'script', arguments: { steps } };
}

beforeAll(async () => {
  const { federation } = world();
  const account = federation.account(BOB);
  dir = mkdtempSync(join(tmpdir(), 'agentconf-mcp-bridge-'));
  const config = join(dir, 'bridge.json');
  writeFileSync(
    config,
    JSON.stringify({
      xmpp: {
        jid: `${BOB}/bridge`,
        password: account.password,
        host: account.c2s.host,
        port: account.c2s.port,
      },
      endpoints: [{ jid: CONFORMANCE }],
    }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      join(REPO_ROOT, 'bin', 'agentconf.js'),
      'mcp-bridge',
      '--config',
      config,
      '--iq-timeout',
      '5',
      '--transcript',
      join(dir, 'transcript.jsonl'),
    ],
    // The caller config carries no CA: the federation's reaches STARTTLS through the environment.
    env: { ...getDefaultEnvironment(), NODE_EXTRA_CA_CERTS: federation.caCertPath },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = new Client(
    { name: 'agentconf-bridge-test', version: '1' },
    { capabilities: { elicitation: {}, experimental: { [TASK_BRIDGE]: TASK_BRIDGE_CAPABILITY } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request.params);
    return { action: 'accept', content: { unit: 'C' } };
  });
  client.fallbackNotificationHandler = (notification) => {
    if (notification.method === OUTCOME_NOTIFICATION) {
      outcomes.push({
        progressToken: notification.params?.['progressToken'],
        outcome: outcomeFromWire(notification.params?.['outcome']),
      });
      for (const wake of outcomeWaiters.splice(0)) wake();
    }
    return Promise.resolve();
  };
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('#mcp-mapping: the reference bridge over stdio', () => {
  it('lists the pinned tools with the manifest members kept and absent ones absent', async () => {
    const { tools, nextCursor } = await client.listTools();
    expect(nextCursor, stderr).toBeUndefined();
    const manifestTools = (CONFORMANCE_MANIFEST.value as { tools: JsonObject[] }).tools;
    expect(tools.map((tool) => tool.name).toSorted()).toEqual(
      manifestTools.map((tool) => tool['name']).toSorted(),
    );
    for (const manifestTool of manifestTools) {
      const tool = tools.find((listed) => listed.name === manifestTool['name']);
      expect(tool?._meta?.[TARGET_META_KEY]).toEqual({
        jid: CONFORMANCE,
        version: CONFORMANCE_VERSION,
        tool: manifestTool['name'],
      });
      for (const member of ['inputSchema', 'outputSchema', 'annotations', 'execution', 'title'] as const) {
        expect(tool?.[member], `${JSON.stringify(manifestTool['name'])}.${member}`).toEqual(
          manifestTool[member],
        );
        expect(tool !== undefined && Object.hasOwn(tool, member)).toBe(Object.hasOwn(manifestTool, member));
      }
    }
    // No MCP Tasks claim while losses remain (#use-case-mcp-bridge).
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    const loss = await client.readResource({ uri: LOSS_RESOURCE_URI });
    const [content] = loss.contents;
    const table = JSON.parse(content !== undefined && 'text' in content ? content.text : '{}') as {
      transparentMcpTasks: boolean;
    };
    expect(table.transparentMcpTasks).toBe(false);
  });

  it('answers a completed task with its result object exactly, isError=true included', async () => {
    const plain = await client.callTool(
      script([{ complete: { content: [{ type: 'text', text: 'done' }] } }]),
    );
    expect(plain).toEqual({ content: [{ type: 'text', text: 'done' }] });
    const whole = await client.callTool(
      script([
        {
          complete: {
            content: [{ type: 'text', text: 'no luck' }],
            structuredContent: { why: 'rain' },
            isError: true,
            _meta: { 'org.example/trace': 'x1' },
            summary: 'dropped: no CallToolResult member',
          },
        },
      ]),
    );
    expect(whole).toEqual({
      content: [{ type: 'text', text: 'no luck' }],
      structuredContent: { why: 'rain' },
      isError: true,
      _meta: { 'org.example/trace': 'x1' },
    });
  });

  it('reports a failed task as a JSON-RPC error carrying the failure, never as isError', async () => {
    const failure = { code: 'org.example:quota', message: 'Quota exceeded.', retryable: false };
    await expect(client.callTool(script([{ fail: failure }]))).rejects.toMatchObject({
      message: expect.stringContaining('Quota exceeded.') as unknown,
      data: { [TASK_BRIDGE]: { failed: failure } },
    });
  });

  it('turns progress events into progress notifications with the exact payload in _meta', async () => {
    const seen: Progress[] = [];
    const result = await client.callTool(
      // The wait keeps the gateway from coalescing the update into the completion (#security).
      script([
        { progress: { percent: 40, stage: 'fetch', message: 'half way' } },
        { wait: { ms: 300 } },
        { complete: {} },
      ]),
      CallToolResultSchema,
      { onprogress: (progress) => seen.push(progress) },
    );
    expect(result).toEqual({ content: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ message: '40% fetch: half way' });
    expect(seen[0]?.progress).toBeGreaterThan(0);
    expect((seen[0] as { _meta?: unknown } | undefined)?._meta).toMatchObject({
      [PROGRESS_META_KEY]: { payload: { percent: 40, stage: 'fetch', message: 'half way' } },
    });
  });

  it('asks the MCP client for input by elicitation and gives the answer to the task', async () => {
    const inputSchema = {
      type: 'object',
      properties: { unit: { type: 'string', enum: ['C', 'F'] } },
      required: ['unit'],
    };
    const result = await client.callTool(
      script([{ input: { question: 'Which unit?', inputSchema } }, { complete: { echoInputs: true } }]),
    );
    expect(result).toEqual({ content: [], structuredContent: { inputs: [{ unit: 'C' }] } });
    expect(elicitations.at(-1)).toMatchObject({ message: 'Which unit?', requestedSchema: inputSchema });
  });

  it('cancels through XMPP and reports the outcome only once the task settled', async () => {
    const controller = new AbortController();
    const settled = new Promise<void>((resolve) => outcomeWaiters.push(resolve));
    const call = client.callTool(
      script([{ progress: { stage: 'waiting' } }, { wait: {} }, { complete: {} }]),
      CallToolResultSchema,
      {
        signal: controller.signal,
        onprogress: () => {
          controller.abort('the user gave up');
        },
      },
    );
    await expect(call).rejects.toThrow();
    await settled;
    const last = outcomes.at(-1);
    expect(last?.outcome?.kind).toBe('cancelled');
    const lines = transcript();
    const cancelSent = lines.findIndex((line) => line.direction === 'sent' && line.xml.includes('<cancel '));
    const cancelledEvent = lines.findIndex(
      (line) => line.direction === 'received' && /<event [^>]*type="cancelled"/.test(line.xml),
    );
    expect(cancelSent).toBeGreaterThan(-1);
    expect(cancelledEvent).toBeGreaterThan(cancelSent);
    expect(stderr).toMatch(/cancellation accepted \(advisory until the task settles\)/);
    expect(stderr).toMatch(/settled cancelled after the MCP client cancelled the call/);
  });

  it('sent every task command and recovery query to the bare JID, with a fresh request ID per call', () => {
    const sent = transcript().filter((line) => line.direction === 'sent');
    const commands = sent.filter((line) =>
      /<(invoke|cancel|provide-input|task-state-request|task-result-request) /.test(line.xml),
    );
    expect(commands.length).toBeGreaterThanOrEqual(6);
    for (const command of commands) expect(command.xml).toContain(`to="${CONFORMANCE}"`);
    const requestIds = sent
      .map((line) => /<invoke [^>]*request-id="([^"]+)"/.exec(line.xml)?.[1])
      .filter((id): id is string => id !== undefined);
    expect(requestIds).toHaveLength(6);
    expect(new Set(requestIds).size).toBe(requestIds.length);
    for (const id of requestIds) expect(isIdentifier(id)).toBe(true);
  });
});
