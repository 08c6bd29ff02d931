/**
 * Where every `$ref` and `$dynamicRef` lands (#schemas): same-document targets must exist and be
 * subschemas the policy walked — a pointer into `const` or an unknown keyword would make the
 * evaluator compile data that no rule ever checked. A target in another document is an external
 * reference; version 0 allows it only through an explicit allowlist of documents already held in
 * memory (#security), and otherwise registration fails. Nothing here or in the evaluator fetches.
 */
import { appendPointer, pointerTokens } from '../json/json-pointer.ts';
import type { SchemaInventory } from './policy.ts';
import { ToolSchemaRejection } from './rejection.ts';
import { resolveUri } from './uri.ts';

export function checkReferences(inventory: SchemaInventory, allowedExternal: ReadonlySet<string>): void {
  for (const reference of inventory.references) {
    const target = resolveUri(reference.value, reference.baseUri);
    if (target === undefined) {
      throw new ToolSchemaRejection(
        'unresolvable-reference',
        reference.path,
        `${reference.keyword} is not a resolvable URI reference`,
      );
    }
    const resourcePath = inventory.resources.get(target.resource);
    if (resourcePath === undefined) {
      if (allowedExternal.has(target.resource)) continue;
      throw new ToolSchemaRejection(
        'external-reference',
        reference.path,
        `${reference.keyword} leaves the schema document`,
      );
    }
    if (!landsOnSchema(inventory, target.resource, resourcePath, target.fragment)) {
      throw new ToolSchemaRejection(
        'unresolvable-reference',
        reference.path,
        `${reference.keyword} target is not a subschema of this document`,
      );
    }
  }
}

function landsOnSchema(
  inventory: SchemaInventory,
  resource: string,
  resourcePath: string,
  fragment: string | undefined,
): boolean {
  if (fragment === undefined || fragment === '') return true;
  if (!fragment.startsWith('/')) return inventory.anchors.has(`${resource}#${fragment}`);
  const tokens = pointerTokens(fragment);
  if (tokens === undefined) return false;
  return inventory.schemaPaths.has(tokens.reduce<string>(appendPointer, resourcePath));
}
