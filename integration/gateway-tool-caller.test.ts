/**
 * The gateway-tool interface of a caller under test (suites/caller/framework/
 * gateway-caller-under-test.ts) against a stand-in gateway: the harness fake target serves the
 * declared call-out tool and the test plays the gateway's side of the contract (docs/caller.md,
 * "A gateway whose own agents call out"). Proves what the suite sends and how it reads the
 * reply: the call's input object, the conformance task's completion mapped to `{state, taskId,
 * result}`, a failure as an error, cancellation as a <cancel/> of the conformance task, and a
 * relayed input request answered with <provide-input/> only when the tool advertises input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Transcript } from '../harness/driver/index.ts';
import { startFakeTarget, type FakeTarget } from '../harness/fake-target/fake-target.ts';
import type { RecordedStanza } from '../harness/fake-target/stanza-log.ts';
import { simpleManifest, type FakeTargetWorld } from '../harness/fake-target/target-world.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import { parseInvoke, type Invoke } from '../protocol/stanza/index.ts';
import { SeededRandom } from '../suites/framework/seeded-random.ts';
import {
  startGatewayCaller,
  type GatewayCallerUnderTest,
} from '../suites/caller/framework/gateway-caller-under-test.ts';

const GATEWAY = 'callout@target.example';
const CALL_OUT = 'conformance.call-out';
const WAIT_MS = 10_000;

function world(supportsInput: boolean): FakeTargetWorld {
  return {
    endpoints: [
      {
        jid: GATEWAY,
        manifests: [
          simpleManifest(GATEWAY, '1.0.0', [
            { name: CALL_OUT, 'urn:xmpp:agent-api:0': { supportsInput, supportsCancellation: true } },
          ]),
        ],
      },
    ],
  };
}

let federation: Federation;

function invokeIn(stanza: RecordedStanza): Invoke {
  const payload = stanza.element.getChild('invoke', NS_AGENT_TASK);
  if (payload === undefined) throw new Error(`not an invoke: ${stanza.xml}`);
  return parseInvoke(payload);
}

beforeAll(async () => {
  federation = await nativeProvider.start();
}, 300_000);

afterAll(async () => {
  await federation.stop();
});

async function standIn(supportsInput: boolean): Promise<{
  gateway: FakeTarget;
  caller: GatewayCallerUnderTest;
  transcript: Transcript;
}> {
  const link = federation.targetComponent;
  if (link === undefined) throw new Error('no target component');
  const gateway = await startFakeTarget({ link, world: world(supportsInput) });
  const transcript = new Transcript('gateway-tool');
  const caller = await startGatewayCaller({
    federation,
    declaration: { kind: 'gateway-tool', endpoint: GATEWAY, tool: CALL_OUT },
    transcript,
    random: new SeededRandom(7),
    replyMs: WAIT_MS,
    outcomeMs: WAIT_MS,
    pins: { 'weather@target.example': '2.0.0' },
    timeoutSeconds: 4,
  });
  return { gateway, caller, transcript };
}

describe('the gateway-tool caller interface', () => {
  it('sends the documented input, reads completion as {state, taskId, result} and failure as an error', async () => {
    const { gateway, caller, transcript } = await standIn(false);
    try {
      const invokes = gateway.stream({ kind: 'invoke' });
      const call = await caller.call({
        jid: 'weather@target.example',
        tool: 'forecast.get',
        arguments: { city: 'Oslo' },
      });
      const invoke = await invokes.next(WAIT_MS);
      const sent = invokeIn(invoke);
      expect(sent.tool).toBe(CALL_OUT);
      expect(parseStrictJson(sent.argumentsJson)).toEqual({
        target: 'weather@target.example',
        tool: 'forecast.get',
        version: '2.0.0',
        arguments: { city: 'Oslo' },
        timeoutSeconds: 4,
      });
      const report = { state: 'completed', taskId: 'remote-1', result: { result: { content: [] } } };
      await gateway.sendEvent(gateway.taskOf(invoke), {
        type: 'completed',
        payload: { result: { content: [], structuredContent: report } },
      });
      await expect(call.done).resolves.toEqual(report);
      expect(transcript.toText()).toContain('caller interface: gateway-tool');

      const failing = await caller.call({
        jid: 'gone@target.example',
        tool: 't',
        arguments: {},
        version: '1.0.0',
        timeoutSeconds: 1,
      });
      const second = await invokes.next(WAIT_MS);
      expect(parseStrictJson(invokeIn(second).argumentsJson)).toMatchObject({
        version: '1.0.0',
        timeoutSeconds: 1,
      });
      await gateway.sendEvent(gateway.taskOf(second), {
        type: 'failed',
        payload: { code: 'unavailable', message: 'could not call', retryable: false },
      });
      await expect(failing.done).rejects.toThrow(/failed.*unavailable/);
      expect(await caller.relaysInput()).toBe(false);
    } finally {
      await caller.close();
      await gateway.stop();
    }
  }, 60_000);

  it('ends the wait of a call left open when the suite closes its connection, and starves no timer', async () => {
    // A case that ends before its conformance task settles closes the suite's connection: the
    // call's wait for the terminal event must end then, not poll the closed connection until the
    // outcome deadline (it once spun on rejected promises, holding back every timer meanwhile).
    const { gateway, caller } = await standIn(false);
    try {
      const invokes = gateway.stream({ kind: 'invoke' });
      const call = await caller.call({ jid: 'weather@target.example', tool: 'forecast.get', arguments: {} });
      await invokes.next(WAIT_MS);
      const closedAt = performance.now();
      await caller.close();
      const timerLateMs = await new Promise<number>((resolve) => {
        const armedAt = performance.now();
        setTimeout(() => {
          resolve(performance.now() - armedAt - 50);
        }, 50);
      });
      await expect(call.done).rejects.toThrow(/connection to the gateway ended/);
      expect(performance.now() - closedAt).toBeLessThan(WAIT_MS / 2);
      expect(timerLateMs).toBeLessThan(WAIT_MS / 2);
    } finally {
      await caller.close();
      await gateway.stop();
    }
  }, 60_000);

  it('cancels the conformance task, and answers a relayed input request when the tool advertises input', async () => {
    const { gateway, caller } = await standIn(true);
    try {
      const invokes = gateway.stream({ kind: 'invoke' });
      const cancels = gateway.stream({ kind: 'cancel' });
      const call = await caller.call({ jid: 'weather@target.example', tool: 'forecast.get', arguments: {} });
      const task = gateway.taskOf(await invokes.next(WAIT_MS));
      call.cancel('judge cancels');
      const cancel = await cancels.next(WAIT_MS);
      expect(cancel.xml).toContain(task.taskId);
      await gateway.sendEvent(task, { type: 'cancelled', payload: {} });
      await expect(call.done).rejects.toThrow(/cancelled/);

      expect(await caller.relaysInput()).toBe(true);
      const asking = await caller.call({
        jid: 'weather@target.example',
        tool: 'forecast.get',
        arguments: {},
      });
      const asked = gateway.taskOf(await invokes.next(WAIT_MS));
      const inputs = gateway.stream({ kind: 'provide-input' });
      await gateway.sendEvent(asked, {
        type: 'input_required',
        payload: {
          requestId: 'ask-request-identifier-0001',
          question: 'Which unit?',
          inputSchema: { type: 'object' },
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
      });
      const relayed = await asking.nextInput(WAIT_MS);
      expect(relayed.json).toContain('Which unit?');
      const answering = relayed.answer({ unit: 'C' });
      const provided = await inputs.next(WAIT_MS);
      expect(provided.xml).toContain('ask-request-identifier-0001');
      await answering.catch(() => undefined);
    } finally {
      await caller.close();
      await gateway.stop();
    }
  }, 60_000);
});
