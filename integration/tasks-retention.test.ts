// Retention and purge over the wire (issue 5, item 8; #invocation retain-until and replay
// records, #task-recovery, #manifest-retrieval, interp-29): with the config's `tasks`
// member set short, a completed task answers task-state and task-result until its retain-until;
// once that has passed and the gateway's own periodic purge ran, both answer exactly what a task
// ID that never existed gets; the replay record outlived the replay window while the task was
// retained, and once both are gone the same request is admitted as new work (the spec allows
// it); and a version whose only retained task was purged can be removed.
//
// The black-box suite case task-recovery.expired-like-nonexistent needs exactly such a gateway,
// so it runs here too (`agentconf run` gives the reference gateway 0.25 s of retention through
// fixtures/sut/reference-gateway.json for the same reason).
//
// The gateway's purge timer and real time drive everything: the test waits for the gateway's
// own "purged" log line (with a deadline) and then asks over the wire, never sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IqExchange } from '../harness/driver/index.ts';
import { toEpochMillis } from '../protocol/datetime.ts';
import { generateIdentifier } from '../protocol/identifiers.ts';
import {
  buildTaskResultRequest,
  buildTaskStateRequest,
  parseRemoved,
  type Invoke,
} from '../protocol/stanza/index.ts';
import { GatewayComponent } from '../reference-gateway/component/gateway-component.ts';
import { openGatewayState, type GatewayState } from '../reference-gateway/config/gateway-state.ts';
import { provisioningOf } from './test-support/admin.ts';
import type { CaseContext } from '../suites/framework/context.ts';
import { freshSeed } from '../suites/framework/seeded-random.ts';
import { taskRecoverySuite } from '../suites/sections/task-recovery/index.ts';
import { ALICE, BOB, useGatewayFederation } from './test-support/gateway-federation.ts';
import { localCaseContext } from './test-support/suite-case-context.ts';
import {
  CONFORMANCE,
  CONFORMANCE_HASH,
  CONFORMANCE_NEXT_HASH,
  CONFORMANCE_NEXT_VERSION,
  CONFORMANCE_VERSION,
  EVENT_TIMEOUT_MS,
  eventsUntilTerminal,
  expectResultMatches,
  invokeAccepted,
  invokeOf,
  ledgerKey,
  readCounter,
  sendCancel,
  sendInvoke,
  taskResult,
  taskState,
  withConformanceEndpoint,
} from './test-support/tasks.ts';
import { expectIdenticalErrors, expectStanzaError, resultPayload } from './test-support/wire.ts';

/**
 * Short enough for a test, long enough that a loaded 2-core machine still asks before
 * retain-until: a task's effective deadline is at most 4 s after admission (no caller deadline:
 * the gateway maximum), so retain-until is 7 s after admission; the replay window is 1 s.
 */
const TASKS = { retentionSeconds: 3, maxTaskDurationSeconds: 4, purgeIntervalSeconds: 0.2 };
const REPLAY_WINDOW_SECONDS = 1;
/** Purge must come within a few sweeps of retain-until; generous for a loaded machine. */
const PURGE_TIMEOUT_MS = 20_000;

const world = useGatewayFederation({
  world: withConformanceEndpoint,
  connect: [BOB, ALICE],
  config: { tasks: TASKS, endpointInfo: { requestReplaySeconds: REPLAY_WINDOW_SECONDS } },
});

/**
 * The gateway's purge log lines ("gateway: purged N task(s) …", logged by every sweep that
 * deleted something), counted, so a test can wait for the first purge after a given count with
 * a deadline. Taking the count before checking a condition closes the race with a purge that
 * lands while the check is on the wire.
 */
class PurgeWatch {
  readonly lines: string[] = [];
  #count = 0;
  #waiters: (() => void)[] = [];

