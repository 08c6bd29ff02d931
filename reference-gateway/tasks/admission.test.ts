import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { isIdentifier } from '../../protocol/identifiers.ts';
import type { BudgetedValidator } from '../../protocol/tool-schema/index.ts';
import { parseAccepted } from '../../protocol/stanza/task-invoke.ts';
import { RateLimiter } from '../policy/rate-limiter.ts';
import { FAULT } from '../iq/faults.ts';
import type { Outcome } from '../iq/outcome.ts';
import {
  ALICE,
  BOB,
  BOB_PHONE,
  CAROL,
  IDLE,
  VAULT,
  WEATHER,
  invokeRequest,
  kitValidator,
} from './test-support/engine-kit.ts';
import { useEngineKit } from './test-support/use-engine-kit.ts';

function payloadOf(outcome: Outcome): Element {
  if (!outcome.ok) throw new Error(`expected a result, got ${outcome.fault.condition}`);
  return outcome.payload;
}

function faultOf(outcome: Outcome): unknown {
  return outcome.ok ? 'result' : outcome.fault;
}

const OTHER_SHA256 = Buffer.alloc(32, 7).toString('base64');
const OTHER_SHA512 = Buffer.alloc(64, 7).toString('base64');

const kit = useEngineKit();

describe('durable admission (#invocation)', () => {
  it('commits the task and its replay record before answering <accepted/> at revision 0', async () => {
    const request = invokeRequest(kit.store);
    const accepted = parseAccepted(payloadOf(await kit.engine.invoke(BOB, WEATHER, request)));
    expect(accepted.requestId).toBe(request.requestId);
    expect(accepted.revision).toBe(0);
    expect(isIdentifier(accepted.taskId)).toBe(true);
    const stored = kit.store.tasks.task(accepted.taskId);
    expect(stored).toMatchObject({
      state: 'accepted',
      callerJid: 'bob@server.example',
      notifyJid: BOB.fullJid,
      endpointJid: WEATHER,
      apiVersion: '1.0.0',
      argumentsJson: '{"city":"Riga"}',
    });
    expect(kit.store.tasks.replay('bob@server.example', WEATHER, request.requestId)?.taskId).toBe(
      accepted.taskId,
    );
    expect(accepted.created.text).toBe(stored?.created);
    expect(accepted.retainUntil.text).toBe(stored?.retainUntil);
    expect(kit.store.registrations.isRetained(WEATHER, '1.0.0')).toBe(true);
  });

  it('takes task IDs from the CSPRNG: 200 admissions, 200 distinct valid IDs', async () => {
    kit.reopen({ limits: { maxActiveTasksPerCaller: 1000 } });
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      ids.add(
        parseAccepted(
          payloadOf(
            await kit.engine.invoke(
              BOB,
              WEATHER,
              invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' }),
            ),
          ),
        ).taskId,
      );
    }
    expect(ids.size).toBe(200);
    for (const id of ids) expect(isIdentifier(id)).toBe(true);
  });
});

describe('authorization before validity (#invocation, #errors, interp-26, interp-27)', () => {
  it('answers the same item-not-found for unknown endpoint, version, tool and unauthorized callers', async () => {
    const faults = [
      await kit.engine.invoke(BOB, 'nobody@agents.example', invokeRequest(kit.store)),
      await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { apiVersion: '7.7.7' })),
      await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { tool: 'missing.tool' })),
      await kit.engine.invoke(CAROL, WEATHER, invokeRequest(kit.store)),
      await kit.engine.invoke(
        ALICE,
        WEATHER,
        invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' }),
      ),
      // Unauthorized callers learn nothing about arguments, hashes or deadlines either.
      await kit.engine.invoke(CAROL, WEATHER, invokeRequest(kit.store, { argumentsJson: '{"a":1,"a":2}' })),
      await kit.engine.invoke(
        CAROL,
        WEATHER,
        invokeRequest(kit.store, { hash: { algo: 'sha-256', value: OTHER_SHA256 } }),
      ),
    ].map(faultOf);
    for (const fault of faults) expect(fault).toBe(FAULT.itemNotFound);
    expect(kit.store.tasks.countNonTerminal()).toBe(0);
  });

  it('admits an exactly pinned call to an endpoint the caller cannot see', async () => {
    const hash = kit.store.registrations.version(VAULT, '1.0.0')?.hash;
    const request = invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}', ...(hash && { hash }) });
    expect((await kit.engine.invoke(BOB, VAULT, request)).ok).toBe(true);
  });

  it('lets a remote caller invoke exactly the granted tool', async () => {
    expect((await kit.engine.invoke(ALICE, WEATHER, invokeRequest(kit.store))).ok).toBe(true);
  });
});

