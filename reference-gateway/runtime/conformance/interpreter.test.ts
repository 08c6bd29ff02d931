import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { DEFAULT_EXPIRY_FAILURE, REFUSAL_FAILURE } from '../../../protocol/conformance-script/failures.ts';
import { FAKE_EPOCH } from '../../../protocol/conformance-script/test-support/fake-clock.ts';
import { runtimeHarness } from './test-support/harness.ts';

const UNIT = { type: 'object', properties: { unit: { enum: ['C', 'F'] } }, required: ['unit'] };

function script(...steps: JsonObject[]): JsonObject {
  return { steps };
}

describe('progress and settlement', () => {
  it('reports each progress step, then completes with the scripted result as given', async () => {
    const { engine, run } = runtimeHarness();
    await run(
      script(
        { progress: { percent: 10, stage: 'fetch' } },
        { progress: { message: 'halfway', percent: 50 } },
        {
          complete: {
            content: [{ type: 'text', text: 'done' }],
            structuredContent: { value: 'x' },
            isError: false,
            _meta: { trace: 1 },
            summary: 'all done',
          },
        },
      ),
    );
    expect(engine.calls).toEqual([
      { kind: 'progress', update: { percent: 10, stage: 'fetch' } },
      { kind: 'progress', update: { message: 'halfway', percent: 50 } },
      {
        kind: 'complete',
        result: {
          content: [{ type: 'text', text: 'done' }],
          structuredContent: { value: 'x' },
          isError: false,
          _meta: { trace: 1 },
        },
        summary: 'all done',
      },
    ]);
    expect(engine.isSettled).toBe(true);
  });

  it('completes with empty content and no other member when the step names none', async () => {
    const { engine, run } = runtimeHarness();
    await run(script({ complete: {} }));
    expect(engine.calls).toEqual([{ kind: 'complete', result: { content: [] } }]);
  });

  it('keeps a null structuredContent and an isError result as given (#mcp-mapping)', async () => {
    const { engine, run } = runtimeHarness();
    await run(script({ complete: { structuredContent: null, isError: true } }));
    expect(engine.calls).toEqual([
      { kind: 'complete', result: { content: [], structuredContent: null, isError: true } },
    ]);
  });

  it('fails with the scripted code, message, retryable flag and details', async () => {
    for (const failure of [
      { code: 'unavailable', message: 'later', retryable: true },
      { code: 'org.example.tool:quota', message: 'quota', retryable: false, details: { left: 0 } },
    ]) {
      const { engine, run } = runtimeHarness();
      await run(script({ fail: failure }));
      expect(engine.calls).toEqual([{ kind: 'fail', failure }]);
    }
  });

  it('never runs the steps after a terminal step', async () => {
    const { engine, ledger, run } = runtimeHarness();
    await run(script({ complete: {} }, { increment: { key: 'after' } }, { fail: failureOf('x') }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['complete']);
    expect(ledger.read('after')).toBe(0);
  });

  it('returns without settling when the script runs out of steps (the runtime-fault path)', async () => {
    const { engine, run } = runtimeHarness();
    await run(script({ progress: { percent: 1 } }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['progress']);
    expect(engine.isSettled).toBe(false);
  });
});

function failureOf(code: string): JsonObject {
  return { code, message: 'm', retryable: false };
}

describe('refusals', () => {
  it('goes on after a progress update the gateway refuses as invalid (it is advisory)', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('progress', 'invalid');
    await run(script({ progress: { percent: 150 } }, { complete: {} }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['progress', 'complete']);
  });

  it('stops at once when an action finds the task settled or past its deadline', async () => {
    for (const refusal of ['settled', 'deadline-expired'] as const) {
      const { engine, run } = runtimeHarness();
      engine.refuseNext('progress', refusal);
      await run(script({ progress: { percent: 1 } }, { complete: {} }));
      expect(engine.calls.map((c) => c.kind)).toEqual(['progress']);
    }
  });

  it('answers a refused result or failure with the one fallback failure, and nothing else', async () => {
    for (const step of [{ complete: { structuredContent: { nope: 1 } } }, { fail: failureOf('oops') }]) {
      const { engine, run } = runtimeHarness();
      engine.refuseNext(step.complete === undefined ? 'fail' : 'complete', 'invalid');
      await run(script(step));
      expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
      expect(engine.calls).toHaveLength(2);
    }
  });

  it('does not fall back after a terminal action refused because the task is settled', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('complete', 'settled');
    await run(script({ complete: {} }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['complete']);
  });

  it('answers a refused input request with the fallback failure', async () => {
    for (const refusal of ['invalid', 'input-pending'] as const) {
      const { engine, run } = runtimeHarness();
      engine.refuseNext('requestInput', refusal);
      await run(script({ input: { question: 'q', inputSchema: UNIT } }, { complete: {} }));
      expect(engine.calls.map((c) => c.kind)).toEqual(['requestInput', 'fail']);
      expect(engine.calls[1]).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
    }
  });
});

describe('waits', () => {
  it('waits the scripted milliseconds on the injected clock, then goes on', async () => {
    const { engine, clock, run } = runtimeHarness();
    const running = run(script({ wait: { ms: 5000 } }, { complete: {} }));
    await clock.whenSleeping();
    expect(clock.wakeTimes).toEqual([FAKE_EPOCH + 5000]);
    clock.advance(4999);
    expect(clock.sleeping).toBe(1);
    expect(engine.calls).toEqual([]);
    clock.advance(1);
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['complete']);
  });

  it('waits until an absolute instant, rounding digits below the millisecond up', async () => {
    const { clock, run } = runtimeHarness();
    const running = run(script({ wait: { until: '2026-01-01T01:00:00.0001+01:00' } }, { complete: {} }));
    await clock.whenSleeping();
    expect(clock.wakeTimes).toEqual([FAKE_EPOCH + 1]);
    clock.advance(1);
    await running;
  });

  it('does not sleep for an instant already past or a zero wait', async () => {
    const { engine, clock, run } = runtimeHarness();
    await run(script({ wait: { until: '2025-12-31T23:59:59Z' } }, { wait: { ms: 0 } }, { complete: {} }));
    expect(clock.sleeping).toBe(0);
    expect(engine.calls.map((c) => c.kind)).toEqual(['complete']);
  });

  it('confirms an accepted cancellation by default, ending an unbounded wait', async () => {
    const { engine, clock, run } = runtimeHarness();
    const running = run(script({ progress: { percent: 1 } }, { wait: {} }, { complete: {} }));
    await engine.whenCalled('progress');
    engine.cancel();
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['progress', 'confirmCancellation']);
    expect(engine.calls[1]).toEqual({ kind: 'confirmCancellation' });
    expect(clock.sleeping).toBe(0);
  });

  it('ends a timed wait early on cancellation', async () => {
    const { engine, clock, run } = runtimeHarness();
    const running = run(script({ wait: { ms: 60_000, onCancel: 'confirm' } }, { complete: {} }));
    await clock.whenSleeping();
    engine.cancel();
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['confirmCancellation']);
    expect(clock.sleeping).toBe(0);
  });

  it('confirms at once when the cancellation came before the wait', async () => {
    const { engine, clock, run } = runtimeHarness();
    engine.cancel();
    await run(script({ wait: { ms: 60_000 } }, { complete: {} }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['confirmCancellation']);
    expect(clock.sleeping).toBe(0);
  });

  it('ignores a cancellation when told to, and completes after the full wait', async () => {
    const { engine, clock, run } = runtimeHarness();
    const running = run(script({ wait: { ms: 1000, onCancel: 'ignore' } }, { complete: {} }));
    await clock.whenSleeping();
    engine.cancel();
    expect(clock.sleeping).toBe(1);
    clock.advance(1000);
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['complete']);
  });

  it('proceeds to the next steps on cancellation when told to: complete anyway, or fail', async () => {
    for (const last of [
      { complete: { content: [{ type: 'text', text: 'anyway' }] } },
      { fail: failureOf('a:b') },
    ]) {
      const { engine, run } = runtimeHarness();
      const running = run(script({ wait: { onCancel: 'proceed' } }, last));
      engine.cancel();
      await running;
      expect(engine.calls.map((c) => c.kind)).toEqual([last.complete === undefined ? 'fail' : 'complete']);
    }
  });

  it('confirms with the reason of a cancel step', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(script({ wait: { onCancel: 'proceed' } }, { cancel: { reason: 'as asked' } }));
    engine.cancel();
    await running;
    expect(engine.calls).toEqual([{ kind: 'confirmCancellation', reason: 'as asked' }]);
  });

  it('cancels on its own initiative with a cancel step and no cancellation request', async () => {
    const { engine, run } = runtimeHarness();
    await run(script({ cancel: {} }));
    expect(engine.calls).toEqual([{ kind: 'confirmCancellation' }]);
  });

  it('answers a refused confirmation with the fallback failure', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('confirmCancellation', 'invalid');
    await run(script({ cancel: {} }));
    expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
  });

  it('without TaskActions.confirmCancellation, confirming ends the script and leaves the engine to settle', async () => {
    const { engine, run } = runtimeHarness({ withoutConfirm: true });
    const running = run(script({ wait: {} }, { complete: {} }));
    engine.cancel();
    await running;
    expect(engine.calls).toEqual([]);
    expect(engine.isSettled).toBe(false);
  });

  it('stops, whatever the policy, when the task settles from outside during a wait', async () => {
    for (const onCancel of ['confirm', 'ignore', 'proceed']) {
      const { engine, clock, ledger, run } = runtimeHarness();
      const running = run(
        script({ wait: { ms: 10_000, onCancel } }, { increment: { key: 'k' } }, { complete: {} }),
      );
      await clock.whenSleeping();
      engine.settleFromOutside();
      await running;
      expect(engine.calls).toEqual([]);
      expect(ledger.read('k')).toBe(0);
      expect(clock.sleeping).toBe(0);
    }
  });

  it('waits for settlement alone when an unbounded wait ignores cancellation', async () => {
    const { engine, run } = runtimeHarness();
    let ended = false;
    const running = run(script({ wait: { onCancel: 'ignore' } }, { complete: {} })).then(() => {
      ended = true;
    });
    engine.cancel();
    await Promise.resolve();
    expect(ended).toBe(false);
    engine.settleFromOutside();
    await running;
    expect(engine.calls).toEqual([]);
  });
});