  readonly log = (line: string): void => {
    this.lines.push(line);
    if (!line.startsWith('gateway: purged')) return;
    this.#count += 1;
    for (const wake of this.#waiters.splice(0)) wake();
  };

  get count(): number {
    return this.#count;
  }

  /** Resolves once more than `seen` purges have deleted something. */
  after(seen: number): Promise<void> {
    if (this.#count > seen) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no purge within ${String(PURGE_TIMEOUT_MS)} ms; log:\n${this.lines.join('\n')}`));
      }, PURGE_TIMEOUT_MS);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * Runs `attempt` (which must have no effect while it returns undefined) once per purge until it
 * gives a value: for conditions only a purge can change.
 */
async function afterPurges<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const seen = purges.count;
    const value = await attempt();
    if (value !== undefined) return value;
    await purges.after(seen);
  }
}

const purges = new PurgeWatch();
let state: GatewayState | undefined;
let gateway: GatewayComponent | undefined;

// This file restarts the harness's gateway on the same database with a log the test can watch;
// the task settings come from the config file, as for `agentconf gateway`.
beforeAll(async () => {
  await world().stopGateway();
  const { config } = world();
  expect(config.tasks).toMatchObject({
    retentionSeconds: 3,
    maxTaskDurationSeconds: 4,
    purgeIntervalMs: 200,
  });
  state = await openGatewayState(config, Date.now);
  gateway = await GatewayComponent.start(state, {
    backoff: { initialMs: 20, maxMs: 200 },
    log: purges.log,
  });
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  state?.close();
});

/** Task-state of `taskId` at the conformance endpoint, as an exchange. */
function askState(taskId: string): Promise<IqExchange> {
  return world()
    .caller(BOB)
    .then((bob) =>
      bob.exchangeIq(CONFORMANCE, 'get', buildTaskStateRequest({ taskId }), { timeoutMs: EVENT_TIMEOUT_MS }),
    );
}

function askResult(taskId: string): Promise<IqExchange> {
  return world()
    .caller(BOB)
    .then((bob) =>
      bob.exchangeIq(CONFORMANCE, 'get', buildTaskResultRequest({ taskId }), { timeoutMs: EVENT_TIMEOUT_MS }),
    );
}

