/**
 * docs/conformance-tools.md is the contract other gateways implement: every script example in it
 * must be valid arguments, and the outcomes it states for them must be what the runtime does.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';
import type { CompiledToolSchema } from '../../../protocol/tool-schema/index.ts';
import { parseScript } from '../../../protocol/conformance-script/script.ts';
import { runtimeHarness } from './test-support/harness.ts';
import {
  conformanceManifest,
  toolSchemas,
} from '../../../protocol/conformance-script/test-support/manifest.ts';

const DOC = readFileSync(resolve(REPO_ROOT, 'docs', 'conformance-tools.md'), 'utf8');

function examples(): Map<string, JsonValue> {
  const found = new Map<string, JsonValue>();
  for (const match of DOC.matchAll(/<!-- example: ([a-z-]+) -->\s*```json\n([\s\S]*?)\n```/g)) {
    const [, name, text] = match;
    if (name !== undefined && text !== undefined) found.set(name, parseStrictJson(text));
  }
  return found;
}

function example(name: string): JsonValue {
  const value = examples().get(name);
  if (value === undefined) throw new Error(`no example ${name} in docs/conformance-tools.md`);
  return value;
}

let scriptInput: CompiledToolSchema;
beforeAll(async () => {
  scriptInput = toolSchemas(await conformanceManifest(), 'script').input;
});

describe('docs/conformance-tools.md examples', () => {
  it('are all valid script arguments', () => {
    const all = examples();
    expect(all.size).toBeGreaterThanOrEqual(8);
    for (const [name, value] of all) {
      expect({ name, schema: scriptInput.validate(value).valid, parser: parseScript(value).ok }).toEqual({
        name,
        schema: true,
        parser: true,
      });
    }
  });

  it('progress-complete: two progress updates, then the stated completion', async () => {
    const { engine, ledger, run } = runtimeHarness();
    await run(example('progress-complete'));
    expect(engine.calls).toEqual([
      { kind: 'progress', update: { percent: 25, stage: 'fetch' } },
      { kind: 'progress', update: { percent: 75, message: 'almost' } },
      {
        kind: 'complete',
        result: { content: [{ type: 'text', text: 'done' }], structuredContent: { value: 'done' } },
        summary: 'ok',
      },
    ]);
    expect(ledger.read('case-7f3a:exec')).toBe(1);
  });

  it('input-echo: two requests, the second without expiry, then the echoed answers', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(example('input-echo'));
    await engine.whenCalled('requestInput');
    engine.answer({ unit: 'C' });
    await engine.whenCalled('requestInput', 2);
    engine.answer(5);
    await running;
    const requests = engine.calls.flatMap((c) => (c.kind === 'requestInput' ? [c.request] : []));
    expect(requests.map((r) => r.expiresAt !== undefined)).toEqual([true, false]);
    expect(engine.calls.at(-1)).toEqual({
      kind: 'complete',
      result: { content: [], structuredContent: { inputs: [{ unit: 'C' }, 5] } },
    });
  });

  it('input-expiry: re-issued once, then the scripted failure', async () => {
    const { engine, run } = runtimeHarness();
    const running = run(example('input-expiry'));
    await engine.whenCalled('requestInput');
    engine.expire();
    await engine.whenCalled('requestInput', 2);
    engine.expire();
    await running;
    expect(engine.calls.at(-1)).toEqual({
      kind: 'fail',
      failure: { code: 'org.example.suite:no-answer', message: 'Nobody answered.', retryable: false },
    });
  });

  it('output-after-cancelled: confirmed with the reason, then progress and completion attempted, then counted', async () => {
    const { engine, ledger, run } = runtimeHarness();
    const running = run(example('output-after-cancelled'));
    engine.cancel();
    await running;
    expect(engine.calls).toEqual([
      { kind: 'confirmCancellation', reason: 'stopped as asked' },
      { kind: 'progress', update: { percent: 99, message: 'late' } },
      { kind: 'complete', result: { content: [], structuredContent: { value: 'late' } } },
    ]);
    expect(ledger.read('case-5d1e:late')).toBe(1);
  });

  it('cancel-then-complete-anyway and wait-until-cancelled: the stated outcome of a cancellation', async () => {
    const anyway = runtimeHarness();
    const first = anyway.run(example('cancel-then-complete-anyway'));
    anyway.engine.cancel();
    await first;
    expect(anyway.engine.calls.map((c) => c.kind)).toEqual(['complete']);
    const honoured = runtimeHarness();
    const second = honoured.run(example('wait-until-cancelled'));
    honoured.engine.cancel();
    await second;
    expect(honoured.engine.calls).toEqual([{ kind: 'confirmCancellation' }]);
  });
});
