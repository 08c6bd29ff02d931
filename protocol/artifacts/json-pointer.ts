/** RFC 6901 JSON Pointer evaluation, for locating hash vectors inside spec JSON. */
import type { JsonValue } from '../json/json-value.ts';

export function resolvePointer(value: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return value;
  if (!pointer.startsWith('/')) return undefined;
  let current: JsonValue | undefined = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
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
