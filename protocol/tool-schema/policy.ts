/**
 * The version 0 registration rules of #schemas that need no evaluator: dialect, object root,
 * vocabularies, keyword support, regular-expression syntax and complexity. One walk checks them in
 * document order (the first violation wins, so the reported path is stable) and takes inventory of
 * identifiers and references for reference-checks.ts once the schema is known to be well formed.
 */
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { isJsonObject } from '../json/json-value.ts';
import { isDialect202012, SUPPORTED_VOCABULARIES } from './dialect.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { unsupportedAssertionReason } from './keyword-policy.ts';
import type { ToolSchemaLimits } from './limits.ts';
import { regexSyntaxError } from './regex.ts';
import { ToolSchemaRejection } from './rejection.ts';
import { walkSchema } from './schema-walk.ts';

export type ToolSchemaDirection = 'input' | 'output';

export interface SchemaReference {
  readonly keyword: '$ref' | '$dynamicRef';
  readonly value: string;
  readonly baseUri: string;
  /** Pointer of the keyword itself. */
  readonly path: string;
}

/** Identifiers and references of a schema that passed the structural rules. */
export interface SchemaInventory {
  /** Absolute resource URI (no fragment) → pointer of the subschema that is that resource. */
  readonly resources: ReadonlyMap<string, string>;
  /** `${resource}#${name}` for every `$anchor` and `$dynamicAnchor`. */
  readonly anchors: ReadonlySet<string>;
  /** Pointers of every subschema the walk entered: the only places a reference may land. */
  readonly schemaPaths: ReadonlySet<string>;
  readonly references: readonly SchemaReference[];
  /** Resource roots that carry `$vocabulary` (see compile.ts for why the evaluator never sees it). */
  readonly vocabularyHolders: readonly JsonObject[];
}

/** Applies the structural rules to `schema` (already an object) and returns its inventory. */
export function checkStructure(
  schema: JsonObject,
  direction: ToolSchemaDirection,
  retrievalUri: string,
  limits: ToolSchemaLimits,
): SchemaInventory {
  checkRootDialect(schema);
  if (direction === 'input') checkObjectRoot(schema);

  const resources = new Map<string, string>();
  const anchors = new Set<string>();
  const schemaPaths = new Set<string>();
  const references: SchemaReference[] = [];
  const vocabularyHolders: JsonObject[] = [];
  const resourceRoots = new Set<JsonObject>();

  for (const site of walkSchema(schema, retrievalUri)) {
    if (site.depth > limits.maxDepth) {
      throw new ToolSchemaRejection(
        'schema-too-complex',
        site.path,
        `subschemas nest deeper than ${limits.maxDepth}`,
      );
    }
    schemaPaths.add(site.path);
    if (schemaPaths.size > limits.maxSubschemas) {
      throw new ToolSchemaRejection(
        'schema-too-complex',
        site.path,
        `more than ${limits.maxSubschemas} subschemas`,
      );
    }
    const node = site.schema;
    if (typeof node === 'boolean') continue;
    const base = site.baseUri;
    if (base === undefined) {
      throw new ToolSchemaRejection(
        'invalid-schema',
        appendPointer(site.path, '$id'),
        '$id does not resolve against its base URI',
      );
    }
    checkKeywords(node, site.path, site.isResourceRoot, limits);
    if (site.isResourceRoot) {
      if (resources.has(base)) {
        throw new ToolSchemaRejection(
          'invalid-schema',
          appendPointer(site.path, '$id'),
          'two schema resources share one identifier',
        );
      }
      resources.set(base, site.path);
      resourceRoots.add(node);
      if (node['$vocabulary'] !== undefined) vocabularyHolders.push(node);
    }
    for (const keyword of ['$anchor', '$dynamicAnchor'] as const) {
      const name = node[keyword];
      if (typeof name !== 'string') continue;
      const anchor = `${base}#${name}`;
      // $anchor and $dynamicAnchor share one namespace per resource; a second definition is ambiguous.
      if (anchors.has(anchor) && !(keyword === '$dynamicAnchor' && node['$anchor'] === name)) {
        throw new ToolSchemaRejection(
          'invalid-schema',
          appendPointer(site.path, keyword),
          'anchor defined twice in one resource',
        );
      }
      anchors.add(anchor);
    }
    for (const keyword of ['$ref', '$dynamicRef'] as const) {
      const value = node[keyword];
      if (typeof value === 'string')
        references.push({ keyword, value, baseUri: base, path: appendPointer(site.path, keyword) });
    }
  }
  checkStrayVocabularies(schema, resourceRoots);
  return { resources, anchors, schemaPaths, references, vocabularyHolders };
}

