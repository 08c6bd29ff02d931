import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/json-value.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { EVENT_TYPES, type EventType } from '../task-states.ts';
import { terminalPayloadType } from './event-types.ts';
import { validateEventPayload } from './validate-event.ts';

/** Payloads copied verbatim from the spec's examples (#events, #federated-example, #task-recovery). */
const SPEC_EXAMPLES: readonly [caption: string, type: EventType, text: string][] = [
  ['status running (#events)', 'status', '{"state":"running","updatedAt":"2026-07-27T19:14:02Z"}'],
  ['progress (#events)', 'progress', '{"percent":50,"stage":"fetch","message":"Forecast received"}'],
  [
    'input_required (#events)',
    'input_required',
    `{"requestId":"input-a5128a63d64146d5a6ffac65bb20c348",
     "question":"Which forecast unit should be used?",
     "inputSchema":{"type":"object","properties":{"unit":{"enum":["C","F"]}},
                    "required":["unit"]},
     "createdAt":"2026-07-27T19:14:04Z"}`,
  ],
  ['cancelled (#events)', 'cancelled', '{}'],
  [
    'failed (#events)',
    'failed',
    `{"error":{"code":"unavailable",
              "message":"Forecast provider is temporarily unavailable.",
              "retryable":true}}`,
  ],
  [
    'completed (#events)',
    'completed',
    `{"result":{"content":[{"type":"text","text":"Light rain, 18 C"}],
               "structuredContent":{"summary":"Light rain, 18 C"},
               "isError":false},
     "summary":"Forecast ready"}`,
  ],
  [
    'completed (#federated-example) and task-result (#task-recovery)',
    'completed',
    `{"result":{"content":[{"type":"text","text":"Light rain, 18 C"}],
               "structuredContent":{"summary":"Light rain, 18 C"},
               "isError":false}}`,
  ],
];

function violationsOf(type: EventType, payload: JsonValue): { rule: string; path: string }[] {
  const result = validateEventPayload(type, payload);
  return result.ok ? [] : result.violations.map(({ rule, path }) => ({ rule, path }));
}

const NOW = '2026-07-27T19:14:04Z';
const REQUEST_ID = 'input-a5128a63d64146d5a6ffac65bb20c348';

function inputRequired(overrides: Record<string, JsonValue>): JsonValue {
  return {
    requestId: REQUEST_ID,
    question: 'Unit?',
    inputSchema: { type: 'object' },
    createdAt: NOW,
    ...overrides,
  };
}

describe('validateEventPayload on the spec examples', () => {
  it.each(SPEC_EXAMPLES)('%s validates', (_caption, type, text) => {
    const payload = parseStrictJson(text);
    const result = validateEventPayload(type, payload);
    expect(result).toEqual({ ok: true, type, payload });
  });

  it('selects the definition by type: a valid status payload is not a valid progress payload', () => {
    const status = { state: 'running', updatedAt: NOW };
    expect(violationsOf('progress', status)).toEqual([
      { rule: 'schema:additionalProperties', path: '/state' },
      { rule: 'schema:additionalProperties', path: '/updatedAt' },
    ]);
  });

  it('rejects an unknown type at run time rather than validating against nothing', () => {
    expect(violationsOf('bogus' as EventType, {})).toEqual([{ rule: 'event-type:unknown', path: '' }]);
  });
});

describe('schema violations', () => {
  it.each<[string, EventType, JsonValue, string, string]>([
    ['missing updatedAt', 'status', { state: 'running' }, 'schema:required', '/updatedAt'],
    ['terminal state in status', 'status', { state: 'completed', updatedAt: NOW }, 'schema:enum', '/state'],
    ['empty progress', 'progress', {}, 'schema:minProperties', ''],
    ['long stage', 'progress', { stage: 'x'.repeat(257) }, 'schema:maxLength', '/stage'],
    [
      'short request id',
      'input_required',
      inputRequired({ requestId: 'short' }),
      'schema:pattern',
      '/requestId',
    ],
    [
      'array inputSchema',
      'input_required',
      inputRequired({ inputSchema: [] }),
      'schema:type',
      '/inputSchema',
    ],
    [
      'boolean inputSchema',
      'input_required',
      inputRequired({ inputSchema: true }),
      'schema:type',
      '/inputSchema',
    ],
    [
      'non-object content',
      'completed',
      { result: { content: ['text'] } },
      'schema:type',
      '/result/content/0',
    ],
    [
      'retryable missing',
      'failed',
      { error: { code: 'unavailable', message: 'm' } },
      'schema:required',
      '/error/retryable',
    ],
    ['unknown cancelled member', 'cancelled', { why: 'x' }, 'schema:additionalProperties', '/why'],
  ])('%s', (_caption, type, payload, rule, path) => {
    expect(violationsOf(type, payload)).toEqual([{ rule, path }]);
  });

  it('requires the exact camelCase member names', () => {
    expect(violationsOf('status', { state: 'running', updated_at: NOW })).toEqual([
      { rule: 'schema:required', path: '/updatedAt' },
      { rule: 'schema:additionalProperties', path: '/updated_at' },
    ]);
  });

  it('accepts an MCP error result without structuredContent as a completed payload (interp-40)', () => {
    expect(
      violationsOf('completed', {
        result: { content: [{ type: 'text', text: 'City not found' }], isError: true },
      }),
    ).toEqual([]);
  });

  it('leaves tool-result content, structured content, metadata and error details open', () => {
    expect(
      violationsOf('completed', {
        result: { content: [{ type: 'x', anything: [1] }], structuredContent: 7, _meta: { a: { b: 1 } } },
      }),
    ).toEqual([]);
    expect(
      violationsOf('failed', {
        error: { code: 'unavailable', message: 'm', retryable: false, details: { 'com.example:x': 1 } },
      }),
    ).toEqual([]);
  });
});