describe('late output after a cancel step (#cancellation)', () => {
  it('attempts every step after the cancel once, in order, against the settled task', async () => {
    const { engine, clock, ledger, run } = runtimeHarness();
    const running = run(
      script(
        { wait: { onCancel: 'proceed' } },
        { cancel: { reason: 'as asked' } },
        { progress: { percent: 90 } },
        { wait: { ms: 60_000 } },
        { input: { question: 'still?', inputSchema: UNIT, expiresInMs: 1000 } },
        { complete: { structuredContent: { value: 'late' } } },
        { fail: failureOf('org.example:late') },
        { cancel: {} },
        { increment: { key: 'late-attempts' } },
      ),
    );
    engine.cancel();
    await running;
    expect(engine.calls).toEqual([
      { kind: 'confirmCancellation', reason: 'as asked' },
      { kind: 'progress', update: { percent: 90 } },
      {
        kind: 'requestInput',
        request: { question: 'still?', inputSchema: UNIT, expiresAt: '2026-01-01T00:00:01.000Z' },
      },
      { kind: 'complete', result: { content: [], structuredContent: { value: 'late' } } },
      { kind: 'fail', failure: failureOf('org.example:late') },
      { kind: 'confirmCancellation' },
    ]);
    // Each attempt after the settlement was refused 'settled', and none stopped the script or
    // drew a fallback failure; the wait among them did not wait; the increment still counted.
    expect(engine.calls.filter((c) => c.kind === 'fail')).toHaveLength(1);
    expect(clock.sleeping).toBe(0);
    expect(ledger.read('late-attempts')).toBe(1);
  });

  it('attempts late output after the fallback failure of a refused cancel step', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('confirmCancellation', 'invalid');
    await run(script({ cancel: {} }, { progress: { percent: 1 } }));
    expect(engine.calls).toEqual([
      { kind: 'confirmCancellation' },
      { kind: 'fail', failure: REFUSAL_FAILURE },
      { kind: 'progress', update: { percent: 1 } },
    ]);
  });

  it('attempts nothing after the cancel step while the task is not terminal (no confirmCancellation)', async () => {
    const { engine, ledger, run } = runtimeHarness({ withoutConfirm: true });
    const running = run(
      script(
        { wait: { onCancel: 'proceed' } },
        { cancel: {} },
        { complete: {} },
        { increment: { key: 'k' } },
      ),
    );
    engine.cancel();
    await running;
    expect(engine.calls).toEqual([]);
    expect(ledger.read('k')).toBe(0);
  });

  it('attempts nothing after an implicit confirmation (onCancel "confirm" is not a cancel step)', async () => {
    const { engine, ledger, run } = runtimeHarness();
    const running = run(script({ wait: {} }, { complete: {} }, { increment: { key: 'k' } }));
    engine.cancel();
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['confirmCancellation']);
    expect(ledger.read('k')).toBe(0);
  });
});

