// #invocation over the wire (issue 5, item 1; interp-26–#30): authorization before
// anything that reveals validity, the error each pre-admission refusal gets (and that it
// creates no task and runs nothing, proven with the ledger), durable admission, replay of the
// same request returning the same task without a second execution (local and across s2s, also
// from another resource), and each replay-fingerprint member changed alone → conflict.
//
// The invocation bucket is the documented default burst (100) with almost no refill, so the
// rate-limit case can drain it for one account (dave) without touching anyone else's bucket.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../harness/driver/index.ts';
import { isIdentifier } from '../protocol/identifiers.ts';
import { JID, MANIFEST } from './test-support/fixtures.ts';
import { ALICE, BOB, CAROL, useGatewayFederation } from './test-support/gateway-federation.ts';
import {
  CONFORMANCE,
  CONFORMANCE_HASH,
  CONFORMANCE_NEXT_HASH,
  CONFORMANCE_NEXT_VERSION,
  eventsUntilTerminal,
  invokeAccepted,
  invokeOf,
  ledgerKey,
  readCounter,
  sendInvoke,
  taskState,
  withConformanceEndpoint,
  type InvokeOptions,
} from './test-support/tasks.ts';
import { errorText, expectIdenticalErrors, expectStanzaError } from './test-support/wire.ts';

const DAVE = 'dave@server.example';

const world = useGatewayFederation({
  world: withConformanceEndpoint,
  accounts: [CAROL, DAVE],
  connect: [BOB, ALICE, CAROL, DAVE],
  config: { limits: { rateLimits: { invocation: { burst: 100, perSecond: 0.001 } } } },
});

/** A completing script; with a ledger key its executions are counted. */
const completing = (key?: string): InvokeOptions => ({
  ...(key === undefined ? {} : { ledgerKey: key }),
  steps: [{ complete: { content: [{ type: 'text', text: 'done' }] } }],
});

function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

describe('authorization first (#invocation, #errors; interp-19, interp-26, interp-27)', () => {
  it('answers nonexistent, unknown-tool, unknown-version and unauthorized invocations with one byte-identical item-not-found', async () => {
    const bob = await world().caller(BOB);
    const carol = await world().caller(CAROL);
    const translator = {
      apiVersion: '0.9.0',
      manifestHash: MANIFEST.translator.document.hash,
      tool: 'translate',
      arguments: { text: 'hello', to: 'de' },
    };
    const bobCases = {
      nonexistent: { exchange: await sendInvoke(bob, invokeOf(completing()), JID.nobody), to: JID.nobody },
      'unknown tool': {
        exchange: await sendInvoke(bob, invokeOf({ ...completing(), tool: 'no.such.tool' })),
        to: CONFORMANCE,
      },
      'unknown version': {
        exchange: await sendInvoke(bob, invokeOf({ ...completing(), apiVersion: '9.9.9' })),
        to: CONFORMANCE,
      },
      // translator is visible to local callers but restricted: they may not invoke it.
      'visible, not invocable': {
        exchange: await sendInvoke(bob, invokeOf(translator), JID.translator),
        to: JID.translator,
      },
    };
    expectIdenticalErrors(bobCases);
    expectStanzaError(bobCases.nonexistent.exchange, 'item-not-found', 'cancel');
    // carol has no grant at conformance: even malformed arguments and a stale hash tell her nothing.
    const carolCases = {
      unauthorized: { exchange: await sendInvoke(carol, invokeOf(completing())), to: CONFORMANCE },
      'unauthorized, bad arguments': {
        exchange: await sendInvoke(carol, invokeOf({ argumentsJson: '{"steps": [' })),
        to: CONFORMANCE,
      },
      'unauthorized, stale hash': {
        exchange: await sendInvoke(carol, invokeOf({ ...completing(), manifestHash: CONFORMANCE_NEXT_HASH })),
        to: CONFORMANCE,
      },
      nonexistent: { exchange: await sendInvoke(carol, invokeOf(completing()), JID.nobody), to: JID.nobody },
    };
    expectIdenticalErrors(carolCases);
    expect(errorText(carolCases.unauthorized.exchange)).toBe(errorText(bobCases.nonexistent.exchange));
  });

  it('admits an exactly pinned invocation without visibility (vault for local callers, translator for alice)', async () => {
    const bob = await world().caller(BOB);
    const alice = await world().caller(ALICE);
    const vault = await invokeAccepted(
      bob,
      invokeOf({
        tool: 'records.count',
        apiVersion: '1.0.0',
        manifestHash: MANIFEST.vault.document.hash,
        arguments: {},
      }),
      JID.vault,
    );
    const translator = await invokeAccepted(
      alice,
      invokeOf({
        tool: 'translate',
        apiVersion: '0.9.0',
        manifestHash: MANIFEST.translator.document.hash,
        arguments: { text: 'hello', to: 'de' },
      }),
      JID.translator,
    );
    // Admitted and executed: the conformance runtime knows neither tool, so both settle failed.
    for (const [caller, accepted, endpoint] of [
      [bob, vault, JID.vault],
      [alice, translator, JID.translator],
    ] as const) {
      const history = await eventsUntilTerminal(caller, accepted.taskId, 1, undefined, endpoint);
      expect(history.kinds).toEqual(['status:running', 'failed']);
      expect(history.events.at(-1)?.payload).toMatchObject({ error: { code: 'internal-error' } });
    }
  });
});

