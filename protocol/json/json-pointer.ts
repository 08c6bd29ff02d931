/** RFC 6901 JSON pointers: one implementation for every location the project reports or reads. */
import type { JsonValue } from './json-value.ts';

/** RFC 6901 §3: `~` and `/` inside a reference token are escaped as `~0` and `~1`. */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${pointerToken(token)}`;
}

/** Tokens of a pointer, or undefined when it is not one (it must be empty or start with '/'). */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value a pointer designates, or undefined when it designates nothing. */
export function resolvePointer(value: JsonValue, pointer: string): JsonValue | undefined {
  const tokens = pointerTokens(pointer);
  if (tokens === undefined) return undefined;
  let current: JsonValue | undefined = value;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      current = /^(0|[1-9][0-9]*)$/.test(token) ? current[Number(token)] : undefined;
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}