describe('pre-admission errors for authorized callers (#errors)', () => {
  it.each([
    [
      'stale manifest hash → conflict',
      { hash: { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' } },
      FAULT.conflict,
    ],
    ['non-sha-256 hash → conflict', { hash: { algo: 'sha-512', value: OTHER_SHA512 } }, FAULT.conflict],
    ['registered but inactive version → conflict', { apiVersion: '0.9.0' }, FAULT.conflict],
    [
      'duplicate member (I-JSON) → not-acceptable',
      { argumentsJson: '{"city":"a","city":"b"}' },
      FAULT.notAcceptable,
    ],
    ['not JSON → bad-request', { argumentsJson: '{city:' }, FAULT.badRequest],
    ['schema-invalid arguments → not-acceptable', { argumentsJson: '{"town":"Riga"}' }, FAULT.notAcceptable],
    ['deadline in the past → not-acceptable', { deadline: '2026-07-27T18:59:59.999Z' }, FAULT.notAcceptable],
    ['deadline exactly now → not-acceptable', { deadline: '2026-07-27T21:00:00+02:00' }, FAULT.notAcceptable],
    ['approvalRequired tool → forbidden', { tool: 'guarded', argumentsJson: '{}' }, FAULT.forbidden],
  ] as const)('%s', async (_name, options, expected) => {
    const outcome = await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, options));
    expect(faultOf(outcome)).toBe(expected);
    expect(kit.store.tasks.countNonTerminal()).toBe(0);
    expect(kit.runtime.executions).toHaveLength(0);
  });

  it('answers resource-constraint for arguments over the documented size limit', async () => {
    const big = JSON.stringify({ city: 'x'.repeat(300_000) });
    expect(
      faultOf(await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { argumentsJson: big }))),
    ).toBe(FAULT.resourceConstraint);
  });

  it('answers service-unavailable for an endpoint without a runtime, only after authorization', async () => {
    const hash = kit.store.registrations.version(IDLE, '1.0.0')?.hash;
    const request = invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}', ...(hash && { hash }) });
    expect(faultOf(await kit.engine.invoke(BOB, IDLE, request))).toBe(FAULT.serviceUnavailable);
    expect(faultOf(await kit.engine.invoke(CAROL, IDLE, request))).toBe(FAULT.itemNotFound);
  });

  it('answers resource-constraint when the caller reaches its task capacity', async () => {
    kit.reopen({ limits: { maxActiveTasksPerCaller: 2 } });
    for (let i = 0; i < 2; i++)
      expect((await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store))).ok).toBe(true);
    expect(faultOf(await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store)))).toBe(
      FAULT.resourceConstraint,
    );
    // Another caller is not affected by bob's capacity.
    expect((await kit.engine.invoke(ALICE, WEATHER, invokeRequest(kit.store))).ok).toBe(true);
  });

  it('rate-limits authorized callers only: an unauthorized one keeps getting item-not-found', async () => {
    const limiter = new RateLimiter({ invocation: { burst: 1, perSecond: 0.001 } }, () => 0);
    kit.reopen({ limiter });
    expect((await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store))).ok).toBe(true);
    expect(faultOf(await kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store)))).toBe(
      FAULT.resourceConstraint,
    );
    for (let i = 0; i < 3; i++) {
      expect(faultOf(await kit.engine.invoke(CAROL, WEATHER, invokeRequest(kit.store)))).toBe(
        FAULT.itemNotFound,
      );
    }
  });
});

