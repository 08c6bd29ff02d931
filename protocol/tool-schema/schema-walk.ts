/**
 * Iterative traversal of every subschema position of a 2020-12 schema, in document order, with the
 * base URI in force at each one (#schemas: `$id` sets the base). Only keyword positions that hold
 * subschemas are entered; the values of `const`, `enum`, `default`, `examples` and of unknown
 * annotation keywords are data and stay opaque. An explicit stack keeps hostile nesting from
 * exhausting the call stack.
 */
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { isJsonObject } from '../json/json-value.ts';
import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_ARRAY_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './dialect.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { resolveUri } from './uri.ts';

export interface SchemaSite {
  readonly schema: JsonObject | boolean;
  /** JSON pointer of this subschema in the whole document. */
  readonly path: string;
  /** Subschema nesting depth; the root is 0. */
  readonly depth: number;
  /** The base URI in force inside this subschema, or undefined when its `$id` does not resolve. */
  readonly baseUri: string | undefined;
  /** True when `$id` makes this subschema a schema resource of its own (the root always is). */
  readonly isResourceRoot: boolean;
}

interface Pending {
  readonly schema: JsonValue;
  readonly path: string;
  readonly depth: number;
  readonly parentBase: string | undefined;
}

export function* walkSchema(root: JsonValue, retrievalUri: string): Generator<SchemaSite> {
  const stack: Pending[] = [{ schema: root, path: '', depth: 0, parentBase: retrievalUri }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { schema, path, depth, parentBase } = next;
    if (typeof schema === 'boolean') {
      yield { schema, path, depth, baseUri: parentBase, isResourceRoot: path === '' };
      continue;
    }
    if (!isJsonObject(schema)) continue;
    const id = schema['$id'];
    const hasId = typeof id === 'string';
    const resolved = hasId && parentBase !== undefined ? resolveUri(id, parentBase) : undefined;
    const baseUri = hasId ? resolved?.resource : parentBase;
    yield { schema, path, depth, baseUri, isResourceRoot: hasId || path === '' };
    const children = childSchemas(schema, path);
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index];
      if (child !== undefined) stack.push({ ...child, depth: depth + 1, parentBase: baseUri });
    }
  }
}

function childSchemas(schema: JsonObject, path: string): { schema: JsonValue; path: string }[] {
  const children: { schema: JsonValue; path: string }[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    const at = appendPointer(path, keyword);
    if (SINGLE_SUBSCHEMA_KEYWORDS.has(keyword)) {
      children.push({ schema: value, path: at });
    } else if (SUBSCHEMA_ARRAY_KEYWORDS.has(keyword) && Array.isArray(value)) {
      value.forEach((member, index) => children.push({ schema: member, path: appendPointer(at, index) }));
    } else if (SUBSCHEMA_MAP_KEYWORDS.has(keyword) && isJsonObject(value)) {
      for (const [name, member] of Object.entries(value)) {
        children.push({ schema: member, path: appendPointer(at, name) });
      }
    }
  }
  return children;
}