function checkRootDialect(schema: JsonObject): void {
  const dialect = schema['$schema'];
  if (typeof dialect === 'string' && !isDialect202012(dialect)) {
    throw new ToolSchemaRejection(
      'unsupported-dialect',
      '/$schema',
      'only the JSON Schema 2020-12 dialect is recognised',
    );
  }
}

/**
 * "Object root" (#schemas) is decided from the root alone: its `type` must be "object" or a list
 * naming only "object". Following `$ref` or intersecting `allOf` branches could also prove it, but
 * a root that says so itself is what every client and model-facing tool list can check without an
 * evaluator, and it cannot be undermined by a referenced subschema — so the reference gateway
 * requires it outright.
 */
function checkObjectRoot(schema: JsonObject): void {
  const type = schema['type'];
  if (type === undefined) {
    throw new ToolSchemaRejection('object-root', '', 'an input schema root must declare type "object"');
  }
  const onlyObject =
    type === 'object' || (Array.isArray(type) && type.length > 0 && type.every((t) => t === 'object'));
  if (!onlyObject) {
    throw new ToolSchemaRejection('object-root', '/type', 'an input schema root must accept only objects');
  }
}

function checkKeywords(
  node: JsonObject,
  path: string,
  isResourceRoot: boolean,
  limits: ToolSchemaLimits,
): void {
  for (const [keyword, value] of Object.entries(node)) {
    const at = appendPointer(path, keyword);
    const reason = unsupportedAssertionReason(keyword, value);
    if (reason !== undefined) throw new ToolSchemaRejection('unsupported-keyword', at, reason);
    if (keyword === '$schema' && typeof value === 'string' && !isDialect202012(value)) {
      throw new ToolSchemaRejection(
        'unsupported-dialect',
        at,
        'only the JSON Schema 2020-12 dialect is recognised',
      );
    }
    if (keyword === '$vocabulary') checkVocabulary(value, at, isResourceRoot);
    if (keyword === 'pattern' && typeof value === 'string') checkPattern(value, at, limits);
    if (keyword === 'patternProperties' && isJsonObject(value)) {
      for (const source of Object.keys(value)) checkPattern(source, appendPointer(at, source), limits);
    }
  }
}

function checkVocabulary(value: JsonValue, at: string, isResourceRoot: boolean): void {
  // Core 2020-12 §8.1.2: $vocabulary belongs to a resource root, never to a subschema.
  if (!isResourceRoot)
    throw new ToolSchemaRejection('invalid-schema', at, '$vocabulary outside a schema resource root');
  if (!isJsonObject(value)) return; // the meta-schema reports the shape
  for (const [vocabulary, required] of Object.entries(value)) {
    // An optional (false) vocabulary we do not know may be ignored (#schemas).
    if (required === true && !SUPPORTED_VOCABULARIES.has(vocabulary)) {
      throw new ToolSchemaRejection(
        'unsupported-vocabulary',
        appendPointer(at, vocabulary),
        'a required vocabulary is not supported',
      );
    }
  }
}

function checkPattern(source: string, at: string, limits: ToolSchemaLimits): void {
  if (source.length > limits.maxPatternLength) {
    throw new ToolSchemaRejection('schema-too-complex', at, `pattern longer than ${limits.maxPatternLength}`);
  }
  const error = regexSyntaxError(source);
  if (error !== undefined) throw new ToolSchemaRejection('invalid-regex', at, error);
}

/**
 * The evaluator treats any object with a string `$id` as an embedded resource — even inside `const`
 * or an unknown keyword — and would load a `$vocabulary` there as a process-wide dialect. Only walked
 * resource roots may carry one; anywhere else it is refused rather than handed to the evaluator.
 */
function checkStrayVocabularies(root: JsonObject, resourceRoots: ReadonlySet<JsonObject>): void {
  const stack: { value: JsonValue; path: string }[] = [{ value: root, path: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, path } = next;
    if (Array.isArray(value)) {
      value.forEach((member, index) => stack.push({ value: member, path: appendPointer(path, index) }));
    } else if (isJsonObject(value)) {
      if (typeof value['$id'] === 'string' && '$vocabulary' in value && !resourceRoots.has(value)) {
        throw new ToolSchemaRejection(
          'invalid-schema',
          appendPointer(path, '$vocabulary'),
          '$vocabulary outside a schema resource root',
        );
      }
      for (const [name, member] of Object.entries(value))
        stack.push({ value: member, path: appendPointer(path, name) });
    }
  }
}