describe('replay (#invocation, interp-28, interp-29)', () => {
  it('returns the byte-identical <accepted/> for the same fingerprint, from any resource, and executes once', async () => {
    const request = invokeRequest(kit.store, { deadline: '2026-07-27T19:30:00Z' });
    const first = payloadOf(await kit.engine.invoke(BOB, WEATHER, request));
    await kit.runtime.execution(0);
    kit.clock.advance(5_000);
    const reformatted = { ...request, argumentsJson: ' { "city" : "Riga" } ' };
    const second = payloadOf(await kit.engine.invoke(BOB_PHONE, WEATHER, reformatted));
    expect(second.toString()).toBe(first.toString());
    expect(kit.store.tasks.countNonTerminal()).toBe(1);
    expect(kit.runtime.executions).toHaveLength(1);
  });

  it('treats the same deadline instant in another spelling as the same request', async () => {
    const request = invokeRequest(kit.store, { deadline: '2026-07-27T19:30:00Z' });
    const first = payloadOf(await kit.engine.invoke(BOB, WEATHER, request));
    const other = invokeRequest(kit.store, {
      requestId: request.requestId,
      deadline: '2026-07-27T21:30:00.000+02:00',
    });
    expect(payloadOf(await kit.engine.invoke(BOB, WEATHER, other)).toString()).toBe(first.toString());
  });

  it.each([
    ['other arguments', { argumentsJson: '{"city":"Oslo"}' }],
    ['other tool', { tool: 'plain', argumentsJson: '{"city":"Riga"}' }],
    ['other deadline instant', { deadline: '2026-07-27T19:31:00Z' }],
    ['no deadline where there was one', {}],
  ])('answers conflict for the same request ID with %s', async (_name, options) => {
    const request = invokeRequest(kit.store, { deadline: '2026-07-27T19:30:00Z' });
    expect((await kit.engine.invoke(BOB, WEATHER, request)).ok).toBe(true);
    const changed = invokeRequest(kit.store, { requestId: request.requestId, ...options });
    expect(faultOf(await kit.engine.invoke(BOB, WEATHER, changed))).toBe(FAULT.conflict);
  });

  it('keeps request IDs independent per caller and per target', async () => {
    const request = invokeRequest(kit.store);
    const bobs = parseAccepted(payloadOf(await kit.engine.invoke(BOB, WEATHER, request)));
    const alices = parseAccepted(payloadOf(await kit.engine.invoke(ALICE, WEATHER, request)));
    expect(alices.taskId).not.toBe(bobs.taskId);
  });

  it('recognizes a replay after the deadline passed and after the active version changed', async () => {
    const request = invokeRequest(kit.store, { deadline: '2026-07-27T19:00:10Z' });
    const first = payloadOf(await kit.engine.invoke(BOB, WEATHER, request));
    kit.clock.advance(60_000);
    kit.store.registrations.setActiveVersion(WEATHER, '0.9.0');
    expect(payloadOf(await kit.engine.invoke(BOB, WEATHER, request)).toString()).toBe(first.toString());
  });

  it('admits concurrent identical requests once', async () => {
    const request = invokeRequest(kit.store);
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => kit.engine.invoke(BOB, WEATHER, request)));
    const texts = new Set(outcomes.map((o) => payloadOf(o).toString()));
    expect(texts.size).toBe(1);
    expect(kit.store.tasks.countNonTerminal()).toBe(1);
  });
});

describe('group commit (#invocation)', () => {
  it('commits admissions that become ready in one turn in one transaction', async () => {
    // The worker finishes validations one by one, at whatever pace the machine allows: a gate
    // holds every result until all 20 are in, so they become ready in the same turn.
    const real = kitValidator();
    let finished = 0;
    let openGate = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const gated = Object.create(real) as BudgetedValidator;
    gated.validate = async (...args: Parameters<BudgetedValidator['validate']>) => {
      const outcome = await real.validate(...args);
      finished += 1;
      if (finished === 20) openGate();
      await gate;
      return outcome;
    };
    kit.reopen({ validator: gated, limits: { maxActiveTasksPerCaller: 1000 } });
    const before = kit.engine.admissionCommits;
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' })),
      ),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(kit.store.tasks.countNonTerminal()).toBe(20);
    expect(kit.engine.admissionCommits - before).toBe(1);
  });

  it('per-request mode commits each admission on its own', async () => {
    kit.reopen({ commitMode: 'per-request' });
    await Promise.all(
      Array.from({ length: 5 }, () =>
        kit.engine.invoke(BOB, WEATHER, invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' })),
      ),
    );
    expect(kit.engine.admissionCommits).toBe(5);
  });
});
