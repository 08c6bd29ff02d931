/**
 * "Tool schemas MUST be valid JSON Schema objects" (#schemas): validity is membership in the 2020-12
 * meta-schema, checked by the same evaluator that will run the schema. The evaluator also checks
 * this while compiling, but only says yes or no; this pass names the offending location.
 */
import type { JsonObject } from '../json/json-value.ts';
import { DIALECT_2020_12 } from './dialect.ts';
import type { Validator } from './evaluator.ts';
import { loadEvaluator } from './evaluator.ts';
import { pointerTokens } from '../json/json-pointer.ts';
import { ToolSchemaRejection } from './rejection.ts';

let metaValidator: Promise<Validator> | undefined;

export async function checkMetaSchema(schema: JsonObject): Promise<void> {
  metaValidator ??= loadEvaluator().then(({ validate }) => validate(DIALECT_2020_12));
  const validator = await metaValidator;
  const output = validator(schema, 'BASIC');
  if (output.valid) return;
  // The deepest failing location is the most specific one; outer anyOf/allOf failures restate it.
  let path = '';
  let keyword = '';
  for (const unit of output.errors ?? []) {
    const location = decodeURI(unit.instanceLocation.replace(/^#/, ''));
    if (path === '' || location.length > path.length) {
      path = location;
      keyword = pointerTokens(decodeURI(unit.absoluteKeywordLocation.replace(/^[^#]*#/, '')))?.at(-1) ?? '';
    }
  }
  const detail = keyword === '' ? '' : ` (meta-schema keyword '${keyword.slice(0, 40)}')`;
  throw new ToolSchemaRejection(
    'invalid-schema',
    path,
    `not valid against the JSON Schema 2020-12 meta-schema${detail}`,
  );
}
