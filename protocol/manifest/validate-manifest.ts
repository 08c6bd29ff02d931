/**
 * Manifest validation before registration (#manifest, #registration-flow): "The gateway MUST
 * validate the manifest before committing it", and invalid input is rejected before any digest
 * is computed. Runs the normative schema, then the rules it cannot express, and reports every
 * defect once (see ViolationList) so a registrant can fix a manifest in one round.
 *
 * Violation rules, by family:
 * - `json:<rule>`: the strict I-JSON parse (validateManifestBytes only), with line and column;
 * - `schema:<keyword>`: the normative manifest schema;
 * - `jid:<rule>`: `agent.jid` is not a bare JID;
 * - `uri:<rule>`: `agent.homepage` / `agent.avatarUrl` break the HTTPS URI rules;
 * - `tool-name:<rule>`, `extension-name:<rule>`, `timeout:default-exceeds-maximum`: per tool;
 * - `value:<rule>`: text that can never be served as canonical JSON in XML;
 * - `tool-schema:<rule>`: an input or output schema the target cannot enforce.
 */
import { normalizeBareJid } from '../jid/jid.ts';
import type { JsonLimits } from '../json/json-limits.ts';
import { JsonRejection } from '../json/json-rejection.ts';
import type { JsonValue } from '../json/json-value.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { agentViolations } from './agent-checks.ts';
import { manifestSchemaViolations } from './manifest-schema.ts';
import type { Manifest } from './manifest-types.ts';
import { ViolationList, type Violation } from './schema-violations.ts';
import { toolViolations } from './tool-checks.ts';
import { compileManifestToolSchemas, type CompiledToolSchemas } from './tool-schemas.ts';
import { unservableValueViolations } from './unservable-text.ts';

export interface ManifestViolation extends Violation {
  /** Position in the submitted text, for `json:` violations only. */
  readonly line?: number;
  readonly column?: number;
}

export interface ValidManifest {
  readonly ok: true;
  readonly manifest: Manifest;
  /** `agent.jid` normalized: the endpoint identifier registrations are keyed by (interp-25). */
  readonly endpointJid: string;
  /** Compiled input and output schemas by exact tool name, ready for invocation and results. */
  readonly toolSchemas: ReadonlyMap<string, CompiledToolSchemas>;
}

export interface InvalidManifest {
  readonly ok: false;
  readonly violations: readonly ManifestViolation[];
}

export type ManifestValidation = ValidManifest | InvalidManifest;

export async function validateManifest(value: JsonValue): Promise<ManifestValidation> {
  const violations = new ViolationList<ManifestViolation>();
  violations.addAll(manifestSchemaViolations(value));
  for (const violation of [
    ...agentViolations(value),
    ...toolViolations(value),
    ...unservableValueViolations(value),
  ]) {
    violations.add(violation);
  }
  // Last, because it is the expensive step and skips schemas that are already known bad.
  const toolSchemas = await compileManifestToolSchemas(value, violations);
  if (violations.items.length > 0) return { ok: false, violations: violations.items };
  const manifest = value as unknown as Manifest;
  return { ok: true, manifest, endpointJid: normalizeBareJid(manifest.agent.jid), toolSchemas };
}

/**
 * Strict parse, then validation. A parse rejection is the only violation reported: there is no
 * value to validate. Its message is ours and names the rule, never the rejected text.
 */
export async function validateManifestBytes(
  input: Uint8Array | string,
  limits?: Partial<JsonLimits>,
): Promise<ManifestValidation> {
  let value: JsonValue;
  try {
    value = parseStrictJson(input, limits);
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    const violation: ManifestViolation = {
      rule: `json:${error.rule}`,
      path: '',
      message: `the manifest is not acceptable JSON (${error.classification}: ${error.rule})`,
      line: error.line,
      column: error.column,
    };
    return { ok: false, violations: [violation] };
  }
  return validateManifest(value);
}
