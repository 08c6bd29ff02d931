/**
 * Every tool's `inputSchema` and `outputSchema` must be a schema the target can enforce
 * (#manifest, #schemas): registration compiles each one, with the input direction's extra
 * rules for `inputSchema`. A rejection is reported inside the tool, at the schema keyword that
 * caused it (`/tools/3/inputSchema/properties/x/pattern`).
 */
import { isJsonObject, type JsonValue } from '../json/json-value.ts';
import { compileToolSchema, ToolSchemaRejection, type CompiledToolSchema } from '../tool-schema/index.ts';
import type { ViolationList, Violation } from './schema-violations.ts';

export interface CompiledToolSchemas {
  readonly input: CompiledToolSchema;
  readonly output: CompiledToolSchema | undefined;
}

const MEMBERS = [
  ['inputSchema', 'input'],
  ['outputSchema', 'output'],
] as const;

/**
 * Compiles the schemas of every tool whose schema location carries no violation yet (a schema
 * the manifest schema or the text checks already refused is not worth compiling). Rejections
 * go into `violations`; the result holds the compiled pair of each tool that compiled fully.
 */
export async function compileManifestToolSchemas(
  manifest: JsonValue,
  violations: ViolationList,
): Promise<Map<string, CompiledToolSchemas>> {
  const compiled = new Map<string, CompiledToolSchemas>();
  const tools = isJsonObject(manifest) ? manifest['tools'] : undefined;
  if (!Array.isArray(tools)) return compiled;
  // One at a time, so violations come out in document order and work stays bounded.
  for (const [index, tool] of tools.entries()) {
    if (!isJsonObject(tool)) continue;
    const pair: Partial<Record<'input' | 'output', CompiledToolSchema>> = {};
    for (const [member, direction] of MEMBERS) {
      const schema = tool[member];
      const path = `/tools/${index}/${member}`;
      if (schema === undefined || violations.covers(path)) continue;
      try {
        pair[direction] = await compileToolSchema(schema, { direction });
      } catch (error) {
        if (!(error instanceof ToolSchemaRejection)) throw error;
        violations.add(rejectionViolation(error, path));
      }
    }
    const name = tool['name'];
    if (typeof name === 'string' && pair.input !== undefined) {
      compiled.set(name, { input: pair.input, output: pair.output });
    }
  }
  return compiled;
}

function rejectionViolation(rejection: ToolSchemaRejection, schemaPath: string): Violation {
  return {
    rule: `tool-schema:${rejection.rule}`,
    path: `${schemaPath}${rejection.path}`,
    message: rejection.message,
  };
}
