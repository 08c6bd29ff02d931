// TaskWiring over a real gateway state (store, world, policy, runtimes): recovery before the
// link, the purge timer, the router's task features, and bounces (#task-message-routing).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { xml, type Element } from '@xmpp/xml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateIdentifier } from '../../protocol/identifiers.ts';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { NS } from '../../protocol/namespaces.ts';
import { parseAccepted, parseLifecycleMessage, type LifecycleMessage } from '../../protocol/stanza/index.ts';
import { loadGatewayConfig } from '../config/gateway-config.ts';
import { openGatewayState, type GatewayState } from '../config/gateway-state.ts';
import { MANIFESTS_DIR, REFERENCE_WORLD } from '../registration/test-support/manifests.ts';
import { requesterOf } from './iq-router.ts';
import { DEFAULT_PURGE_INTERVAL_MS, TaskWiring } from './task-wiring.ts';
import { FakeTiming } from './test-support/fake-timing.ts';

const CONFORMANCE = 'conformance@agents.example';
const HASH = canonicalDocument(
  parseStrictJson(readFileSync(resolve(MANIFESTS_DIR, 'conformance.json'))),
).hash;
const BOB_DESK = 'bob@server.example/desk';

let dir: string;
let state: GatewayState;
let wiring: TaskWiring | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentconf-wiring-'));
  const path = join(dir, 'gateway.json');
  writeFileSync(
    path,
    JSON.stringify({
      component: { domain: 'agents.example', host: '127.0.0.1', port: 5347, secret: 'x' },
      database: 'gateway.sqlite',
      world: REFERENCE_WORLD,
      localDomains: ['server.example'],
    }),
  );
  state = await openGatewayState(loadGatewayConfig(path), Date.now);
});
afterEach(() => {
  wiring?.close();
  wiring = undefined;
  state.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Messages handed to the link, resolved as they arrive. */
class Link {
  /** What the link took. */
  readonly messages: LifecycleMessage[] = [];
  readonly #waiters: { count: number; resolve: () => void }[] = [];
  #attempts = 0;
  online = true;

  readonly send = (stanza: Element): Promise<boolean> => {
    this.#attempts += 1;
    if (this.online) this.messages.push(parseLifecycleMessage(stanza));
    for (const waiter of [...this.#waiters]) {
      if (this.#attempts >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    return Promise.resolve(this.online);
  };

  /** Resolves once `count` sends in all were attempted (taken or refused). */
  until(count: number): Promise<void> {
    if (this.#attempts >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  summary(): string[] {
    return this.messages.map(
      ({ message, event }) => `${event.type}@${String(event.revision)} → ${message.to ?? '?'}`,
    );
  }
}

async function invokeWait(engine: TaskWiring['engine']): Promise<string> {
  const requester = requesterOf(BOB_DESK);
  if (requester === undefined) throw new Error('no requester');
  const outcome = await engine.invoke(requester, CONFORMANCE, {
    requestId: generateIdentifier('req-'),
    tool: 'script',
    apiVersion: '1.0.0',
    manifestHash: HASH,
    argumentsJson: '{"steps":[{"wait":{}}]}',
  });
  if (!outcome.ok) throw new Error(`not accepted: ${outcome.fault.condition}`);
  return parseAccepted(outcome.payload).taskId;
}

function bounce(from: string, id: string): Element {
  return xml(
    'message',
    { from, to: CONFORMANCE, id, type: 'error' },
    xml('error', { type: 'cancel' }, xml('service-unavailable', { xmlns: NS.stanzas })),
  );
}

describe('TaskWiring', () => {
  it('runs the world endpoints on the conformance runtime and advertises task features only there', () => {
    const timing = new FakeTiming();
    wiring = TaskWiring.start(state, timing, () => undefined);
    expect(wiring.executable).toContain(CONFORMANCE);
    expect([...state.runtimes.values()].map((runtime) => runtime.name)).toContain('conformance');
    const routing = wiring.routing({
      gatewayJid: 'agents.example',
      gatewayName: 'x',
      pageMaximum: 10,
      searchEnabled: true,
      gatewayFeatures: { admin: false, selfRegister: false, ping: true },
      taskFeatures: { core: false, progress: false, cancel: false, input: false },
      coldStartSupported: true,
      requestReplaySeconds: 60,
    });
    expect(routing.settings.taskFeatures).toEqual({ core: true, progress: true, cancel: true, input: true });
    expect(routing.executable.has(CONFORMANCE)).toBe(true);
  });

  it('purges at start and on every interval until closed', async () => {
    const timing = new FakeTiming();
    const log: string[] = [];
    wiring = TaskWiring.start(state, timing, (line) => log.push(line), { purgeIntervalMs: 1000 });
    expect(timing.pendingTimers).toBe(1);
    await timing.advance(1000);
    expect(timing.pendingTimers).toBe(1);
    wiring.close();
    expect(timing.pendingTimers).toBe(0);
    expect(DEFAULT_PURGE_INTERVAL_MS).toBeGreaterThan(0);
    expect(log.filter((line) => line.includes('purge failed'))).toEqual([]);
  });

  it('keeps the events of a task until the link takes them, then re-sends them from the store', async () => {
    const link = new Link();
    link.online = false;
    wiring = TaskWiring.start(state, new FakeTiming(), () => undefined);
    wiring.attach(link.send);
    const taskId = await invokeWait(wiring.engine);
    // The running event is committed while the link refuses everything.
    await link.until(1);
    await Promise.resolve();
    expect(state.store.tasks.task(taskId)?.state).toBe('running');
    expect(link.messages).toEqual([]);
    expect(wiring.undelivered).toBe(1);
    link.online = true;
    wiring.online();
    await link.until(2);
    expect(link.summary()).toEqual([`status@1 → ${BOB_DESK}`]);
    expect(wiring.undelivered).toBe(0);
  });

  it('moves a bounced route to the bare JID and re-sends from the bounced event on, once', async () => {
    const link = new Link();
    wiring = TaskWiring.start(state, new FakeTiming(), () => undefined);
    wiring.attach(link.send);
    let rerouted = 0;
    wiring.onRerouted(() => (rerouted += 1));
    const taskId = await invokeWait(wiring.engine);
    await link.until(1);
    // The outbox records a send once the link has answered for it.
    await new Promise((resolve) => setImmediate(resolve));
    const running = link.messages[0];
    if (running === undefined) throw new Error('no running event');

    // A bounce from a bare JID, or of an id we never sent there, re-sends nothing.
    wiring.bounced(bounce('bob@server.example', running.event.eventId));
    wiring.bounced(bounce('bob@server.example/phone', running.event.eventId));
    expect(link.messages).toHaveLength(1);
    expect(state.store.tasks.task(taskId)?.notifyJid).toBe(BOB_DESK);

    wiring.bounced(bounce(BOB_DESK, running.event.eventId));
    await link.until(2);
    expect(link.summary()).toEqual([`status@1 → ${BOB_DESK}`, 'status@1 → bob@server.example']);
    // The very same event: id, revision and payload.
    expect(link.messages[1]?.event).toEqual(running.event);
    expect(state.store.tasks.task(taskId)?.notifyJid).toBe('bob@server.example');
    // The same bounce again (a burst) re-sends nothing more.
    wiring.bounced(bounce(BOB_DESK, running.event.eventId));
    expect(link.messages).toHaveLength(2);
    expect(rerouted).toBe(1);

    // Later events follow the new route.
    const requester = requesterOf('bob@server.example/phone');
    if (requester === undefined) throw new Error('no requester');
    const cancelled = wiring.engine.cancel(requester, CONFORMANCE, { taskId, expectedRevision: 1 });
    expect(cancelled.ok).toBe(true);
    await link.until(4);
    expect(link.summary().slice(2)).toEqual([
      'status@2 → bob@server.example',
      'cancelled@3 → bob@server.example',
    ]);
  });

  it('refuses task mutations once closed and commits nothing for running tools', async () => {
    const link = new Link();
    wiring = TaskWiring.start(state, new FakeTiming(), () => undefined);
    wiring.attach(link.send);
    const taskId = await invokeWait(wiring.engine);
    await link.until(1);
    wiring.close();
    const requester = requesterOf(BOB_DESK);
    if (requester === undefined) throw new Error('no requester');
    expect(wiring.engine.cancel(requester, CONFORMANCE, { taskId, expectedRevision: 1 })).toEqual({
      ok: false,
      fault: { condition: 'service-unavailable', type: 'cancel' },
    });
    // The tool was told to stop; the store keeps the running state for the next start's recovery.
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.store.tasks.task(taskId)?.state).toBe('running');
    expect(link.messages).toHaveLength(1);
  });
});
