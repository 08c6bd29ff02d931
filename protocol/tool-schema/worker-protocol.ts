/**
 * Messages between the gateway thread and a validation worker. Instances and schemas cross as JSON
 * text: JSON.parse rebuilds member names such as "__proto__" as plain data on the far side, and the
 * text is what was parsed, so nothing about the value changes in transit.
 */
import type { ToolSchemaDirection } from './policy.ts';
import type { ToolSchemaRule } from './rejection.ts';
import type { SchemaValidationResult } from './validation-result.ts';

/** What the worker needs to build an evaluator it does not hold yet. */
export type WorkerPayload =
  | { readonly kind: 'evaluator'; readonly serialized: string; readonly documentUri: string }
  | { readonly kind: 'schema'; readonly schema: string; readonly direction: ToolSchemaDirection };

export interface WorkerRequest {
  readonly id: number;
  /** Names the evaluator in the worker's cache. */
  readonly key: string;
  readonly instance: string;
  readonly payload?: WorkerPayload;
}

/** The answer to one request of a batch. */
export type WorkerReply =
  | { readonly type: 'result'; readonly id: number; readonly result: SchemaValidationResult }
  | { readonly type: 'need-payload'; readonly id: number }
  | {
      readonly type: 'rejected';
      readonly id: number;
      readonly rule: ToolSchemaRule;
      readonly path: string;
      readonly message: string;
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

/**
 * What a worker posts: once 'ready' after its warm-up, then one 'replies' per batch, in batch
 * order — one message each way per batch, not per request.
 */
export type WorkerMessage =
  { readonly type: 'ready' } | { readonly type: 'replies'; readonly replies: readonly WorkerReply[] };
