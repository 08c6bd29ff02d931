// The fake target against a real federation: alice@example.com (server A, @xmpp/client through
// the test driver) calls endpoints of target.example (a component on server B) across s2s.
// Every scripted behaviour is checked on the caller's side of the wire, and what the fake target
// records is checked against what the caller sent.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { xml, type Element } from '@xmpp/xml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { validateEventPayload } from '../../protocol/events/index.ts';
import { FEATURE, FORM_TYPE, NS } from '../../protocol/namespaces.ts';
import {
  buildCancel,
  buildDiscoInfoRequest,
  buildDiscoItemsRequest,
  buildInvoke,
  buildManifestRequest,
  buildSchemaRequest,
  buildTaskResultRequest,
  buildTaskStateRequest,
  extensionForms,
  fieldOf,
  parseAccepted,
  parseCancelAccepted,
  parseDiscoInfo,
  parseDiscoItems,
  parseInvoke,
  parseManifest,
  parseSchema,
  parseTaskResult,
  parseTaskState,
  type Hash,
} from '../../protocol/stanza/index.ts';
import { encodeCollectionNode, encodeToolNode } from '../../protocol/tool-node.ts';
import type { Caller } from '../driver/caller.ts';
import { createDriver, type Driver } from '../driver/driver.ts';
import { IqTimeout, StanzaErrorReply } from '../driver/errors.ts';
import { transcriptPerTest } from '../driver/test-support/vitest-transcripts.ts';
import { nativeProvider } from '../federation/native-provider.ts';
import type { Federation } from '../federation/server-provider.ts';
import { startTsProcess } from '../federation/test-support/run-ts-process.ts';
import { callerConfigFor, writeCallerConfig } from '../caller-under-test/caller-config-file.ts';
import { completedPayloadOfSize } from './event-payloads.ts';
import { DEFAULT_LATE_RETRY, FakeTarget, startFakeTarget, type RuleHandle } from './fake-target.ts';
import { StanzaWaitTimeout } from './stanza-log.ts';
import { simpleManifest, type FakeTargetWorld } from './target-world.ts';

const WEATHER = 'weather@target.example';
const STARTTLS_LOGIN = new URL('../caller-under-test/test-support/starttls-login-main.ts', import.meta.url);
const TOOL = 'forecast.get';
const INPUT_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const OUTPUT_SCHEMA = { type: 'object', properties: { temperature: { type: 'number' } } };

const V1 = simpleManifest(WEATHER, '1.0.0', [{ name: TOOL, inputSchema: INPUT_SCHEMA }]);
const V2 = simpleManifest(WEATHER, '2.0.0', [
  {
    name: TOOL,
    title: 'Get Forecast',
    inputSchema: INPUT_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
    annotations: { readOnlyHint: true },
    'urn:xmpp:agent-api:0': { supportsCancellation: true },
  },
  { name: 'alerts.list', inputSchema: { type: 'object' } },
]);
const V2_HASH: Hash = canonicalDocument(V2).hash;

const WEATHER_ENDPOINT = { jid: WEATHER, manifests: [V1, V2], active: '2.0.0', replaySeconds: 600 };
const WORLD: FakeTargetWorld = { endpoints: [WEATHER_ENDPOINT] };

function invoke(requestId: string, args: string, hash: Hash = V2_HASH): Element {
  return buildInvoke({ requestId, tool: TOOL, apiVersion: '2.0.0', manifestHash: hash, argumentsJson: args });
}

function formValue(
  info: ReturnType<typeof parseDiscoInfo>,
  formType: string,
  name: string,
): string | undefined {
  const [form] = extensionForms(info, formType);
  return form === undefined ? undefined : fieldOf(form.fields, name)?.values.join('\n');
}

