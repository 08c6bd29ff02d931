/**
 * Documented complexity limits for registering a tool schema (#security: bound schema complexity;
 * #json-encoding: exceeding one is a <resource-constraint/>). Byte length and JSON nesting are the
 * JSON parser's limits and are already enforced before a schema reaches this folder; these bound
 * what the evaluator would otherwise compile without limit.
 */
export interface ToolSchemaLimits {
  /** Deepest subschema nesting, counting from the root at 0. */
  readonly maxDepth: number;
  /** Subschemas in the whole document, booleans included. */
  readonly maxSubschemas: number;
  /** UTF-16 code units in one `pattern` or `patternProperties` key. */
  readonly maxPatternLength: number;
}

export const DEFAULT_TOOL_SCHEMA_LIMITS: ToolSchemaLimits = {
  maxDepth: 64,
  maxSubschemas: 10_000,
  maxPatternLength: 4_096,
};
