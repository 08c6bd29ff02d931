/** The conformance manifest as the gateway validates it, with its compiled tool schemas. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validateManifestBytes, type CompiledToolSchemas, type ValidManifest } from '../../manifest/index.ts';
import { REPO_ROOT } from '../../test-support/shared-paths.ts';

export const CONFORMANCE_MANIFEST = resolve(REPO_ROOT, 'fixtures', 'manifests', 'conformance.json');

export async function conformanceManifest(): Promise<ValidManifest> {
  const validation = await validateManifestBytes(readFileSync(CONFORMANCE_MANIFEST));
  if (!validation.ok) {
    throw new Error(`conformance.json is invalid: ${validation.violations.map((v) => v.message).join('; ')}`);
  }
  return validation;
}

export function toolSchemas(manifest: ValidManifest, tool: string): CompiledToolSchemas {
  const schemas = manifest.toolSchemas.get(tool);
  if (schemas === undefined) throw new Error(`conformance.json has no tool ${tool}`);
  return schemas;
}
