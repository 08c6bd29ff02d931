// Crash safety over the wire (issue 5, item 9; spec-positions section I): the gateway runs as
// its own process (`agentconf gateway --config FILE` under ManagedProcess), is killed with
// SIGKILL and started again on the same database. Every accepted task is still answerable, a
// task interrupted while running settles failed with a retryable code (its event reaches the
// caller after the restart), a replay of the same request returns the same task, and the
// ledger proves from outside that nothing ran twice — also when the kill lands while a burst
// of invocations is still in flight.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver, type Caller, type Driver } from '../harness/driver/index.ts';
import { transcriptPerTest } from '../harness/driver/test-support/vitest-transcripts.ts';
import { ManagedProcess } from '../harness/faults/managed-process.ts';
import { nativeProvider } from '../harness/federation/native-provider.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import { isJsonObject } from '../protocol/json/json-value.ts';
import { parseStrictJson } from '../protocol/json/strict-json.ts';
import { REPO_ROOT } from '../protocol/test-support/shared-paths.ts';
import { isTerminal } from '../protocol/task-states.ts';
import { buildInvoke, parseAccepted, type Accepted } from '../protocol/stanza/index.ts';
import { REFERENCE_WORLD } from '../reference-gateway/registration/test-support/manifests.ts';
import { ALICE, BOB } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  EVENT_TIMEOUT_MS,
  checkedEvent,
  invokeAccepted,
  invokeOf,
  ledgerKey,
  nextEvents,
  readCounter,
  taskState,
  withConformanceEndpoint,
} from './test-support/tasks.ts';

const TERMINAL_EVENTS: readonly string[] = ['completed', 'failed', 'cancelled'];

let federation: Federation;
let driver: Driver;
let dir: string;
let gateway: ManagedProcess;
let bob: Caller;
let alice: Caller;

/** The conformance endpoint and the reference world's grants (they name it). */
function crashWorld(): object {
  const reference = parseStrictJson(readFileSync(REFERENCE_WORLD));
  const grants = isJsonObject(reference) && Array.isArray(reference['grants']) ? reference['grants'] : [];
  return withConformanceEndpoint({ endpoints: [], grants });
}

async function online(): Promise<void> {
  await gateway.waitForOutput(' online via ', 30_000);
}

beforeAll(async () => {
  federation = await nativeProvider.start({
    accounts: [
      { username: 'bob', domain: 'server.example' },
      { username: 'alice', domain: 'example.com' },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'agentconf-crash-'));
  const { host, port, domain, secret } = federation.component;
  writeFileSync(join(dir, 'world.json'), JSON.stringify(crashWorld()));
  const config = join(dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      component: { domain, host, port, secret },
      database: 'gateway.sqlite',
      world: 'world.json',
      localDomains: ['server.example'],
      reconnect: { initialDelaySeconds: 0.05, maxDelaySeconds: 0.5 },
    }),
  );
  gateway = await ManagedProcess.start({
    name: 'reference gateway',
    command: process.execPath,
    args: ['bin/agentconf.js', 'gateway', '--config', config],
    cwd: REPO_ROOT,
  });
  await online();
  driver = createDriver(federation, { timeoutMs: EVENT_TIMEOUT_MS });
  bob = await driver.connect(BOB, 'test');
  alice = await driver.connect(ALICE, 'test');
}, 120_000);

afterAll(async () => {
  try {
    await driver.closeAll();
    await gateway.stop();
  } finally {
    await federation.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

transcriptPerTest(() => driver);

/** SIGKILL, then the same command on the same database; resolves once it is online again. */
async function killAndRestart(): Promise<void> {
  const status = await gateway.kill9();
  expect(status.signal).toBe('SIGKILL');
  await gateway.restart();
  await online();
}

describe('crash safety (#invocation, #task-recovery; spec-positions section I)', () => {
  it('keeps running tasks answerable after kill -9: they settle failed (retryable), replays return them, nothing ran twice', async () => {
    const tasks: { caller: Caller; invoke: ReturnType<typeof invokeOf>; accepted: Accepted; key: string }[] =
      [];
    for (const caller of [bob, alice]) {
      const key = ledgerKey('crash');
      // The ledger is incremented before the first step, so progress proves it was counted.
      const invoke = invokeOf({ ledgerKey: key, steps: [{ progress: { percent: 10 } }, { wait: {} }] });
      const accepted = await invokeAccepted(caller, invoke);
      expect((await nextEvents(caller, accepted.taskId, 2, 1)).kinds).toEqual(['status:running', 'progress']);
      tasks.push({ caller, invoke, accepted, key });
    }
    await killAndRestart();
    for (const { caller, invoke, accepted, key } of tasks) {
      // Crash recovery settles the task before the gateway goes online; the event follows.
      const failed = checkedEvent(await caller.events.next(accepted.taskId));
      expect(failed.event.revision).toBe(3);
      expect(failed.payload).toEqual({
        error: {
          code: 'org.agentconf.gateway:execution-interrupted',
          message: 'The gateway restarted while the tool was running; the outcome is unknown.',
          retryable: true,
        },
      });
      const replay = await invokeAccepted(caller, invoke);
      expect({ ...replay, created: replay.created.text, retainUntil: replay.retainUntil.text }).toEqual({
        ...accepted,
        created: accepted.created.text,
        retainUntil: accepted.retainUntil.text,
      });
      const state = await taskState(caller, accepted.taskId);
      expect({ state: state.state, revision: state.revision }).toEqual({ state: 'failed', revision: 3 });
      expect(await readCounter(caller, key)).toBe(1);
    }
  }, 120_000);

  it('admits each request of a burst killed mid-flight at most once: accepted ones survive, replays never run twice', async () => {
    const burst = Array.from({ length: 16 }, (_, index) => {
      const key = ledgerKey(`burst-${String(index)}`);
      return { key, invoke: invokeOf({ ledgerKey: key, steps: [{ wait: { ms: 50 } }, { complete: {} }] }) };
    });
    const before = new Map<string, string>();
    const sent = burst.map(({ invoke }) =>
      // A short deadline: requests the killed gateway never answers are simply lost.
      bob.exchangeIq(CONFORMANCE, 'set', buildInvoke(invoke), { timeoutMs: 3000 }).then(
        (exchange) => {
          if (exchange.parsed.type === 'result' && exchange.parsed.payload !== undefined) {
            before.set(invoke.requestId, parseAccepted(exchange.parsed.payload).taskId);
          }
        },
        () => undefined,
      ),
    );
    // Killed as soon as the first <accepted/> is back: the rest are anywhere on their way.
    await Promise.race(sent);
    await killAndRestart();
    await Promise.allSettled(sent);
    console.log(`burst: ${String(before.size)} of ${String(burst.length)} accepted before the kill`);
    for (const { key, invoke } of burst) {
      const replay = await invokeAccepted(bob, invoke);
      const earlier = before.get(invoke.requestId);
      if (earlier !== undefined) expect(replay.taskId).toBe(earlier);
      const terminal = await bob.events.waitFor(
        replay.taskId,
        (event) => event.valid && TERMINAL_EVENTS.includes(event.event.type),
      );
      const settled = checkedEvent(terminal);
      expect(['completed', 'failed']).toContain(settled.event.type);
      const count = await readCounter(bob, key);
      // Interrupted after its ledger increment: 1; interrupted before it: 0; completed: 1.
      expect(count).toBeLessThanOrEqual(1);
      if (settled.event.type === 'completed') expect(count).toBe(1);
      expect(isTerminal((await taskState(bob, replay.taskId)).state)).toBe(true);
    }
  }, 120_000);
});
