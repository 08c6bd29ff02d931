/**
 * compileToolSchema: the registration check of #schemas followed by compilation in the
 * authoritative evaluator. Order matters only for which rule a schema with several faults reports:
 * shape and dialect first (nothing else means anything without them), then the structural rules in
 * document order, then meta-schema validity, then references (which need a well-formed schema).
 */
import type { CanonicalDocument } from '../json/canonical.ts';
import { canonicalDocument } from '../json/canonical.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { isJsonObject } from '../json/json-value.ts';
import { memoKeyOf, rememberCompilation, rememberedCompilation } from './compile-memo.ts';
import { CompiledToolSchema } from './compiled-tool-schema.ts';
import { DIALECT_2020_12 } from './dialect.ts';
import { inlineWeightOf } from './inline-bound.ts';
import type { ToolSchemaLimits } from './limits.ts';
import { DEFAULT_TOOL_SCHEMA_LIMITS } from './limits.ts';
import { checkMetaSchema } from './meta-schema.ts';
import type { SchemaInventory, ToolSchemaDirection } from './policy.ts';
import { checkStructure } from './policy.ts';
import { checkReferences } from './reference-checks.ts';
import type { ExternalDocuments, IsolatedCompilation } from './registry.ts';
import { compileIsolated, ReservedIdentifierError } from './registry.ts';
import { ToolSchemaRejection } from './rejection.ts';

export interface CompileToolSchemaOptions {
  readonly direction: ToolSchemaDirection;
  /** Documents a schema may reference outside itself; without it every external reference is refused. */
  readonly externalDocuments?: ExternalDocuments;
  readonly limits?: Partial<ToolSchemaLimits>;
}

/**
 * Host for synthetic document URIs. `.invalid` never resolves (RFC 6761), and nothing is fetched
 * anyway; the hash makes the URI a function of the canonical bytes, so the compiled form — and the
 * worker's cache key derived from it — is the same for the same schema.
 */
const SYNTHETIC_HOST = 'https://tool-schema.invalid';

export async function compileToolSchema(
  schema: JsonValue,
  options: CompileToolSchemaOptions,
): Promise<CompiledToolSchema> {
  if (!isJsonObject(schema)) {
    throw new ToolSchemaRejection('not-an-object', '', 'a tool schema must be a JSON object');
  }
  const canonical = canonicalize(schema);
  const limits = { ...DEFAULT_TOOL_SCHEMA_LIMITS, ...options.limits };
  const memoKey =
    options.externalDocuments === undefined
      ? memoKeyOf(options.direction, canonical.hash.value, limits)
      : undefined;
  const remembered = memoKey === undefined ? undefined : rememberedCompilation(memoKey);
  if (remembered !== undefined) return remembered;
  const retrievalUri = `${SYNTHETIC_HOST}/${Buffer.from(canonical.hash.value, 'base64').toString('hex')}/schema.json`;
  // Evaluate a private copy of the canonical form: the registered object, and ours to adjust.
  const evaluated = JSON.parse(canonical.bytes.toString('utf8')) as JsonObject;

  const inventory = checkStructure(evaluated, options.direction, retrievalUri, limits);
  await checkMetaSchema(evaluated).catch((error: unknown) => {
    throw error instanceof ToolSchemaRejection ? error : asRejection(error, inventory);
  });
  checkReferences(inventory, options.externalDocuments?.uris ?? new Set());

  // $vocabulary only governs schemas that use this one as their meta-schema, and a tool schema never
  // is one (its own dialect is pinned to 2020-12), so removing it cannot change evaluation. Left in,
  // the evaluator would load it as a process-wide dialect named by an attacker-chosen `$id`.
  for (const holder of inventory.vocabularyHolders) delete holder['$vocabulary'];

  const { validator, documentUri } = await compileEvaluator(evaluated, retrievalUri, inventory);
  const inlineWeight = inlineWeightOf(evaluated, retrievalUri);
  const compiled = new CompiledToolSchema({
    direction: options.direction,
    schemaHash: canonical.hash,
    documentUri,
    validator,
    ...(inlineWeight === undefined ? {} : { inlineWeight }),
  });
  if (memoKey !== undefined) rememberCompilation(memoKey, compiled);
  return compiled;
}

function canonicalize(schema: JsonObject): CanonicalDocument {
  try {
    return canonicalDocument(schema);
  } catch {
    throw new ToolSchemaRejection('invalid-schema', '', 'the schema has no RFC 8785 canonical form');
  }
}

async function compileEvaluator(
  schema: JsonObject,
  retrievalUri: string,
  inventory: SchemaInventory,
): Promise<IsolatedCompilation> {
  try {
    return await compileIsolated(schema, {
      retrievalUri,
      contextDialect: DIALECT_2020_12,
      identifiers: inventory.resources.keys(),
    });
  } catch (error) {
    throw asRejection(error, inventory);
  }
}

/** Evaluator failures the policy did not foresee still reject, without quoting evaluator text. */
function asRejection(error: unknown, inventory: SchemaInventory): ToolSchemaRejection {
  if (error instanceof ReservedIdentifierError) {
    const path = inventory.resources.get(error.uri);
    return new ToolSchemaRejection(
      'reserved-identifier',
      path === undefined ? '' : `${path}/$id`,
      error.message,
    );
  }
  if (error instanceof RangeError) {
    return new ToolSchemaRejection(
      'schema-too-complex',
      '',
      'the evaluator ran out of stack compiling the schema',
    );
  }
  if (error instanceof Error && error.name === 'RetrievalError') {
    return new ToolSchemaRejection(
      'external-reference',
      '',
      'a reference could not be resolved within the document',
    );
  }
  return new ToolSchemaRejection('invalid-schema', '', 'the evaluator could not compile the schema');
}
