/**
 * Compiling without touching the evaluator's process-wide schema registry. hyperjump normally
 * compiles documents registered in one global map, where two tools declaring the same `$id` would
 * collide and a concurrent compile could resolve another tool's document. Instead, each compile
 * builds its document privately and resolves it through a document cache of its own, seeded with
 * that document only; the registry's long-lived entries (the meta-schemas and any explicit
 * allowlist) are still visible, nothing is added to it, so there is nothing to unregister and
 * concurrent compiles cannot see each other. The compiled form is a self-contained AST that makes
 * no further lookups; it is returned as a standard Validator restored from its serialization, the
 * same form a validation worker restores.
 *
 * The private cache is hyperjump's browser `_cache` field, which its public types do not declare;
 * the dependency is pinned to an exact version and the official test suite run exercises this path.
 */
import type { JsonObject } from '../json/json-value.ts';
import type { SchemaDocument, Validator } from './evaluator.ts';
import { loadEvaluator } from './evaluator.ts';
import { Mutex } from './mutex.ts';
import { resolveUri } from './uri.ts';

/** Serialises registry writes (allowlist registration) against compiles that read it. */
const registryLock = new Mutex();

let generation = 0;

/**
 * Changes whenever the allowlist does: what a compile decides (a reserved identifier) holds only
 * for the generation it saw (compile-memo.ts).
 */
export function registryGeneration(): number {
  return generation;
}

/** A document identifier the evaluator already holds (a meta-schema or an allowlisted document). */
export class ReservedIdentifierError extends Error {
  override readonly name = 'ReservedIdentifierError';
  readonly uri: string;

  constructor(uri: string) {
    super('the schema declares an identifier the evaluator already holds');
    this.uri = uri;
  }
}

export interface IsolatedCompileOptions {
  /** Base URI of a document without `$id`. */
  readonly retrievalUri: string;
  /** Dialect of a document without `$schema`. */
  readonly contextDialect: string;
  /** Resource URIs the document defines; the compile is refused when the evaluator holds one. */
  readonly identifiers?: Iterable<string>;
}

export interface IsolatedCompilation {
  readonly validator: Validator;
  /** The URI the evaluator knows the document by: its resolved `$id`, else the retrieval URI. */
  readonly documentUri: string;
}

export async function compileIsolated(
  schema: JsonObject | boolean,
  options: IsolatedCompileOptions,
): Promise<IsolatedCompilation> {
  const evaluator = await loadEvaluator();
  const { applyEvaluatorPosture, buildSchemaDocument, compile, getSchema, hasDialect, hasSchema } = evaluator;
  const { restoreValidator, serialize } = evaluator;
  return registryLock.run(async () => {
    applyEvaluatorPosture();
    for (const uri of options.identifiers ?? []) {
      // A private document named like a meta-schema could stand in for it during meta-validation.
      if (hasSchema(uri) || hasDialect(uri)) throw new ReservedIdentifierError(uri);
    }
    const document: SchemaDocument = buildSchemaDocument(
      schema,
      options.retrievalUri,
      options.contextDialect,
    );
    if (hasSchema(document.baseUri) || hasDialect(document.baseUri))
      throw new ReservedIdentifierError(document.baseUri);
    const privateCache = { _cache: { [document.baseUri]: document } };
    const browser = await getSchema(
      document.baseUri,
      privateCache as unknown as Parameters<typeof getSchema>[1],
    );
    const validator = restoreValidator(serialize(await compile(browser)));
    return { validator, documentUri: document.baseUri };
  });
}

/**
 * An explicit allowlist of documents held in memory (#security: external references only with an
 * allowlist and a resource budget). Registering them is the whole budget: they are parsed and
 * bounded by whoever supplies them, and references to anything else still fail closed.
 */
export interface ExternalDocuments {
  /** Normalised absolute URIs (no fragment) a schema may reference. */
  readonly uris: ReadonlySet<string>;
  /** Removes the documents from the evaluator. */
  release(): Promise<void>;
}

export async function registerExternalDocuments(
  documents: Iterable<readonly [uri: string, document: JsonObject | boolean]>,
  contextDialect: string,
): Promise<ExternalDocuments> {
  const { applyEvaluatorPosture, registerSchema, unregisterSchema } = await loadEvaluator();
  return registryLock.run(() => {
    applyEvaluatorPosture();
    const registered: string[] = [];
    const uris = new Set<string>();
    try {
      for (const [uri, document] of documents) {
        const normalised = resolveUri(uri, uri);
        if (normalised === undefined || normalised.fragment !== undefined) {
          throw new TypeError('an external document URI must be absolute and have no fragment');
        }
        generation += 1;
        registerSchema(document, uri, contextDialect);
        registered.push(uri);
        uris.add(normalised.resource);
      }
    } catch (error) {
      for (const uri of registered) unregisterSchema(uri);
      throw error;
    }
    let released = false;
    return Promise.resolve({
      uris,
      release: () =>
        registryLock.run(() => {
          if (!released) for (const uri of registered) unregisterSchema(uri);
          if (!released) generation += 1;
          released = true;
          return Promise.resolve();
        }),
    });
  });
}
