/**
 * The bridge variants (integration/variants/bridge-variants.ts) do what their names say: each is
 * built from its patch, started as the caller under test against the fake target, and driven
 * into the one situation where it differs from the reference bridge, which is shown to differ
 * there. The verdicts on them belong to integration/verdict-proofs-bridge.test.ts; this file
 * proves that a verdict there is about the intended change and not about a bridge that no longer
 * starts or a patch that changed nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { startCallerSession, type CallerSession, type ToolCall } from '../harness/caller-under-test/index.ts';
import type { FakeTask, RecordedStanza } from '../harness/fake-target/index.ts';
import { simpleManifest, type FakeTargetWorld } from '../harness/fake-target/target-world.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { loadSutFile, type McpCallerDeclaration } from '../harness/sut/sut-config.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import {
  BRIDGE_ACCEPTS_CONFLICTING_REVISION,
  BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED,
  BRIDGE_CHAT_FALLBACK,
  BRIDGE_CLAIMS_MCP_TASKS,
  BRIDGE_DROPS_IS_ERROR,
  BRIDGE_INVENTS_ANNOTATION,
  BRIDGE_POLLS,
  BRIDGE_RETRIES_NEW_ID,
  BRIDGE_REVALIDATES_OUTPUT,
  BRIDGE_STRICTER_TIMEOUT,
  buildBridgeVariant,
  type BridgeVariant,
} from './variants/bridge-variants.ts';
import type { BuiltVariant } from './variants/gateway-variants.ts';

const WEATHER = 'weather@target.example';
const FORECAST = 'forecast.get';
/** The SUT file's --iq-timeout, plus room for a loaded machine. */
const RETRY_WAIT_MS = 3000 + 10_000;
const STEP_MS = 10_000;

const WORLD: FakeTargetWorld = {
  endpoints: [
    {
      jid: WEATHER,
      manifests: [
        simpleManifest(WEATHER, '1.0.0', [
          {
            name: FORECAST,
            inputSchema: { type: 'object' },
            outputSchema: {
              type: 'object',
              properties: { celsius: { type: 'number' } },
              required: ['celsius'],
            },
          },
        ]),
      ],
    },
  ],
};

let federation: Federation;
let dataDir: string;

beforeAll(async () => {
  federation = await nativeProvider.start();
  dataDir = await mkdtemp(join(tmpdir(), 'agentconf-bridge-variants-'));
}, 300_000);

