/**
 * The JSON Schema evaluator in its posture, loaded through evaluator.ts (the door) on first use.
 * @hyperjump/json-schema passes the whole 2020-12 test suite, which makes it the authoritative
 * evaluation #schemas asks for, but out of the box it fetches http, https and file URIs and its
 * settings are process-wide. Every module here reaches it through loadEvaluator(), so before any schema is compiled — in the main thread or a validation worker —
 * the evaluator is in the posture #schemas and #security require:
 * - no URI scheme is retrievable, so no reference can trigger network or file access;
 * - `format` is annotation-only (Format-Annotation vocabulary; no assertion extension exists in v0);
 * - schemas are checked against their meta-schema when compiled;
 * - the `properties` keyword copes with member names such as "constructor" (properties-keyword-fix.ts).
 * The posture is re-applied before each compile and evaluation in case other code in the process
 * changed a shared setting.
 */
import { removeUriSchemePlugin } from '@hyperjump/browser';
import { setShouldValidateFormat, setShouldValidateSchema } from '@hyperjump/json-schema/draft-2020-12';
import { installPropertiesFix } from './properties-keyword-fix.ts';

const RETRIEVABLE_SCHEMES = ['http', 'https', 'file'] as const;

export function applyEvaluatorPosture(): void {
  for (const scheme of RETRIEVABLE_SCHEMES) removeUriSchemePlugin(scheme);
  setShouldValidateFormat(false);
  setShouldValidateSchema(true);
  installPropertiesFix();
}

applyEvaluatorPosture();

export {
  getAllRegisteredSchemaUris,
  hasSchema,
  registerSchema,
  restoreValidator,
  unregisterSchema,
  validate,
} from '@hyperjump/json-schema/draft-2020-12';
export type { OutputUnit, SchemaObject, Validator } from '@hyperjump/json-schema/draft-2020-12';
export {
  buildSchemaDocument,
  compile,
  getSchema,
  hasDialect,
  serialize,
} from '@hyperjump/json-schema/experimental';
export type { SchemaDocument } from '@hyperjump/json-schema/experimental';
