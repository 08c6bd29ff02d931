/**
 * The parser must accept exactly what the script tools' inputSchema accepts: the gateway
 * validates arguments against the schema, and the runtime must then never refuse them (nor
 * run what the schema refuses). Each sample is checked against both.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/json-value.ts';
import type { CompiledToolSchema } from '../tool-schema/index.ts';
import { parseCounterArguments } from './ledger-tools.ts';
import { DEFAULT_EXPIRY_FAILURE } from './failures.ts';
import { parseScript } from './script.ts';
import { conformanceManifest, toolSchemas } from './test-support/manifest.ts';

let scriptInput: CompiledToolSchema;
let counterInput: CompiledToolSchema;
beforeAll(async () => {
  const manifest = await conformanceManifest();
  scriptInput = toolSchemas(manifest, 'script').input;
  counterInput = toolSchemas(manifest, 'counter').input;
});

const SCHEMA = { type: 'object' };
const FAILURE = { code: 'unavailable', message: 'm', retryable: true };

const VALID_SCRIPTS: readonly JsonValue[] = [
  { steps: [] },
  { ledgerKey: 'org.example:run~1_2-3', steps: [{ complete: {} }] },
  { steps: [{ progress: {} }, { progress: { percent: 150, stage: '', message: 'x' } }] },
  { steps: [{ progress: { percent: -1.5 } }] },
  { steps: [{ wait: {} }, { wait: { ms: 0 } }, { wait: { ms: 3_600_000, onCancel: 'ignore' } }] },
  { steps: [{ wait: { ms: 2.0 } }] },
  { steps: [{ wait: { until: '2026-07-27T19:15:00.123456789-02:30', onCancel: 'proceed' } }] },
  { steps: [{ input: { question: '', inputSchema: SCHEMA } }] },
  {
    steps: [
      {
        input: {
          question: 'q',
          inputSchema: SCHEMA,
          expiresInMs: 0,
          reissue: 16,
          expiryFailure: { ...FAILURE, details: {} },
          onCancel: 'confirm',
        },
      },
    ],
  },
  { steps: [{ increment: { key: 'k' } }] },
  {
    steps: [
      {
        complete: {
          content: [{ type: 'text', text: 't' }, {}],
          structuredContent: [1, 'two'],
          isError: true,
          _meta: {},
          summary: '',
        },
      },
    ],
  },
  { steps: [{ complete: { structuredContent: null } }] },
  { steps: [{ complete: { echoInputs: false } }] },
  { steps: [{ fail: { code: 'not qualified', message: '', retryable: false } }] },
  { steps: [{ cancel: {} }, { cancel: { reason: 'r' } }] },
];

const INVALID_SCRIPTS: readonly JsonValue[] = [
  null,
  [],
  {},
  { steps: {} },
  { steps: [], extra: 1 },
  { ledgerKey: '', steps: [] },
  { ledgerKey: 'has space', steps: [] },
  { ledgerKey: 'x'.repeat(129), steps: [] },
  { steps: Array.from({ length: 257 }, () => ({ progress: {} })) },
  { steps: [{}] },
  { steps: [{ progress: {}, wait: {} }] },
  { steps: [{ sleep: {} }] },
  { steps: [{ progress: null }] },
  { steps: [{ progress: { percent: '5' } }] },
  { steps: [{ progress: { colour: 'red' } }] },
  { steps: [{ wait: { ms: -1 } }] },
  { steps: [{ wait: { ms: 3_600_001 } }] },
  { steps: [{ wait: { ms: 1.5 } }] },
  { steps: [{ wait: { ms: 1, until: '2026-01-01T00:00:00Z' } }] },
  { steps: [{ wait: { until: '2026-01-01T00:00:00' } }] },
  { steps: [{ wait: { until: '2026-01-01 00:00:00Z' } }] },
  { steps: [{ wait: { onCancel: 'abort' } }] },
  { steps: [{ input: { question: 'q' } }] },
  { steps: [{ input: { inputSchema: SCHEMA } }] },
  { steps: [{ input: { question: 'q', inputSchema: true } }] },
  { steps: [{ input: { question: 'q', inputSchema: SCHEMA, reissue: 17 } }] },
  { steps: [{ input: { question: 'q', inputSchema: SCHEMA, expiryFailure: { code: 'c' } } }] },
  { steps: [{ increment: {} }] },
  { steps: [{ increment: { key: 'a/b' } }] },
  { steps: [{ complete: { structuredContent: {}, echoInputs: true } }] },
  { steps: [{ complete: { structuredContent: {}, echoInputs: false } }] },
  { steps: [{ complete: { content: ['text'] } }] },
  { steps: [{ complete: { content: {} } }] },
  { steps: [{ complete: { isError: 'yes' } }] },
  { steps: [{ complete: { _meta: [] } }] },
  { steps: [{ fail: { code: 'c', message: 'm' } }] },
  { steps: [{ fail: { code: 'c', message: 'm', retryable: 'no' } }] },
  { steps: [{ fail: { ...FAILURE, extra: 1 } }] },
  { steps: [{ cancel: { reason: 5 } }] },
];

function agreement(sample: JsonValue): { parser: boolean; schema: boolean } {
  return { parser: parseScript(sample).ok, schema: scriptInput.validate(sample).valid };
}

describe('script arguments: parser and inputSchema agree', () => {
  it.each(VALID_SCRIPTS.map((sample) => [JSON.stringify(sample).slice(0, 100), sample]))(
    'both accept %s',
    (_label, sample) => {
      expect(agreement(sample)).toEqual({ parser: true, schema: true });
    },
  );

  it.each(INVALID_SCRIPTS.map((sample) => [JSON.stringify(sample).slice(0, 100), sample]))(
    'both refuse %s',
    (_label, sample) => {
      expect(agreement(sample)).toEqual({ parser: false, schema: false });
    },
  );

  it('agree on randomly mutated scripts', () => {
    const seed = 20261130;
    process.stdout.write(`script agreement: fast-check seed ${seed}\n`);
    const junk: fc.Arbitrary<JsonValue> = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -2, max: 3_600_002 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom('', 'confirm', 'ignore', 'proceed', 'k', '2026-01-01T00:00:00Z', 'bad key'),
      fc.constant<JsonValue>({}),
      fc.constant<JsonValue>([]),
    );
    const members = [
      'progress',
      'wait',
      'input',
      'increment',
      'complete',
      'fail',
      'cancel',
      'percent',
      'stage',
      'message',
      'ms',
      'until',
      'onCancel',
      'question',
      'inputSchema',
      'expiresInMs',
      'reissue',
      'expiryFailure',
      'key',
      'content',
      'structuredContent',
      'echoInputs',
      'isError',
      '_meta',
      'summary',
      'code',
      'retryable',
      'details',
      'reason',
      'other',
    ];
    const valid = fc.constantFrom(...VALID_SCRIPTS);
    // A mutation sets, replaces or deletes one member somewhere inside a valid script.
    const mutated = fc
      .tuple(valid, fc.nat(), fc.constantFrom(...members), fc.option(junk, { nil: undefined }))
      .map(([sample, pick, member, value]) => mutate(sample, pick, member, value));
    let accepted = 0;
    for (const sample of fc.sample(mutated, { seed, numRuns: 400 })) {
      const { parser, schema } = agreement(sample);
      expect(parser, JSON.stringify(sample)).toBe(schema);
      if (schema) accepted += 1;
    }
    // The mutations must reach both sides of the line, or the agreement proves little.
    expect(accepted).toBeGreaterThan(50);
    expect(accepted).toBeLessThan(350);
  });
});

/** Sets (or deletes, for undefined) `member` on the `pick`-th object found in `value`. */
function mutate(
  value: JsonValue,
  pick: number,
  member: string,
  replacement: JsonValue | undefined,
): JsonValue {
  const copy = structuredClone(value);
  const objects: Record<string, JsonValue>[] = [];
  const collect = (node: JsonValue): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === 'object') {
      objects.push(node);
      Object.values(node).forEach(collect);
    }
  };
  collect(copy);
  const target = objects[pick % objects.length];
  if (target === undefined) return copy;
  if (replacement === undefined) Reflect.deleteProperty(target, member);
  else target[member] = replacement;
  return copy;
}

