/**
 * #invocation, #mcp-mapping: the reference bridge as a declared caller under test. The suite
 * loads fixtures/sut/reference-mcp-bridge.json (and its Streamable HTTP twin), starts the bridge
 * through the caller-under-test harness against the fake target on server B, and drives it as
 * its MCP client: the remote tool found by its `_meta` target key, a call answered <accepted/>
 * then `completed` (the CallToolResult is the result object), and a call whose first <accepted/>
 * the fake target loses, where the bridge's retry must carry the same request ID. The seed of the
 * caller-side cases; the verdicts themselves belong to suites.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startCallerSession, type CallerSession } from '../harness/caller-under-test/index.ts';
import type { RecordedStanza } from '../harness/fake-target/stanza-log.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { loadSutFile, type McpCallerDeclaration } from '../harness/sut/sut-config.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import { FORECAST, WEATHER, WEATHER_WORLD } from './test-support/weather-target.ts';

/** The SUT file's --iq-timeout: how long the bridge waits for <accepted/> before its retry. */
const BRIDGE_IQ_TIMEOUT_MS = 3000;

async function declarationIn(file: string): Promise<McpCallerDeclaration> {
  const sut = await loadSutFile(join(REPO_ROOT, 'fixtures', 'sut', file));
  if (sut.kind !== 'mcp-caller') throw new Error(`${file} declares no MCP caller`);
  return sut.config.caller;
}

function invokeOf(stanza: RecordedStanza): { requestId: string | undefined; xml: string | undefined } {
  const invoke = stanza.element.getChild('invoke', NS_AGENT_TASK);
  return { requestId: invoke?.attrs['request-id'], xml: invoke?.toString() };
}

let federation: Federation;
let dataDir: string;

beforeAll(async () => {
  federation = await nativeProvider.start();
  dataDir = await mkdtemp(join(tmpdir(), 'agentconf-caller-session-'));
}, 300_000);

afterAll(async () => {
  await federation.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['reference-mcp-bridge.json', 'stdio'],
  ['reference-mcp-bridge-http.json', 'Streamable HTTP'],
])('%s: the reference bridge as the caller under test (%s)', (file) => {
  let session: CallerSession | undefined;
  let toolName: string;

  beforeAll(async () => {
    session = await startCallerSession({
      federation,
      declaration: await declarationIn(file),
      world: WEATHER_WORLD,
      dataDir,
    });
  }, 60_000);

  afterAll(async () => {
    await session?.stop();
  });

  function started(): CallerSession {
    if (session === undefined) throw new Error(`the bridge of ${file} did not start`);
    return session;
  }

  it('lists the remote tool under its _meta target, pinned to the active version', async () => {
    const { caller } = started();
    const listing = await caller.driver.listTools();
    const tool = listing.tools.find(
      (listed) => listed.target?.jid === WEATHER && listed.target.tool === FORECAST,
    );
    expect(tool?.target, caller.output()).toEqual({ jid: WEATHER, version: '1.0.0', tool: FORECAST });
    toolName = tool?.name ?? '';
  });

  it('answers a call with the completed result object, once <accepted/> and the event came', async () => {
    const { caller, target, account } = started();
    const invokes = target.stream({ kind: 'invoke', from: account.jid });
    const call = caller.driver.call(toolName, { city: 'Riga' });
    const invoke = await invokes.next(10_000);
    expect(invoke.to).toBe(WEATHER);
    const task = target.taskOf(invoke);
    expect(task.invoke.tool).toBe(FORECAST);
    expect(JSON.parse(task.invoke.argumentsJson) as unknown).toEqual({ city: 'Riga' });
    const result = { content: [{ type: 'text', text: 'sunny' }], structuredContent: { sky: 'clear' } };
    await target.sendEvent(task, { type: 'completed', payload: { result } });
    expect(await call.done).toEqual(result);
  });

  it('retries a lost <accepted/> with the same request ID, and the task it admitted answers', async () => {
    const { caller, target, account } = started();
    const invokes = target.stream({ kind: 'invoke', from: account.jid });
    const lost = target.on({ kind: 'invoke' }, { answer: 'drop' }, 1);
    try {
      const call = caller.driver.call(toolName, { city: 'Oslo' });
      const first = await invokes.next(10_000);
      const retry = await invokes.next(BRIDGE_IQ_TIMEOUT_MS + 10_000);
      expect(lost.used).toBe(1);
      expect(invokeOf(first).requestId).toBeDefined();
      expect(invokeOf(retry).requestId).toBe(invokeOf(first).requestId);
      // Identical, not only the same ID: tool, pins and arguments too (#invocation).
      expect(invokeOf(retry).xml).toBe(invokeOf(first).xml);
      const task = target.taskOf(first);
      expect(target.tasks.filter((known) => known.requestId === task.requestId)).toHaveLength(1);
      const result = { content: [{ type: 'text', text: 'snow' }] };
      await target.sendEvent(task, { type: 'completed', payload: { result } });
      expect(await call.done).toEqual(result);
    } finally {
      lost.remove();
    }
  }, 30_000);
});
