/**
 * Compiled tool schemas kept within one process, by canonical hash: a world whose tools share
 * schemas (the reference world: 62 schemas, 17 distinct) compiles and meta-validates each once.
 * The hash is over the exact canonical bytes, so a changed byte is another entry. Only what
 * compiled without external documents is kept, under the registry generation it was compiled in
 * (an allowlist change decides anew whether an `$id` is reserved), the direction and the limits;
 * a rejection is decided again each time. CompiledToolSchema is immutable, so sharing it is safe.
 */
import type { CompiledToolSchema } from './compiled-tool-schema.ts';
import type { ToolSchemaLimits } from './limits.ts';
import type { ToolSchemaDirection } from './policy.ts';
import { registryGeneration } from './registry.ts';

/** Bounded: a gateway that registers schemas for months must not grow without end. */
const MAX_ENTRIES = 512;

const entries = new Map<string, CompiledToolSchema>();

export function memoKeyOf(
  direction: ToolSchemaDirection,
  schemaHash: string,
  limits: ToolSchemaLimits,
): string {
  return JSON.stringify([registryGeneration(), direction, schemaHash, limits]);
}

export function rememberedCompilation(key: string): CompiledToolSchema | undefined {
  const found = entries.get(key);
  if (found === undefined) return undefined;
  // Most recently used last: eviction takes the oldest first.
  entries.delete(key);
  entries.set(key, found);
  return found;
}

export function rememberCompilation(key: string, compiled: CompiledToolSchema): void {
  entries.delete(key);
  entries.set(key, compiled);
  for (const oldest of entries.keys()) {
    if (entries.size <= MAX_ENTRIES) break;
    entries.delete(oldest);
  }
}
