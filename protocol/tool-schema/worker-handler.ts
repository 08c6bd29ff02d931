/**
 * What a validation worker does with one request (see budget.ts): find or build the evaluator the
 * request names, then evaluate the instance. Kept apart from the thread wiring in
 * validation-worker.ts so it can be exercised in-process.
 */
import type { JsonValue } from '../json/json-value.ts';
import { compileToolSchema } from './compile.ts';
import type { CompiledToolSchema } from './compiled-tool-schema.ts';
import type { Validator } from './evaluator.ts';
import { loadEvaluator } from './evaluator.ts';
import { ToolSchemaRejection } from './rejection.ts';
import { evaluateInstance } from './validation-result.ts';
import type { WorkerPayload, WorkerReply, WorkerRequest } from './worker-protocol.ts';

/** Evaluators kept per worker; the least recently used one goes first. */
export const WORKER_CACHE_CAPACITY = 256;

type Entry =
  | { readonly kind: 'evaluator'; readonly validator: Validator; readonly documentUri: string }
  | { readonly kind: 'compiled'; readonly compiled: CompiledToolSchema }
  | { readonly kind: 'rejected'; readonly rejection: ToolSchemaRejection };

export class WorkerHandler {
  readonly #cache = new Map<string, Entry>();

  async handle(request: WorkerRequest): Promise<WorkerReply> {
    const { id } = request;
    try {
      const entry = await this.#entryFor(request);
      if (entry === undefined) return { type: 'need-payload', id };
      if (entry.kind === 'rejected') {
        const { rule, path, message } = entry.rejection;
        return { type: 'rejected', id, rule, path, message };
      }
      const instance = JSON.parse(request.instance) as JsonValue;
      const result =
        entry.kind === 'evaluator'
          ? evaluateInstance(entry.validator, instance, entry.documentUri)
          : entry.compiled.validate(instance);
      return { type: 'result', id, result };
    } catch (error) {
      // The error's name tells a stack overflow from a bug, and quotes nothing.
      return { type: 'failed', id, message: error instanceof Error ? error.name : 'evaluation failed' };
    }
  }

  async #entryFor(request: WorkerRequest): Promise<Entry | undefined> {
    const cached = this.#cache.get(request.key);
    if (cached !== undefined) {
      this.#cache.delete(request.key);
      this.#cache.set(request.key, cached);
      return cached;
    }
    if (request.payload === undefined) return undefined;
    const entry = await load(request.payload);
    this.#cache.set(request.key, entry);
    if (this.#cache.size > WORKER_CACHE_CAPACITY) {
      const oldest = this.#cache.keys().next();
      if (oldest.done !== true) this.#cache.delete(oldest.value);
    }
    return entry;
  }
}

async function load(payload: WorkerPayload): Promise<Entry> {
  if (payload.kind === 'evaluator') {
    return {
      kind: 'evaluator',
      validator: (await loadEvaluator()).restoreValidator(payload.serialized),
      documentUri: payload.documentUri,
    };
  }
  try {
    const schema = JSON.parse(payload.schema) as JsonValue;
    return { kind: 'compiled', compiled: await compileToolSchema(schema, { direction: payload.direction }) };
  } catch (error) {
    if (error instanceof ToolSchemaRejection) return { kind: 'rejected', rejection: error };
    throw error;
  }
}