describe('retention and purge (#invocation, #task-recovery)', () => {
  it('keeps state, result and the replay record until retain-until, then answers like a task that never existed and admits the request anew', async () => {
    const bob = await world().caller(BOB);
    const key = ledgerKey('retention');
    // No caller deadline: the effective deadline is the gateway maximum (4 s); the wait puts the
    // completion past the 1 s replay window.
    const invoke: Invoke = invokeOf({ ledgerKey: key, steps: [{ wait: { ms: 1200 } }, { complete: {} }] });
    const accepted = await invokeAccepted(bob, invoke);
    const created = toEpochMillis(accepted.created);
    const retainUntil = toEpochMillis(accepted.retainUntil);
    expect(retainUntil - created, 'retain-until = deadline (4 s) + retention (3 s)').toBe(7000);
    const history = await eventsUntilTerminal(bob, accepted.taskId);
    expect(history.kinds).toEqual(['status:running', 'completed']);
    const terminal = history.events.at(-1);
    if (terminal === undefined) throw new Error('no terminal event');

    // Past the replay window, before retain-until: the replay record is kept for the longer of
    // the two, so the same request is the same task (interp-29).
    expect(Date.now()).toBeGreaterThan(created + REPLAY_WINDOW_SECONDS * 1000);
    const replayed = await invokeAccepted(bob, invoke);
    expect(replayed).toEqual(accepted);
    const state = await taskState(bob, accepted.taskId);
    expect({ state: state.state, revision: state.revision, retainUntil: state.retainUntil.text }).toEqual({
      state: 'completed',
      revision: 2,
      retainUntil: accepted.retainUntil.text,
    });
    expectResultMatches(await taskResult(bob, accepted.taskId), terminal);
    expect(await readCounter(bob, key)).toBe(1);
    expect(Date.now(), 'everything above was asked before retain-until').toBeLessThan(retainUntil);

    // The replay record is deleted in the same transaction as the task (its keep-until is
    // retain-until, past the window). Replaying has no effect while the record exists (the
    // original <accepted/>), so the replay itself tells when the purge ran: from then on the
    // same request is new work, a new task that runs again (#invocation allows it once the
    // window and all retention have expired).
    const renewed = await afterPurges(async () => {
      const again = await invokeAccepted(bob, invoke);
      return again.taskId === accepted.taskId ? undefined : again;
    });
    expect(Date.now()).toBeGreaterThanOrEqual(retainUntil);
    const nobody = generateIdentifier('task-');
    for (const ask of [askState, askResult]) {
      expectIdenticalErrors({
        purged: { exchange: await ask(accepted.taskId), to: CONFORMANCE },
        'never existed': { exchange: await ask(nobody), to: CONFORMANCE },
      });
    }
    expectIdenticalErrors({
      'cancel, purged': {
        exchange: await sendCancel(bob, { taskId: accepted.taskId, expectedRevision: 2 }),
        to: CONFORMANCE,
      },
      'cancel, never existed': {
        exchange: await sendCancel(bob, { taskId: nobody, expectedRevision: 2 }),
        to: CONFORMANCE,
      },
    });
    expectStanzaError(await askState(accepted.taskId), 'item-not-found', 'cancel');

    expect((await eventsUntilTerminal(bob, renewed.taskId)).kinds).toEqual(['status:running', 'completed']);
    expect(await readCounter(bob, key)).toBe(2);
  });

  it('releases the version a purged task pinned, so it can then be removed (#manifest-retrieval)', async () => {
    const bob = await world().caller(BOB);
    resultPayload(
      await provisioningOf(bob).activate(CONFORMANCE, CONFORMANCE_NEXT_VERSION, CONFORMANCE_NEXT_HASH),
    );
    const pinned = await invokeAccepted(
      bob,
      invokeOf({
        apiVersion: CONFORMANCE_NEXT_VERSION,
        manifestHash: CONFORMANCE_NEXT_HASH,
        steps: [{ complete: {} }],
      }),
    );
    await eventsUntilTerminal(bob, pinned.taskId);
    resultPayload(await provisioningOf(bob).activate(CONFORMANCE, CONFORMANCE_VERSION, CONFORMANCE_HASH));
    // Inactive now, but a retained task depends on it: removal must fail.
    expectStanzaError(
      await provisioningOf(bob).removeVersion(CONFORMANCE, CONFORMANCE_NEXT_VERSION),
      'not-allowed',
      'cancel',
    );
    expect(Date.now(), 'refused before retain-until').toBeLessThan(toEpochMillis(pinned.retainUntil));

    // Refusing has no effect, so the removal is retried once per purge until one released it.
    const removed = await afterPurges(async () => {
      const exchange = await provisioningOf(bob).removeVersion(CONFORMANCE, CONFORMANCE_NEXT_VERSION);
      return exchange.parsed.type === 'result' ? parseRemoved(resultPayload(exchange)) : undefined;
    });
    expect(Date.now()).toBeGreaterThanOrEqual(toEpochMillis(pinned.retainUntil));
    expect(removed).toMatchObject({ jid: CONFORMANCE, version: CONFORMANCE_NEXT_VERSION });
    // A request pinned to the removed version is now refused like any unknown version.
    const late = await sendInvoke(
      bob,
      invokeOf({ apiVersion: CONFORMANCE_NEXT_VERSION, manifestHash: CONFORMANCE_NEXT_HASH, steps: [] }),
    );
    expectStanzaError(late, 'item-not-found', 'cancel');
  });
});

function caseContext(seed: number, warnings: string[]): CaseContext {
  return localCaseContext({
    world,
    name: 'reference gateway (integration, short retention)',
    profile: 'task-execution',
    seed,
    warnings,
  });
}

describe('the suite case task-recovery.expired-like-nonexistent', () => {
  it('passes against a gateway with a short retention, comparing both replies', async () => {
    const found = taskRecoverySuite.cases.find(
      (testCase) => testCase.id === 'task-recovery.expired-like-nonexistent',
    );
    if (found === undefined) throw new Error('the suite case is missing');
    const seed = freshSeed();
    console.log(`suite case seed ${String(seed)}`);
    const warnings: string[] = [];
    // Resolves only when it compared at least one expired reply (otherwise MissingFixture).
    await expect(found.run(caseContext(seed, warnings))).resolves.toBeUndefined();
    expect(warnings).toEqual([]);
  });
});
