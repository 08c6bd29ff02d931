import { describe, expect, it } from 'vitest';
import type { JsonValue } from './json-value.ts';
import { resolvePointer } from './json-pointer.ts';

describe('RFC 6901 pointers', () => {
  const value: JsonValue = { tools: [{ 'a/b': 1, 'm~n': 2 }], '': 3 };

  it('resolves members, array indexes and escaped tokens', () => {
    expect(resolvePointer(value, '')).toBe(value);
    expect(resolvePointer(value, '/tools/0/a~1b')).toBe(1);
    expect(resolvePointer(value, '/tools/0/m~0n')).toBe(2);
    expect(resolvePointer(value, '/')).toBe(3);
  });

  it('returns undefined for paths that do not exist or are malformed', () => {
    expect(resolvePointer(value, 'tools')).toBeUndefined();
    expect(resolvePointer(value, '/tools/1')).toBeUndefined();
    expect(resolvePointer(value, '/tools/01')).toBeUndefined();
    expect(resolvePointer(value, '/tools/-')).toBeUndefined();
    expect(resolvePointer(value, '/tools/0/a~1b/x')).toBeUndefined();
    expect(resolvePointer(value, '/constructor')).toBeUndefined();
  });
});