describe('refusals before admission create no task and run nothing (#invocation, #errors)', () => {
  async function refusedWithoutExecution(
    caller: Caller,
    options: (key: string) => InvokeOptions,
    condition: Parameters<typeof expectStanzaError>[1],
    type: Parameters<typeof expectStanzaError>[2],
  ): Promise<void> {
    const key = ledgerKey('refused');
    expectStanzaError(await sendInvoke(caller, invokeOf(options(key))), condition, type);
    expect(await readCounter(caller, key)).toBe(0);
  }

  it('a stale manifest hash, or a registered version that is not the active one → conflict', async () => {
    const bob = await world().caller(BOB);
    await refusedWithoutExecution(
      bob,
      (key) => ({ ...completing(key), manifestHash: CONFORMANCE_NEXT_HASH }),
      'conflict',
      'cancel',
    );
    await refusedWithoutExecution(
      bob,
      (key) => ({
        ...completing(key),
        apiVersion: CONFORMANCE_NEXT_VERSION,
        manifestHash: CONFORMANCE_NEXT_HASH,
      }),
      'conflict',
      'cancel',
    );
  });

  it('arguments the inputSchema rejects → not-acceptable; broken JSON → bad-request; I-JSON violations → not-acceptable', async () => {
    const alice = await world().caller(ALICE);
    await refusedWithoutExecution(
      alice,
      (key) => ({ arguments: { ledgerKey: key, steps: [{ explode: {} }] } }),
      'not-acceptable',
      'modify',
    );
    await refusedWithoutExecution(
      alice,
      (key) => ({ argumentsJson: `{"ledgerKey":"${key}","steps":[{"complete":{}}]` }),
      'bad-request',
      'modify',
    );
    await refusedWithoutExecution(
      alice,
      (key) => ({ argumentsJson: `{"ledgerKey":"${key}","ledgerKey":"${key}","steps":[]}` }),
      'not-acceptable',
      'modify',
    );
  });

  it('arguments beyond a documented limit (nesting depth 64) → resource-constraint, after authorization (#json-encoding)', async () => {
    const alice = await world().caller(ALICE);
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    await refusedWithoutExecution(
      alice,
      (key) => ({
        argumentsJson: `{"ledgerKey":"${key}","steps":[{"complete":{"structuredContent":${deep}}}]}`,
      }),
      'resource-constraint',
      'wait',
    );
    const carol = await world().caller(CAROL);
    expectStanzaError(
      await sendInvoke(carol, invokeOf({ argumentsJson: `{"steps":${deep}}` })),
      'item-not-found',
      'cancel',
    );
  });

  it('a deadline already past → not-acceptable (interp-30)', async () => {
    const bob = await world().caller(BOB);
    await refusedWithoutExecution(
      bob,
      (key) => ({ ...completing(key), deadline: isoIn(-60_000) }),
      'not-acceptable',
      'modify',
    );
  });

  it('a tool requiring approval fails closed → forbidden, and its ledger stays at 0 (interp-26)', async () => {
    const alice = await world().caller(ALICE);
    await refusedWithoutExecution(
      alice,
      (key) => ({ ...completing(key), tool: 'script.approval' }),
      'forbidden',
      'auth',
    );
  });

  it('the invocation rate limit → resource-constraint for an authorized caller only (#security, interp-42)', async () => {
    const dave = await world().caller(DAVE);
    // Malformed invocations still take a token, and create nothing. They fail before schema
    // validation, whose own budget (250 ms, queue 64) a loaded machine could exhaust first.
    const drained = await Promise.all(
      Array.from({ length: 100 }, () => sendInvoke(dave, invokeOf({ argumentsJson: '{"steps": [' }))),
    );
    for (const exchange of drained) expectStanzaError(exchange, 'bad-request', 'modify');
    expectStanzaError(await sendInvoke(dave, invokeOf(completing())), 'resource-constraint', 'wait');
    // Unauthorized (here: nonexistent) still gets item-not-found: a limit reveals nothing.
    expectStanzaError(await sendInvoke(dave, invokeOf(completing()), JID.nobody), 'item-not-found', 'cancel');
    // Other callers' buckets are their own.
    const bob = await world().caller(BOB);
    await invokeAccepted(bob, invokeOf(completing()));
  });
});

