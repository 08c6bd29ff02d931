/**
 * A registered tool schema, compiled once (#schemas: the target's evaluation of the exact registered
 * schema is authoritative). `validate` evaluates in the calling thread without a time limit: use it
 * for schemas and instances you trust. Gateway traffic goes through validateWithinBudget, which runs
 * the same compiled form in a worker that is stopped when the budget runs out (#security).
 */
import type { CanonicalHash } from '../json/canonical.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { Validator } from './evaluator.ts';
import type { ToolSchemaDirection } from './policy.ts';
import type { SchemaValidationResult } from './validation-result.ts';
import { evaluateInstance } from './validation-result.ts';

export interface CompiledToolSchemaParts {
  readonly direction: ToolSchemaDirection;
  readonly schemaHash: CanonicalHash;
  readonly documentUri: string;
  readonly validator: Validator;
  /** The schema's weight for inline validation (inline-bound.ts); absent: always the worker. */
  readonly inlineWeight?: number;
}

export class CompiledToolSchema {
  readonly direction: ToolSchemaDirection;
  /** XEP-0300 sha-256 of the schema's RFC 8785 bytes: the <schema-hash/> of #schemas. */
  readonly schemaHash: CanonicalHash;
  /** URI the evaluator knows the schema document by (its `$id`, or a synthetic one). */
  readonly documentUri: string;
  /** The compiled form as text, for a validation worker to restore without recompiling. */
  readonly serializedEvaluator: string;
  /** Set when the schema's evaluation cost is statically bounded (inline-bound.ts). */
  readonly inlineWeight: number | undefined;
  readonly #validator: Validator;

  constructor(parts: CompiledToolSchemaParts) {
    this.direction = parts.direction;
    this.schemaHash = parts.schemaHash;
    this.documentUri = parts.documentUri;
    this.#validator = parts.validator;
    this.serializedEvaluator = parts.validator.serialize();
    this.inlineWeight = parts.inlineWeight;
  }

  validate(instance: JsonValue): SchemaValidationResult {
    return evaluateInstance(this.#validator, instance, this.documentUri);
  }
}
