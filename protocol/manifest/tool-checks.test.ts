import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/json-value.ts';
import { toolViolations } from './tool-checks.ts';

function tool(name: string, extra: Record<string, JsonValue> = {}): JsonValue {
  return { name, inputSchema: { type: 'object' }, ...extra };
}

function found(tools: JsonValue[]): { rule: string; path: string }[] {
  return toolViolations({ tools }).map(({ rule, path }) => ({ rule, path }));
}

describe('tool names (#namespaces, interp-22)', () => {
  it('accepts names outside the MCP recommendation: spaces, non-ASCII, long, TAB/LF/CR', () => {
    expect(
      found([tool('get forecast'), tool('prévision'), tool('x'.repeat(200)), tool('a\tb\nc\rd')]),
    ).toEqual([]);
  });

  it.each([
    ['\u0001', 'tool-name:xml-illegal-character'],
    ['a\uffffb', 'tool-name:xml-illegal-character'],
    ['a\ud800', 'tool-name:lone-surrogate'],
    ['\udc00a', 'tool-name:lone-surrogate'],
  ])('rejects %j', (name, rule) => {
    expect(found([tool(name)])).toEqual([{ rule, path: '/tools/0/name' }]);
  });

  it('requires exact uniqueness, reported at the later duplicate', () => {
    expect(found([tool('a'), tool('b'), tool('a')])).toEqual([
      { rule: 'tool-name:duplicate', path: '/tools/2/name' },
    ]);
  });

  it('compares code points without normalization or case folding', () => {
    // Precomposed é vs e + combining acute: canonically equivalent, yet distinct names.
    expect(found([tool('caf\u00e9'), tool('cafe\u0301'), tool('Cafe'), tool('cafe')])).toEqual([]);
  });
});

describe('extension member names', () => {
  it('accepts URI names, fragments included, and the spec extension itself', () => {
    expect(
      found([
        tool('a', {
          'urn:xmpp:agent-api:0': {},
          'https://example.com/ext#v1': true,
          'urn:example:weather': 1,
          'x-private:': null,
        }),
      ]),
    ).toEqual([]);
  });

  it.each([
    ['urn:example:a b', 'extension-name:not-uri'],
    ['urn:example:\u00e9', 'extension-name:not-uri'],
    ['urn:example:%zz', 'extension-name:not-uri'],
    ['urn:example:a[b]', 'extension-name:not-uri'],
    ['urn:XMPP:agent-api:0', 'extension-name:alias'],
    ['urn:xmpp:agent-api:%30', 'extension-name:alias'],
  ])('rejects %j', (name, rule) => {
    expect(found([tool('a', { [name]: {} })])).toEqual([{ rule, path: `/tools/0/${name}` }]);
  });

  it('rejects two equivalent spellings of one third-party extension at the later one', () => {
    expect(found([tool('a', { 'https://example.com/ext': 1, 'https://EXAMPLE.com/ext': 2 })])).toEqual([
      { rule: 'extension-name:alias', path: '/tools/0/https:~1~1EXAMPLE.com~1ext' },
    ]);
  });
});

describe('timeouts in urn:xmpp:agent-api:0', () => {
  function timeouts(extension: Record<string, JsonValue>): { rule: string; path: string }[] {
    return found([tool('a', { 'urn:xmpp:agent-api:0': extension })]);
  }

  it('accepts a default at or below the maximum, or either alone', () => {
    expect(timeouts({ defaultTimeoutSeconds: 30, maximumTimeoutSeconds: 120 })).toEqual([]);
    expect(timeouts({ defaultTimeoutSeconds: 120, maximumTimeoutSeconds: 120 })).toEqual([]);
    expect(timeouts({ defaultTimeoutSeconds: 500 })).toEqual([]);
    expect(timeouts({ maximumTimeoutSeconds: 1 })).toEqual([]);
  });

  it('rejects a default above the maximum', () => {
    expect(timeouts({ defaultTimeoutSeconds: 121, maximumTimeoutSeconds: 120 })).toEqual([
      {
        rule: 'timeout:default-exceeds-maximum',
        path: '/tools/0/urn:xmpp:agent-api:0/defaultTimeoutSeconds',
      },
    ]);
  });
});

it('skips values the schema will already have refused', () => {
  expect(toolViolations(null)).toEqual([]);
  expect(toolViolations({ tools: {} })).toEqual([]);
  expect(found([1, { name: 2 }, tool('a', { 'urn:xmpp:agent-api:0': [] })])).toEqual([]);
});