describe('input', () => {
  it('requests input with the question, schema and an expiry computed from the clock, then echoes it', async () => {
    const { engine, clock, run } = runtimeHarness();
    clock.advance(250);
    const running = run(
      script(
        { input: { question: 'Which unit?', inputSchema: UNIT, expiresInMs: 30_000 } },
        { complete: { echoInputs: true } },
      ),
    );
    await engine.whenCalled('requestInput');
    expect(engine.calls[0]).toEqual({
      kind: 'requestInput',
      request: { question: 'Which unit?', inputSchema: UNIT, expiresAt: '2026-01-01T00:00:30.250Z' },
    });
    engine.answer({ unit: 'C' });
    await running;
    expect(engine.calls[1]).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }] } },
    });
  });

  it('asks twice in sequence and echoes both answers in order; no expiry means none is sent', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(
      script(
        { input: { question: 'first', inputSchema: UNIT } },
        { input: { question: 'second', inputSchema: { type: 'object' } } },
        { complete: { echoInputs: true } },
      ),
    );
    await engine.whenCalled('requestInput');
    engine.answer({ unit: 'F' });
    await engine.whenCalled('requestInput', 2);
    expect(engine.calls[1]).toEqual({
      kind: 'requestInput',
      request: { question: 'second', inputSchema: { type: 'object' } },
    });
    engine.answer({ any: [1, 2] });
    await running;
    expect(engine.calls[2]).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'F' }, { any: [1, 2] }] } },
    });
  });

  it('re-requests after an expiry with a fresh expiry, as often as scripted, then fails', async () => {
    const { engine, clock, run } = runtimeHarness();
    const running = run(
      script(
        { input: { question: 'q', inputSchema: UNIT, expiresInMs: 1000, reissue: 1 } },
        { complete: {} },
      ),
    );
    await engine.whenCalled('requestInput');
    clock.advance(1000);
    engine.expire();
    await engine.whenCalled('requestInput', 2);
    expect(engine.calls.map((c) => (c.kind === 'requestInput' ? c.request.expiresAt : c.kind))).toEqual([
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
    ]);
    engine.expire();
    await running;
    expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: DEFAULT_EXPIRY_FAILURE });
    expect(engine.calls).toHaveLength(3);
  });

  it('fails with the scripted expiry failure', async () => {
    const { engine, run } = runtimeHarness();
    const expiryFailure = { code: 'org.example:late', message: 'too late', retryable: true };
    const running = run(
      script({ input: { question: 'q', inputSchema: UNIT, expiresInMs: 5, expiryFailure } }),
    );
    await engine.whenCalled('requestInput');
    engine.expire();
    await running;
    expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: expiryFailure });
  });

  it('answers after a re-request and echoes only the answer', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(
      script(
        { input: { question: 'q', inputSchema: UNIT, expiresInMs: 10, reissue: 3 } },
        { complete: { echoInputs: true } },
      ),
    );
    await engine.whenCalled('requestInput');
    engine.expire();
    await engine.whenCalled('requestInput', 2);
    engine.answer({ unit: 'C' });
    await running;
    expect(engine.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }] } },
    });
  });

  it('confirms a cancellation that arrives while input is pending', async () => {
    for (const supersedeInput of [false, true]) {
      const { engine, run } = runtimeHarness();
      const running = run(script({ input: { question: 'q', inputSchema: UNIT } }, { complete: {} }));
      await engine.whenCalled('requestInput');
      engine.cancel({ supersedeInput });
      await running;
      expect(engine.calls.map((c) => c.kind)).toEqual(['requestInput', 'confirmCancellation']);
    }
  });

  it('proceeds without an input on cancellation when told to', async () => {
    for (const supersedeInput of [false, true]) {
      const { engine, run } = runtimeHarness();
      const running = run(
        script(
          { input: { question: 'q', inputSchema: UNIT, onCancel: 'proceed' } },
          { complete: { echoInputs: true } },
        ),
      );
      await engine.whenCalled('requestInput');
      engine.cancel({ supersedeInput });
      await running;
      expect(engine.calls.at(-1)).toEqual({
        kind: 'complete',
        result: { content: [], structuredContent: { inputs: [] } },
      });
    }
  });

  it('does not ask at all when the cancellation came first', async () => {
    const { engine, run } = runtimeHarness();
    engine.cancel();
    await run(script({ input: { question: 'q', inputSchema: UNIT } }));
    expect(engine.calls.map((c) => c.kind)).toEqual(['confirmCancellation']);
  });

  it('ignoring cancellation keeps waiting for the request: an answer still counts', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(
      script(
        { input: { question: 'q', inputSchema: UNIT, onCancel: 'ignore' } },
        { complete: { echoInputs: true } },
      ),
    );
    await engine.whenCalled('requestInput');
    engine.cancel();
    expect(engine.inputPending).toBe(true);
    engine.answer({ unit: 'C' });
    await running;
    expect(engine.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }] } },
    });
  });

  it('ignoring cancellation goes on without an input once the gateway supersedes the request', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(
      script(
        { input: { question: 'q', inputSchema: UNIT, onCancel: 'ignore' } },
        { complete: { echoInputs: true } },
      ),
    );
    await engine.whenCalled('requestInput');
    engine.cancel({ supersedeInput: true });
    await running;
    expect(engine.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [] } },
    });
  });

  it('stops when the task settles while input is pending', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(script({ input: { question: 'q', inputSchema: UNIT } }, { complete: {} }));
    await engine.whenCalled('requestInput');
    engine.settleFromOutside();
    await running;
    expect(engine.calls.map((c) => c.kind)).toEqual(['requestInput']);
  });
});

describe('ledger', () => {
  it('increments the ledger key once, before the first action, and at each increment step', async () => {
    const { engine, ledger, run } = runtimeHarness();
    const running = run({
      ledgerKey: 'run-1',
      steps: [
        { progress: { percent: 1 } },
        { input: { question: 'q', inputSchema: UNIT } },
        { increment: { key: 'after-input' } },
        { complete: {} },
      ],
    });
    await engine.whenCalled('progress');
    const countAtFirstAction = ledger.read('run-1');
    await engine.whenCalled('requestInput');
    expect(ledger.read('after-input')).toBe(0);
    engine.answer({ unit: 'C' });
    await running;
    expect(countAtFirstAction).toBe(1);
    expect(ledger.increments).toEqual(['run-1', 'after-input']);
  });

  it('counts every execution of the same key in a shared ledger', async () => {
    const first = runtimeHarness();
    await first.run({ ledgerKey: 'same', steps: [{ complete: {} }] });
    // A second execution against the same store: a replay the gateway failed to recognise.
    const second = runtimeHarness({ ledger: first.ledger });
    await second.run({ ledgerKey: 'same', steps: [] });
    expect(first.ledger.read('same')).toBe(2);
    expect(first.ledger.read('other')).toBe(0);
  });
});