describe('parsed scripts', () => {
  it('apply the defaults the documentation gives', () => {
    const parsed = parseScript({
      steps: [{ wait: {} }, { input: { question: 'q', inputSchema: SCHEMA } }, { complete: {} }],
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        steps: [
          { kind: 'wait', span: { kind: 'unbounded' }, onCancel: 'confirm' },
          {
            kind: 'input',
            question: 'q',
            inputSchema: SCHEMA,
            reissue: 0,
            expiryFailure: DEFAULT_EXPIRY_FAILURE,
            onCancel: 'confirm',
          },
          { kind: 'complete', content: [], echoInputs: false },
        ],
      },
    });
  });

  it('name the offending member by its JSON pointer', () => {
    const parsed = parseScript({ steps: [{ complete: {} }, { wait: { ms: -1 } }] });
    expect(parsed.ok ? undefined : parsed.problem.pointer).toBe('/steps/1/wait/ms');
  });

  it('refuse a date-time the pattern admits but the calendar does not', () => {
    const sample = { steps: [{ wait: { until: '2026-02-30T00:00:00Z' } }] };
    expect(scriptInput.validate(sample).valid).toBe(true);
    const parsed = parseScript(sample);
    expect(parsed.ok ? undefined : parsed.problem.pointer).toBe('/steps/0/wait/until');
  });
});

describe('counter arguments: parser and inputSchema agree', () => {
  it.each<[JsonValue, boolean]>([
    [{ key: 'k' }, true],
    [{ key: 'org.example:k' }, true],
    [{}, false],
    [{ key: '' }, false],
    [{ key: 7 }, false],
    [{ key: 'k', other: 1 }, false],
    [[], false],
  ])('%j → %s', (sample, accepted) => {
    expect({ parser: parseCounterArguments(sample).ok, schema: counterInput.validate(sample).valid }).toEqual(
      {
        parser: accepted,
        schema: accepted,
      },
    );
  });
});
