/**
 * Tool schemas (#schemas): registration checks, compilation in the authoritative 2020-12 evaluator,
 * and time-bounded validation of arguments and results.
 */
export { compileToolSchema } from './compile.ts';
export type { CompileToolSchemaOptions } from './compile.ts';
export { CompiledToolSchema } from './compiled-tool-schema.ts';
export { DIALECT_2020_12, SUPPORTED_VOCABULARIES } from './dialect.ts';
export { DEFAULT_TOOL_SCHEMA_LIMITS } from './limits.ts';
export type { ToolSchemaLimits } from './limits.ts';
export type { ToolSchemaDirection } from './policy.ts';
export { registerExternalDocuments } from './registry.ts';
export type { ExternalDocuments } from './registry.ts';
export { ToolSchemaRejection } from './rejection.ts';
export type { ToolSchemaRule } from './rejection.ts';
export { MAX_LOCATION_LENGTH, MAX_REPORTED_ERRORS } from './validation-result.ts';
export type { SchemaValidationError, SchemaValidationResult } from './validation-result.ts';
export {
  BudgetedValidator,
  closeSharedValidator,
  sharedBudgetedValidator,
  validateWithinBudget,
} from './budget.ts';
export type {
  BudgetFailure,
  BudgetOptions,
  BudgetOutcome,
  BudgetedValidatorOptions,
  SourceRejection,
  ToolSchemaSource,
} from './budget.ts';