describe('fake target', () => {
  let federation: Federation;
  let target: FakeTarget;
  let driver: Driver;
  let alice: Caller;
  const rules: RuleHandle[] = [];

  beforeAll(async () => {
    federation = await nativeProvider.start();
    const link = federation.targetComponent;
    if (link === undefined) throw new Error('the native federation has a target component');
    target = await startFakeTarget({ link, world: WORLD });
    driver = createDriver(federation, { timeoutMs: 5000 });
    alice = await driver.connect('alice@example.com', 'laptop');
  }, 300_000);

  afterAll(async () => {
    await driver.closeAll();
    await target.stop();
    await federation.stop();
  });

  afterEach(() => {
    for (const rule of rules.splice(0)) rule.remove();
    target.setWorld(WORLD);
  });

  transcriptPerTest(() => driver);

  /** An IQ whose result must carry a payload. */
  async function ask(to: string, type: 'get' | 'set', payload: Element): Promise<Element> {
    const result = await alice.iq(to, type, payload);
    if (result === undefined) throw new Error(`an empty result from ${to}`);
    return result;
  }

  it('serves endpoint info whose manifest hash is the sha-256 of the manifest it serves, across s2s', async () => {
    const info = parseDiscoInfo(await ask(WEATHER, 'get', buildDiscoInfoRequest({})));
    expect(info.identities).toEqual([
      expect.objectContaining({ category: 'automation', type: 'agent-endpoint' }),
    ]);
    expect(info.features).toEqual(
      expect.arrayContaining([FEATURE.endpoint, FEATURE.task, FEATURE.taskCancel]),
    );
    expect(formValue(info, FORM_TYPE.endpointInfo, 'version')).toBe('2.0.0');
    expect(formValue(info, FORM_TYPE.endpointInfo, 'request_replay_seconds')).toBe('600');

    const manifest = parseManifest(await ask(WEATHER, 'get', buildManifestRequest({})));
    expect(manifest.version).toBe('2.0.0');
    expect(manifest.hash).toEqual(V2_HASH);
    expect(canonicalDocument(JSON.parse(manifest.json) as JsonValue).hash).toEqual(V2_HASH);
    expect(formValue(info, FORM_TYPE.endpointInfo, 'manifest_hash_value')).toBe(V2_HASH.value);
    // A recorded version stays addressable by exact value.
    const old = parseManifest(await ask(WEATHER, 'get', buildManifestRequest({ version: '1.0.0' })));
    expect(old.hash).toEqual(canonicalDocument(V1).hash);
  });

  it('lists the pinned tools and serves their info and hash-checked schemas', async () => {
    const collection = encodeCollectionNode('2.0.0');
    const items = parseDiscoItems(await ask(WEATHER, 'get', buildDiscoItemsRequest({ node: collection })));
    // UTF-8 order: alerts.list before forecast.get.
    expect(items.items.map((item) => item.node)).toEqual([
      encodeToolNode('2.0.0', 'alerts.list'),
      encodeToolNode('2.0.0', TOOL),
    ]);
    const toolNode = encodeToolNode('2.0.0', TOOL);
    const toolInfo = parseDiscoInfo(await ask(WEATHER, 'get', buildDiscoInfoRequest({ node: toolNode })));
    expect(toolInfo.features).toEqual([NS.discoInfo, FEATURE.tool, FEATURE.taskCancel]);
    expect(formValue(toolInfo, FORM_TYPE.toolInfo, 'read_only')).toBe('1');
    // An absent annotation stays absent.
    expect(formValue(toolInfo, FORM_TYPE.toolInfo, 'destructive')).toBeUndefined();
    expect(formValue(toolInfo, FORM_TYPE.toolInfo, 'output_schema_hash_value')).toBe(
      canonicalDocument(OUTPUT_SCHEMA).hash.value,
    );

    const request = { tool: TOOL, version: '2.0.0', direction: 'output' as const, manifestHash: V2_HASH };
    const schema = parseSchema(await ask(WEATHER, 'get', buildSchemaRequest(request)));
    expect(schema.schemaHash).toEqual(canonicalDocument(OUTPUT_SCHEMA).hash);
    expect(schema.json).toBe(canonicalDocument(OUTPUT_SCHEMA).bytes.toString('utf8'));
    const stale = { ...request, manifestHash: canonicalDocument(V1).hash };
    await expect(alice.iq(WEATHER, 'get', buildSchemaRequest(stale))).rejects.toMatchObject({
      error: { condition: 'conflict' },
    });
  });

  it('withholds and adds features as the world says, and answers a scripted error once', async () => {
    target.setWorld({
      endpoints: [
        { ...WEATHER_ENDPOINT, features: { withhold: [FEATURE.taskCancel], add: ['urn:example:x'] } },
      ],
      gatewayFeatures: { withhold: [FEATURE.directory] },
    });
    const info = parseDiscoInfo(await ask(WEATHER, 'get', buildDiscoInfoRequest({})));
    expect(info.features).not.toContain(FEATURE.taskCancel);
    expect(info.features).toContain('urn:example:x');
    const domain = parseDiscoInfo(await ask('target.example', 'get', buildDiscoInfoRequest({})));
    expect(domain.features).not.toContain(FEATURE.directory);

    rules.push(
      target.on(
        { kind: 'manifest' },
        { answer: 'error', error: { type: 'wait', condition: 'resource-constraint' } },
        1,
      ),
    );
    const refused = await alice.iq(WEATHER, 'get', buildManifestRequest({})).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StanzaErrorReply);
    expect((refused as StanzaErrorReply).error).toMatchObject({
      type: 'wait',
      condition: 'resource-constraint',
    });
    // Once only: the next request gets the world's answer.
    expect(parseManifest(await ask(WEATHER, 'get', buildManifestRequest({}))).version).toBe('2.0.0');
    expect(rules[0]?.used).toBe(1);
  });

  it('records every stanza the caller sends, exactly, in an awaitable stream with its own cursor', async () => {
    const invokes = target.stream({ kind: 'invoke', from: 'alice@example.com' });
    const first = invoke(generateIdentifier('req-'), '{"city":"Riga"}');
    const second = invoke(generateIdentifier('req-'), '{"city":"Tartu"}');
    const sentFirst = await alice.exchangeIq(WEATHER, 'set', first);
    const sentSecond = await alice.exchangeIq(WEATHER, 'set', second);
    const one = await invokes.next(1000);
    const two = await invokes.next(1000);
    // The server re-serializes (attribute order), so the record is compared by value.
    expect([one.id, one.from, one.to, one.type]).toEqual([
      sentFirst.id,
      'alice@example.com/laptop',
      WEATHER,
      'set',
    ]);
    expect(parseInvoke(one.element.getChildElements()[0] ?? one.element)).toEqual(parseInvoke(first));
    expect(two.id).toBe(sentSecond.id);
    expect(parseInvoke(two.element.getChildElements()[0] ?? two.element)).toEqual(parseInvoke(second));
    expect(one.element.getChildElements()).toHaveLength(1);
    expect(two.atMs).toBeGreaterThanOrEqual(one.atMs);
    await expect(invokes.next(50)).rejects.toBeInstanceOf(StanzaWaitTimeout);
  });

  it('round-trips to a caller: once it answers, what it sent before is in the log', async () => {
    const messages = target.stream({ kind: 'message', from: 'alice@example.com' });
    // Not awaited: the barrier alone must make the message visible.
    const sent = alice.send(
      xml('message', { to: WEATHER, id: generateIdentifier('m-') }, xml('body', {}, 'hi')),
    );
    expect(await target.roundTrip('alice@example.com/laptop', 5000)).toBe(true);
    const [message] = messages.pending();
    if (message === undefined) throw new Error('the message alice sent before the ping is not in the log');
    expect(target.isBarrierAnswer(message)).toBe(false);
    await sent;
    const answers = target.log
      .all({ kind: 'iq-response' })
      .filter((stanza) => target.isBarrierAnswer(stanza));
    expect(answers.length).toBeGreaterThan(0);
    const stop = new AbortController();
    stop.abort();
    expect(await target.roundTrip('alice@example.com/laptop', 5000, stop.signal)).toBe(false);
  });

  it('replays an identical invoke, refuses a changed one with conflict, and a late retry once expired', async () => {
    const requestId = generateIdentifier('req-');
    const accepted = parseAccepted(await ask(WEATHER, 'set', invoke(requestId, '{"city":"Riga"}')));
    // Insignificant whitespace is not a different fingerprint (canonical arguments).
    const replay = parseAccepted(await ask(WEATHER, 'set', invoke(requestId, '{ "city": "Riga" }')));
    expect(replay).toEqual(accepted);
    await expect(alice.iq(WEATHER, 'set', invoke(requestId, '{"city":"Oslo"}'))).rejects.toMatchObject({
      error: { condition: 'conflict' },
    });
    target.expireReplayWindow([requestId]);
    await expect(alice.iq(WEATHER, 'set', invoke(requestId, '{"city":"Riga"}'))).rejects.toMatchObject({
      error: { condition: 'not-acceptable' },
    });
    expect(target.tasks.filter((task) => task.requestId === requestId)).toHaveLength(1);
    // A target that forgot the request ID may admit it as new work: what makes a late retry unsafe.
    target.setLateRetry({ admitAsNew: true });
    try {
      const again = parseAccepted(await ask(WEATHER, 'set', invoke(requestId, '{"city":"Riga"}')));
      expect(again.taskId).not.toBe(accepted.taskId);
      expect(target.tasks.filter((task) => task.requestId === requestId)).toHaveLength(2);
    } finally {
      target.setLateRetry(DEFAULT_LATE_RETRY);
    }
  });

  it('loses an <accepted/> while admitting the task, so an identical retry returns that task', async () => {
    const requestId = generateIdentifier('req-');
    rules.push(target.on({ kind: 'invoke' }, { answer: 'drop' }, 1));
    await expect(
      alice.iq(WEATHER, 'set', invoke(requestId, '{"city":"Riga"}'), { timeoutMs: 300 }),
    ).rejects.toBeInstanceOf(IqTimeout);
    const [admitted] = target.tasks.filter((task) => task.requestId === requestId);
    expect(admitted).toBeDefined();
    const retried = parseAccepted(await ask(WEATHER, 'set', invoke(requestId, '{"city":"Riga"}')));
    expect(retried.taskId).toBe(admitted?.taskId);
  });

  it('holds an answer until the case releases it', async () => {
    const gate = target.hold({ kind: 'invoke' });
    const invokes = target.stream({ kind: 'invoke' });
    const answered = ask(WEATHER, 'set', invoke(generateIdentifier('req-'), '{"city":"Riga"}'));
    let settled = false;
    void answered.then(() => (settled = true));
    const received = await invokes.next(2000);
    // A ping round trip after the invoke arrived: had the answer gone out, it would be in first.
    await alice.iq('example.com', 'get', xml('ping', { xmlns: NS.ping }));
    expect(settled).toBe(false);
    gate.release();
    const accepted = parseAccepted(await answered);
    expect(target.taskOf(received).taskId).toBe(accepted.taskId);
  });

  it('sends events as scripted: in order, an identical replay, a conflicting revision, a gap, bad JSON, chat', async () => {
    const invokes = target.stream({ kind: 'invoke' });
    const accepted = parseAccepted(
      await ask(WEATHER, 'set', invoke(generateIdentifier('req-'), '{"city":"Riga"}')),
    );
    const task = target.taskOf(await invokes.next(1000));
    const running = await target.sendEvent(task, {
      type: 'status',
      payload: { state: 'running', updatedAt: target.timestamp() },
    });
    const first = await alice.events.next(accepted.taskId);
    expect(first).toMatchObject({
      valid: true,
      event: { revision: 1, type: 'status', eventId: running.event.eventId },
    });

    await target.replayEvent(running);
    const replayed = await alice.events.next(accepted.taskId);
    expect(replayed.stanza.xml).toContain(`event-id='${running.event.eventId}'`);

    await target.sendEvent(task, {
      type: 'progress',
      revision: 1,
      payload: { percent: 10 },
      uncommitted: true,
    });
    expect(await alice.events.next(accepted.taskId)).toMatchObject({
      valid: true,
      event: { revision: 1, type: 'progress' },
    });
    expect(task.revision).toBe(1);

    await target.sendEvent(task, { type: 'progress', revision: 4, payload: { percent: 50 } });
    expect(await alice.events.next(accepted.taskId)).toMatchObject({ event: { revision: 4 } });
    expect(task.revision).toBe(4);

    await target.sendEvent(task, { type: 'progress', json: '{"percent": 60,', uncommitted: true });
    const broken = await alice.events.next(accepted.taskId);
    expect(broken.stanza.xml).toContain('{&quot;percent&quot;: 60,');

    const chat = alice.waitForStanza((stanza) => stanza.type === 'chat');
    await target.sendChat(task, 'Your forecast: sunny');
    expect((await chat).xml).toContain('<body>Your forecast: sunny</body>');
  });

  it('accepts a cancellation, then reports it in an event and in task state; no result until settled', async () => {
    const invokes = target.stream({ kind: 'invoke' });
    const accepted = parseAccepted(
      await ask(WEATHER, 'set', invoke(generateIdentifier('req-'), '{"city":"Riga"}')),
    );
    const task = target.taskOf(await invokes.next(1000));
    const taskId = accepted.taskId;
    await expect(alice.iq(WEATHER, 'get', buildTaskResultRequest({ taskId }))).rejects.toMatchObject({
      error: { condition: 'unexpected-request' },
    });
    const cancel = parseCancelAccepted(
      await ask(WEATHER, 'set', buildCancel({ taskId, expectedRevision: 0 })),
    );
    expect(cancel).toEqual({ taskId, revision: 1 });
    expect(await alice.events.next(taskId)).toMatchObject({
      valid: true,
      event: { revision: 1, type: 'status' },
    });
    const state = parseTaskState(await ask(WEATHER, 'get', buildTaskStateRequest({ taskId })));
    expect(state).toMatchObject({ state: 'cancelling', revision: 1, endpoint: WEATHER, apiVersion: '2.0.0' });

    await target.sendEvent(task, { type: 'cancelled', payload: {} });
    await alice.events.next(taskId);
    const result = parseTaskResult(await ask(WEATHER, 'get', buildTaskResultRequest({ taskId })));
    expect(result).toMatchObject({ state: 'cancelled', revision: 2, json: '{}' });
  });

  it('sends a completed result of at least the size asked for, valid by the event schema', async () => {
    const invokes = target.stream({ kind: 'invoke' });
    const accepted = parseAccepted(
      await ask(WEATHER, 'set', invoke(generateIdentifier('req-'), '{"city":"Riga"}')),
    );
    const task = target.taskOf(await invokes.next(1000));
    const payload = completedPayloadOfSize(70_000);
    expect(validateEventPayload('completed', payload).ok).toBe(true);
    const sent = await target.sendEvent(task, { type: 'completed', payload });
    expect(Buffer.byteLength(sent.event.json)).toBeGreaterThanOrEqual(70_000);
    expect(await alice.events.next(accepted.taskId)).toMatchObject({
      valid: true,
      event: { type: 'completed' },
    });
    expect(task.state).toBe('completed');
  });

  it('is not listed among the services of server.example, where only the gateway is', async () => {
    const services = parseDiscoItems(await ask('server.example', 'get', buildDiscoItemsRequest({})));
    expect(services.items.map((item) => item.jid)).toEqual(['agents.example']);
  });

  it('hands a caller a config it can log in with over STARTTLS and reach the fake target with', async () => {
    const account = await federation.createAccount({ username: 'bridge', domain: federation.domains.remote });
    const dir = await mkdtemp(join(tmpdir(), 'caller-config-'));
    const configPath = join(dir, 'caller.json');
    const config = callerConfigFor({ account, endpoints: [{ jid: WEATHER }] });
    await writeCallerConfig(configPath, config);
    const probes = target.stream({ kind: 'disco-info', from: 'bridge@example.com' });
    const login = await startTsProcess('starttls login', STARTTLS_LOGIN, ['--config', configPath], {
      NODE_EXTRA_CA_CERTS: federation.caCertPath,
    });
    try {
      expect(await login.waitForOutput(/reply \S+ from \S+/, 20_000)).toContain(
        `reply result from ${WEATHER}`,
      );
      expect((await probes.next(1000)).from).toBe('bridge@example.com/starttls-probe');
    } finally {
      await login.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers an unknown endpoint with item-not-found', async () => {
    await expect(alice.iq('nobody@target.example', 'get', buildDiscoInfoRequest({}))).rejects.toMatchObject({
      error: { condition: 'item-not-found' },
    });
  });
});