afterAll(async () => {
  await federation.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The variant's copy and a caller session on it, for one describe block. */
function useVariantSession(variant: BridgeVariant, timeoutSeconds?: number): () => CallerSession {
  let built: BuiltVariant | undefined;
  let session: CallerSession | undefined;
  beforeAll(async () => {
    built = buildBridgeVariant(variant);
    const sut = await loadSutFile(built.sutFile);
    if (sut.kind !== 'mcp-caller') throw new Error(`${variant.name}: no MCP caller`);
    const declaration: McpCallerDeclaration = sut.config.caller;
    session = await startCallerSession({
      federation,
      declaration,
      world: WORLD,
      dataDir,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    });
  }, 120_000);
  afterAll(async () => {
    await session?.stop();
    built?.remove();
  });
  return () => {
    if (session === undefined) throw new Error(`${variant.name} did not start`);
    return session;
  };
}

async function toolName(session: CallerSession): Promise<string> {
  const tool = await session.caller.driver.remoteTool(WEATHER, FORECAST);
  if (tool === undefined) throw new Error(`the bridge lists no ${FORECAST}\n${session.caller.output()}`);
  return tool.name;
}

/** Starts a call and returns it with the task the fake target admitted for it. */
async function startCall(session: CallerSession, args: JsonObject = {}) {
  const invokes = session.target.stream({ kind: 'invoke', from: session.account.jid });
  const call = session.caller.driver.call(await toolName(session), args);
  const invoke = await invokes.next(STEP_MS);
  return { call, invoke, task: session.target.taskOf(invoke) };
}

function requestIdOf(invoke: RecordedStanza): string | undefined {
  return invoke.element.getChild('invoke', NS_AGENT_TASK)?.attrs['request-id'];
}

/** Resolves once the bridge has read <accepted/>: the progress it forwards shows that. */
async function admitted(session: CallerSession, call: ToolCall, task: FakeTask): Promise<void> {
  await session.target.sendEvent(task, { type: 'progress', payload: { percent: 1 } });
  await vi.waitFor(
    () => {
      expect(call.progress.length).toBeGreaterThan(0);
    },
    { timeout: STEP_MS, interval: 20 },
  );
}

async function complete(session: CallerSession, task: FakeTask, result: JsonObject): Promise<void> {
  await session.target.sendEvent(task, { type: 'completed', payload: { result } });
}

describe(BRIDGE_RETRIES_NEW_ID.name, () => {
  const session = useVariantSession(BRIDGE_RETRIES_NEW_ID);
  it('retries a lost <accepted/> under another request ID', async () => {
    const s = session();
    const invokes = s.target.stream({ kind: 'invoke', from: s.account.jid });
    const lost = s.target.on({ kind: 'invoke' }, { answer: 'drop' }, 1);
    const call = s.caller.driver.call(await toolName(s), {});
    const first = await invokes.next(STEP_MS);
    const retry = await invokes.next(RETRY_WAIT_MS);
    lost.remove();
    expect(requestIdOf(retry)).not.toBe(requestIdOf(first));
    await complete(s, s.target.taskOf(retry), { content: [] });
    await call.done;
  }, 40_000);
});

describe(BRIDGE_ACCEPTS_CONFLICTING_REVISION.name, () => {
  const session = useVariantSession(BRIDGE_ACCEPTS_CONFLICTING_REVISION);
  it('answers with the result of a completed event that conflicts with revision 1', async () => {
    const s = session();
    const { call, task } = await startCall(s);
    await s.target.sendEvent(task, { type: 'progress', payload: { percent: 10 } });
    const conflicting = { content: [{ type: 'text', text: 'conflicting' }] };
    await s.target.sendEvent(task, {
      type: 'completed',
      revision: 1,
      payload: { result: conflicting },
      uncommitted: true,
    });
    await complete(s, task, { content: [{ type: 'text', text: 'real' }] });
    expect(await call.done).toEqual(conflicting);
  }, 30_000);
});

describe(BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED.name, () => {
  const session = useVariantSession(BRIDGE_CANCEL_ACCEPTED_AS_CANCELLED);
  it('ends a call as cancelled on <cancel-accepted/> while the task still runs', async () => {
    const s = session();
    const cancels = s.target.stream({ kind: 'cancel', from: s.account.jid });
    const { call, task } = await startCall(s);
    // The driver declines an unscripted elicitation: the bridge asks the target to cancel.
    await s.target.sendEvent(task, {
      type: 'input_required',
      payload: {
        requestId: 'input-request-0000000000001',
        question: 'Which city?',
        inputSchema: { type: 'object' },
        createdAt: s.target.timestamp(),
      },
    });
    await cancels.next(STEP_MS);
    const error = await call.done.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(task.state).toBe('cancelling');
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(/cancelled the task/);
  }, 30_000);
});

describe(BRIDGE_CHAT_FALLBACK.name, () => {
  const session = useVariantSession(BRIDGE_CHAT_FALLBACK);
  it("answers a call with a chat message's body", async () => {
    const s = session();
    const { call, task } = await startCall(s);
    await admitted(s, call, task);
    await s.target.sendChat(task, 'it is sunny');
    expect(await call.done).toEqual({ content: [{ type: 'text', text: 'it is sunny' }] });
    expect(task.state).toBe('accepted');
  }, 30_000);
});

describe(BRIDGE_DROPS_IS_ERROR.name, () => {
  const session = useVariantSession(BRIDGE_DROPS_IS_ERROR);
  it('answers isError: true without it', async () => {
    const s = session();
    const { call, task } = await startCall(s);
    const result = { content: [{ type: 'text', text: 'no such city' }], isError: true };
    await complete(s, task, result);
    expect(await call.done).toEqual({ content: result.content });
  }, 30_000);
});

describe(BRIDGE_INVENTS_ANNOTATION.name, () => {
  const session = useVariantSession(BRIDGE_INVENTS_ANNOTATION);
  it('lists a tool without annotations with destructiveHint true', async () => {
    const s = session();
    const tool = await s.caller.driver.remoteTool(WEATHER, FORECAST);
    expect(tool?.json['annotations']).toEqual({ destructiveHint: true });
  });
});

describe(BRIDGE_CLAIMS_MCP_TASKS.name, () => {
  const session = useVariantSession(BRIDGE_CLAIMS_MCP_TASKS);
  it('declares the MCP tasks capability for tools/call', () => {
    const capabilities = session().caller.driver.client.getServerCapabilities();
    expect(capabilities?.tasks?.requests?.tools?.call).toEqual({});
  });
});

describe(BRIDGE_STRICTER_TIMEOUT.name, () => {
  const TIMEOUT_SECONDS = 8;
  const session = useVariantSession(BRIDGE_STRICTER_TIMEOUT, TIMEOUT_SECONDS);
  it('gives up on a frozen task after half the configured timeout, sending no cancel', async () => {
    const s = session();
    const started = performance.now();
    const { call } = await startCall(s);
    const error = await call.done.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    const seconds = (performance.now() - started) / 1000;
    expect((error as McpError).code).toBe(-32001);
    // Half of 8 s is 4 s; the full limit would be 8 s.
    expect(seconds).toBeGreaterThanOrEqual(TIMEOUT_SECONDS / 2 - 0.5);
    expect(seconds).toBeLessThan(TIMEOUT_SECONDS);
    expect(s.target.log.all({ kind: 'cancel' })).toEqual([]);
  }, 30_000);
});

describe(BRIDGE_REVALIDATES_OUTPUT.name, () => {
  const session = useVariantSession(BRIDGE_REVALIDATES_OUTPUT);
  it('passes conforming structured output and refuses the rest', async () => {
    const s = session();
    const good = await startCall(s);
    const conforming = { content: [], structuredContent: { celsius: 21 } };
    await complete(s, good.task, conforming);
    expect(await good.call.done).toEqual(conforming);
    const bad = await startCall(s);
    await complete(s, bad.task, { content: [], structuredContent: { celsius: 'warm' } });
    await expect(bad.call.done).rejects.toThrow(/breaks the outputSchema/);
  }, 30_000);
});

describe(BRIDGE_POLLS.name, () => {
  const session = useVariantSession(BRIDGE_POLLS);
  it('forwards progress but learns the result by task-result, not from the event', async () => {
    const s = session();
    const results = s.target.stream({ kind: 'task-result', from: s.account.jid });
    const { call, task } = await startCall(s);
    await s.target.sendEvent(task, { type: 'progress', payload: { percent: 50 } });
    const result = { content: [{ type: 'text', text: 'polled' }] };
    await complete(s, task, result);
    await results.next(STEP_MS);
    expect(await call.done).toEqual(result);
    expect(call.progress).toHaveLength(1);
  }, 30_000);
});

describe('the reference bridge, same situations', () => {
  const session = useVariantSession({ name: 'reference-bridge-control', change: 'none', patches: [] });
  it('keeps isError, ignores the chat and the conflicting event, lists no annotation', async () => {
    const s = session();
    expect((await s.caller.driver.remoteTool(WEATHER, FORECAST))?.json['annotations']).toBeUndefined();
    expect(s.caller.driver.client.getServerCapabilities()?.tasks).toBeUndefined();
    const { call, task } = await startCall(s);
    await admitted(s, call, task);
    await s.target.sendChat(task, 'it is sunny');
    await s.target.sendEvent(task, {
      type: 'completed',
      revision: 1,
      payload: { result: { content: [] } },
      uncommitted: true,
    });
    const result = { content: [{ type: 'text', text: 'no such city' }], isError: true };
    await complete(s, task, result);
    expect(await call.done).toEqual(result);
  }, 30_000);
});