describe('replay (#invocation, #idempotency; interp-28)', () => {
  for (const [who, jid] of [
    ['a local caller', BOB],
    ['a remote caller across s2s', ALICE],
  ] as const) {
    it(`returns the same task to ${who}, never a second execution: the counter stays at 1`, async () => {
      const caller = await world().caller(jid);
      const key = ledgerKey('replay');
      const invoke = invokeOf(completing(key));
      const first = await invokeAccepted(caller, invoke);
      const history = await eventsUntilTerminal(caller, first.taskId);
      expect(history.kinds).toEqual(['status:running', 'completed']);
      expect(isIdentifier(first.taskId) && first.taskId.length >= 22).toBe(true);
      // Sequentially after completion, twice concurrently, and from another resource.
      const again = await invokeAccepted(caller, invoke);
      const other = await world().caller(jid, 'second');
      const concurrent = await Promise.all([
        invokeAccepted(caller, invoke),
        invokeAccepted(caller, invoke),
        invokeAccepted(other, invoke),
      ]);
      for (const replay of [again, ...concurrent]) {
        expect({ ...replay, created: replay.created.text, retainUntil: replay.retainUntil.text }).toEqual({
          ...first,
          created: first.created.text,
          retainUntil: first.retainUntil.text,
        });
      }
      expect(await readCounter(caller, key)).toBe(1);
      expect((await taskState(caller, first.taskId)).revision).toBe(2);
    });
  }

  it('a replay after the deadline passed still returns the original <accepted/> (interp-28)', async () => {
    const bob = await world().caller(BOB);
    const key = ledgerKey('late-replay');
    const invoke = invokeOf({ ledgerKey: key, steps: [{ wait: {} }], deadline: isoIn(400) });
    const first = await invokeAccepted(bob, invoke);
    const history = await eventsUntilTerminal(bob, first.taskId);
    expect(history.kinds).toEqual(['status:running', 'failed']);
    expect(history.events.at(-1)?.payload).toMatchObject({ error: { code: 'deadline-expired' } });
    expect((await invokeAccepted(bob, invoke)).taskId).toBe(first.taskId);
    expect(await readCounter(bob, key)).toBe(1);
  });

  it('conflicts when any one fingerprint member changes: tool, version, manifest hash, arguments, deadline instant or presence', async () => {
    const bob = await world().caller(BOB);
    const key = ledgerKey('fingerprint');
    const deadline = isoIn(600_000);
    const base = invokeOf({ ledgerKey: key, steps: [{ complete: {} }], deadline });
    const accepted = await invokeAccepted(bob, base);
    await eventsUntilTerminal(bob, accepted.taskId);
    const same = { requestId: base.requestId, ledgerKey: key, deadline };
    const variants: Record<string, InvokeOptions> = {
      tool: { ...same, tool: 'script.plain', steps: [{ complete: {} }] },
      version: { ...same, apiVersion: CONFORMANCE_NEXT_VERSION, steps: [{ complete: {} }] },
      'manifest hash': { ...same, manifestHash: CONFORMANCE_NEXT_HASH, steps: [{ complete: {} }] },
      arguments: { ...same, steps: [{ complete: { isError: true } }] },
      'deadline instant': {
        ...same,
        steps: [{ complete: {} }],
        deadline: new Date(Date.parse(deadline) + 1).toISOString(),
      },
      'deadline absent': { requestId: base.requestId, ledgerKey: key, steps: [{ complete: {} }] },
    };
    const outcomes: Record<string, string> = {};
    for (const [member, options] of Object.entries(variants)) {
      const exchange = await sendInvoke(bob, invokeOf(options));
      outcomes[member] = exchange.parsed.type === 'error' ? exchange.parsed.error.condition : 'result';
    }
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(variants).map((member) => [member, 'conflict'])));
    // A deadline where the first request had none conflicts just the same.
    const bare = invokeOf(completing(key));
    await invokeAccepted(bob, bare);
    expectStanzaError(
      await sendInvoke(bob, invokeOf({ ...completing(key), requestId: bare.requestId, deadline })),
      'conflict',
      'cancel',
    );
    expect(CONFORMANCE_HASH.value).not.toBe(CONFORMANCE_NEXT_HASH.value);
    // Two admissions in all ran (base and bare); none of the conflicts did.
    expect(await readCounter(bob, key)).toBe(2);
  });

  it('treats key order, whitespace, number spelling and the offset spelling of the same deadline instant as the same request', async () => {
    const alice = await world().caller(ALICE);
    const key = ledgerKey('equivalent');
    const instant = Date.now() + 600_000;
    const utc = new Date(instant).toISOString().replace(/\.\d{3}Z$/u, 'Z');
    const plusTwo = new Date(instant + 2 * 3_600_000).toISOString().replace(/\.\d{3}Z$/u, '+02:00');
    const first = invokeOf({
      argumentsJson: `{"ledgerKey":"${key}","steps":[{"progress":{"percent":50}},{"complete":{}}]}`,
      deadline: utc,
    });
    const accepted = await invokeAccepted(alice, first);
    const respelled = invokeOf({
      requestId: first.requestId,
      argumentsJson: `{ "steps" : [ {"progress": {"percent": 5.0e1}}, {"complete": {}} ],\n "ledgerKey": "${key}" }`,
      deadline: plusTwo,
    });
    expect((await invokeAccepted(alice, respelled)).taskId).toBe(accepted.taskId);
    await eventsUntilTerminal(alice, accepted.taskId);
    expect(await readCounter(alice, key)).toBe(1);
  });

  it('keeps the same request ID from another caller, or at another endpoint, an independent task', async () => {
    const bob = await world().caller(BOB);
    const alice = await world().caller(ALICE);
    const invoke = invokeOf(completing());
    const forBob = await invokeAccepted(bob, invoke);
    const forAlice = await invokeAccepted(alice, invoke);
    expect(forAlice.taskId).not.toBe(forBob.taskId);
    const weather = await invokeAccepted(
      bob,
      {
        ...invoke,
        tool: 'forecast.get',
        apiVersion: '1.4.0',
        manifestHash: MANIFEST.weather.document.hash,
        argumentsJson: '{"city":"Riga"}',
      },
      JID.weather,
    );
    expect(weather.taskId).not.toBe(forBob.taskId);
    for (const [caller, accepted] of [
      [bob, forBob],
      [alice, forAlice],
    ] as const) {
      expect((await eventsUntilTerminal(caller, accepted.taskId)).kinds).toEqual([
        'status:running',
        'completed',
      ]);
    }
  });
});