describe('progress percent: a finite number from 0 through 100 (#events)', () => {
  it.each([0, 100, 50.5, 1e-300])('accepts %s', (percent) => {
    expect(violationsOf('progress', { percent })).toEqual([]);
  });

  it.each<[number, string]>([
    [-0.0001, 'schema:minimum'],
    [100.0001, 'schema:maximum'],
    [Number.NaN, 'schema:type'],
    [Number.POSITIVE_INFINITY, 'schema:type'],
    [Number.NEGATIVE_INFINITY, 'schema:type'],
  ])('rejects %s', (percent, rule) => {
    expect(violationsOf('progress', { percent })).toEqual([{ rule, path: '/percent' }]);
  });
});

describe('date-time members follow XEP-0082 with a mandatory offset (interp-31)', () => {
  it.each([NOW, '2026-07-27T21:14:04.123456789+02:00', '2026-07-27T19:14:04-00:00'])('accepts %s', (at) => {
    expect(violationsOf('status', { state: 'running', updatedAt: at })).toEqual([]);
    expect(violationsOf('input_required', inputRequired({ createdAt: at, expiresAt: at }))).toEqual([]);
  });

  it.each<[string, string]>([
    ['2026-07-27T19:14:02', 'datetime:offset-missing'],
    ['2026-07-27t19:14:02Z', 'datetime:syntax'],
    ['2026-07-27T19:14:02z', 'datetime:syntax'],
    ['2026-07-27 19:14:02Z', 'datetime:syntax'],
    ['2026-02-30T19:14:02Z', 'datetime:day-range'],
    ['2026-07-27T23:59:60Z', 'datetime:second-range'],
    ['2026-07-27T19:14:02+24:00', 'datetime:offset-range'],
  ])('rejects %s in every date-time member', (at, rule) => {
    expect(violationsOf('status', { state: 'running', updatedAt: at })).toEqual([
      { rule, path: '/updatedAt' },
    ]);
    expect(violationsOf('input_required', inputRequired({ createdAt: at }))).toEqual([
      { rule, path: '/createdAt' },
    ]);
    expect(violationsOf('input_required', inputRequired({ expiresAt: at }))).toEqual([
      { rule, path: '/expiresAt' },
    ]);
  });

  it('reports a non-string date-time once, as a schema violation', () => {
    expect(violationsOf('status', { state: 'running', updatedAt: 1 })).toEqual([
      { rule: 'schema:type', path: '/updatedAt' },
    ]);
  });
});

describe('failure codes: reserved or namespace-qualified (#errors)', () => {
  function failed(code: string): JsonValue {
    return { error: { code, message: 'Something failed.', retryable: false } };
  }

  it.each([
    'deadline-expired',
    'internal-error',
    'unavailable',
    'com.example.weather:quota-exceeded',
    'urn:example:weather:quota-exceeded',
    'x:y',
  ])('accepts %s', (code) => {
    expect(violationsOf('failed', failed(code))).toEqual([]);
  });

  it.each<[string, string]>([
    ['quota-exceeded', 'failure-code:unqualified'],
    ['Unavailable', 'failure-code:unqualified'],
    ['timeout', 'failure-code:unqualified'],
    [':quota-exceeded', 'failure-code:empty-segment'],
    ['com.example.weather:', 'failure-code:empty-segment'],
    ['com.example::quota', 'failure-code:empty-segment'],
    ['com.example weather:quota', 'schema:pattern'],
    ['x'.repeat(129), 'schema:pattern'],
  ])('rejects %j with %s', (code, rule) => {
    expect(violationsOf('failed', failed(code))).toEqual([{ rule, path: '/error/code' }]);
  });
});

describe('terminalPayloadType', () => {
  it('maps each terminal state to its own event type and non-terminal states to nothing', () => {
    expect(terminalPayloadType('completed')).toBe('completed');
    expect(terminalPayloadType('failed')).toBe('failed');
    expect(terminalPayloadType('cancelled')).toBe('cancelled');
    for (const state of ['accepted', 'running', 'input_required', 'cancelling'] as const) {
      expect(terminalPayloadType(state)).toBeUndefined();
    }
  });

  it('names only event types that exist', () => {
    for (const state of ['completed', 'failed', 'cancelled'] as const) {
      expect(EVENT_TYPES).toContain(terminalPayloadType(state));
    }
  });
});
