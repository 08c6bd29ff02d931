import { describe, expect, it } from 'vitest';
import { CONFORMANCE_RUNTIME_NAME, ConformanceRuntime, SCRIPT_TOOLS } from './conformance-runtime.ts';
import { REFUSAL_FAILURE, UNKNOWN_TOOL_FAILURE } from '../../../protocol/conformance-script/failures.ts';
import { MemoryLedger } from '../../../protocol/conformance-script/test-support/memory-ledger.ts';
import { runtimeHarness } from './test-support/harness.ts';

describe('the conformance runtime', () => {
  it('is named as the fixture world names it', () => {
    expect(new ConformanceRuntime({ ledger: new MemoryLedger() }).name).toBe(CONFORMANCE_RUNTIME_NAME);
    expect(CONFORMANCE_RUNTIME_NAME).toBe('conformance');
  });

  it('runs the same script for every script tool', async () => {
    for (const tool of SCRIPT_TOOLS) {
      const { engine, ledger, run } = runtimeHarness();
      await run({ ledgerKey: tool, steps: [{ progress: { stage: tool } }, { complete: {} }] }, tool);
      expect(engine.calls.map((c) => c.kind)).toEqual(['progress', 'complete']);
      expect(ledger.read(tool)).toBe(1);
    }
  });

  it('fails arguments the inputSchema should have refused, naming only where, and runs nothing', async () => {
    const { engine, ledger, run } = runtimeHarness();
    await run({ ledgerKey: 'k', steps: [{ wait: { ms: -5 } }] });
    expect(engine.calls).toEqual([
      {
        kind: 'fail',
        failure: {
          code: 'internal-error',
          message: "The arguments do not match the tool's inputSchema (at /steps/0/wait/ms).",
          retryable: false,
        },
      },
    ]);
    expect(ledger.read('k')).toBe(0);
  });

  it('bounds a pointer quoted from the caller in a failure message', async () => {
    const { engine, run } = runtimeHarness();
    await run({ steps: [], ['x'.repeat(10_000)]: 1 });
    const [call] = engine.calls;
    expect(call?.kind === 'fail' ? call.failure.message.length : 0).toBeLessThan(250);
  });

  it('fails a tool it does not know', async () => {
    const { engine, run } = runtimeHarness();
    await run({ steps: [] }, 'forecast.get');
    expect(engine.calls).toEqual([{ kind: 'fail', failure: UNKNOWN_TOOL_FAILURE }]);
  });
});

describe('the counter tool', () => {
  it('completes with the current count of the key, as structuredContent and as text', async () => {
    const ledger = new MemoryLedger();
    ledger.increment('k');
    ledger.increment('k');
    const { engine, run } = runtimeHarness({ ledger });
    await run({ key: 'k' }, 'counter');
    expect(engine.calls).toEqual([
      {
        kind: 'complete',
        result: { content: [{ type: 'text', text: '2' }], structuredContent: { key: 'k', count: 2 } },
      },
    ]);
    expect(ledger.read('k')).toBe(2);
  });

  it('reports 0 for a key never incremented, and changes nothing by reading', async () => {
    const { engine, ledger, run } = runtimeHarness();
    await run({ key: 'never' }, 'counter');
    await runtimeHarness({ ledger }).run({ key: 'never' }, 'counter');
    expect(engine.calls).toEqual([
      {
        kind: 'complete',
        result: { content: [{ type: 'text', text: '0' }], structuredContent: { key: 'never', count: 0 } },
      },
    ]);
    expect(ledger.increments).toEqual([]);
  });

  it('falls back to the refusal failure when its result is refused as invalid', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('complete', 'invalid');
    await run({ key: 'k' }, 'counter');
    expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
  });

  it('fails bad arguments', async () => {
    const { engine, run } = runtimeHarness();
    await run({ key: 'not a key' }, 'counter');
    expect(engine.calls.map((c) => (c.kind === 'fail' ? c.failure.message : c.kind))).toEqual([
      "The arguments do not match the tool's inputSchema (at /key).",
    ]);
  });
});

describe('the schema.keywords tool', () => {
  it('completes at once with the arguments it was given, whatever they are (the schema is the test)', async () => {
    const { engine, ledger, run } = runtimeHarness();
    const args = { code: 'abc', email: 'not an address', when: 'yesterday' };
    await run(args, 'schema.keywords');
    expect(engine.calls).toEqual([
      { kind: 'complete', result: { content: [], structuredContent: { arguments: args } } },
    ]);
    expect(ledger.increments).toEqual([]);
  });

  it('falls back to the refusal failure when its result is refused as invalid', async () => {
    const { engine, run } = runtimeHarness();
    engine.refuseNext('complete', 'invalid');
    await run({}, 'schema.keywords');
    expect(engine.calls.at(-1)).toEqual({ kind: 'fail', failure: REFUSAL_FAILURE });
  });
});
